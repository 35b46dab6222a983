import { AppError } from '@aigw/runtime';
import { describe, expect, it } from 'vitest';
import { parseServiceHeaders } from './service-headers.js';

function error(headers: Record<string, string | string[]>): AppError {
  try {
    parseServiceHeaders(headers);
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('expected a rejection');
}

describe('parseServiceHeaders', () => {
  it('generates a trace id when absent and keeps a safe one', () => {
    expect(parseServiceHeaders({}).traceId).toMatch(/^[0-9a-f-]{36}$/);
    expect(parseServiceHeaders({ 'x-service-trace-id': 'run-42:step.1' }).traceId).toBe('run-42:step.1');
  });

  it('keeps a surrogate pair (one astral character) in metadata', () => {
    const parsed = parseServiceHeaders({ 'x-service-metadata': '{"emoji":"\\ud83d\\ude00"}' });
    expect(parsed.metadata).toEqual({ emoji: '\u{1F600}' });
  });

  it('reads metadata as a string map, special keys included', () => {
    const parsed = parseServiceHeaders({
      'x-service-metadata': '{"_user":"u-1","_environment":"prod","tier":3,"beta":true}',
    });
    expect(parsed.metadata).toEqual({ _user: 'u-1', _environment: 'prod', tier: '3', beta: 'true' });
  });

  it('reads timeouts, forward headers in both notations, custom host and provider', () => {
    const parsed = parseServiceHeaders({
      'x-service-request-timeout': '1500',
      'x-service-forward-headers': '["X-Team", "authorization"]',
      'x-service-custom-host': 'https://llm.internal.example/v1',
      'x-service-provider': ' OpenAI ',
    });
    expect(parsed.requestTimeoutMs).toBe(1500);
    expect(parsed.forwardHeaders).toEqual(['x-team', 'authorization']);
    expect(parsed.customHost).toBe('https://llm.internal.example/v1');
    expect(parsed.provider).toBe('openai');
    expect(parseServiceHeaders({ 'x-service-forward-headers': 'x-a, X-B' }).forwardHeaders).toEqual([
      'x-a',
      'x-b',
    ]);
  });

  it.each([
    [{ 'x-service-metadata': '{not json' }, 'x-service-metadata'],
    [{ 'x-service-metadata': '["a"]' }, 'x-service-metadata'],
    [{ 'x-service-metadata': '"text"' }, 'x-service-metadata'],
    [{ 'x-service-metadata': '{"nested":{"a":1}}' }, 'x-service-metadata'],
    [{ 'x-service-metadata': JSON.stringify({ big: 'x'.repeat(9000) }) }, 'x-service-metadata'],
    [{ 'x-service-metadata': '{"name":"ops\\ud800"}' }, 'x-service-metadata'],
    [{ 'x-service-metadata': '{"\\udc00":"v"}' }, 'x-service-metadata'],
    [{ 'x-service-request-timeout': 'soon' }, 'x-service-request-timeout'],
    [{ 'x-service-request-timeout': '0' }, 'x-service-request-timeout'],
    [{ 'x-service-request-timeout': '-5' }, 'x-service-request-timeout'],
    [{ 'x-service-request-timeout': '1e3' }, 'x-service-request-timeout'],
    [{ 'x-service-request-timeout': '99999999999' }, 'x-service-request-timeout'],
    [{ 'x-service-trace-id': 'has space' }, 'x-service-trace-id'],
    [{ 'x-service-trace-id': 'x'.repeat(129) }, 'x-service-trace-id'],
    [{ 'x-service-forward-headers': '["bad header"]' }, 'x-service-forward-headers'],
    [{ 'x-service-forward-headers': '[1,2]' }, 'x-service-forward-headers'],
    [{ 'x-service-forward-headers': '[oops' }, 'x-service-forward-headers'],
    [{ 'x-service-provider': ['openai', 'anthropic'] }, 'x-service-provider'],
  ])('rejects %j with a 400 naming the header', (headers, param) => {
    const err = error(headers);
    expect(err.status).toBe(400);
    expect(err.code).toBe('invalid_header');
    expect(err.param).toBe(param);
    expect(err.headers['x-service-gateway-error']).toBe('true');
  });

  it('never lets a forward-headers entry re-introduce x-service-* headers', () => {
    expect(
      parseServiceHeaders({ 'x-service-forward-headers': 'x-service-api-key,x-ok' }).forwardHeaders,
    ).toEqual(['x-ok']);
  });
});
