import { AppError } from '@aigw/runtime';
import { describe, expect, it } from 'vitest';
import { readCacheHeaders } from './cache-headers.js';
import { withOverrides } from './leaf-upstream.js';
import { isEventStream, streamText } from './stream-text.js';

describe('readCacheHeaders', () => {
  it('reads the namespace and force refresh', () => {
    expect(readCacheHeaders({})).toEqual({ namespace: undefined, forceRefresh: false });
    expect(
      readCacheHeaders({ 'x-service-cache-namespace': ' team-a ', 'x-service-cache-force-refresh': 'TRUE' }),
    ).toEqual({ namespace: 'team-a', forceRefresh: true });
    expect(readCacheHeaders({ 'x-service-cache-force-refresh': 'false' }).forceRefresh).toBe(false);
  });

  it('refuses other values with invalid_header', () => {
    for (const headers of [
      { 'x-service-cache-force-refresh': 'yes' },
      { 'x-service-cache-namespace': 'x'.repeat(257) },
      { 'x-service-cache-namespace': ['a', 'b'] },
    ]) {
      let err: unknown;
      try {
        readCacheHeaders(headers);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).code).toBe('invalid_header');
    }
  });
});

describe('withOverrides', () => {
  const body = Buffer.from('{"model":"gpt-4o","temperature":1,"messages":[]}');
  const json = JSON.parse(body.toString()) as Record<string, unknown>;

  it('keeps the client bytes when there is nothing to override', () => {
    expect(withOverrides(body, json, undefined).body).toBe(body);
    expect(withOverrides(body, json, {}).body).toBe(body);
  });

  it('merges shallowly into a JSON object, the config winning', () => {
    const out = withOverrides(body, json, { model: 'gpt-4o-mini', top_p: 0.5 });
    expect(JSON.parse(out.body.toString())).toEqual({
      model: 'gpt-4o-mini',
      temperature: 1,
      messages: [],
      top_p: 0.5,
    });
    expect(out.json).toEqual(JSON.parse(out.body.toString()));
  });

  it('leaves bodies that are not a JSON object alone', () => {
    const raw = Buffer.from('--boundary');
    expect(withOverrides(raw, undefined, { model: 'x' }).body).toBe(raw);
    expect(withOverrides(Buffer.from('[1]'), [1], { model: 'x' }).json).toEqual([1]);
  });
});

describe('streamText', () => {
  it('joins OpenAI, Anthropic and Gemini deltas and skips the rest', () => {
    const openai = [
      'data: {"choices":[{"delta":{"role":"assistant"}}]}',
      'data: {"choices":[{"delta":{"content":"Hello "}}]}',
      'data: {"choices":[{"delta":{"content":"world"}}]}',
      'data: [DONE]',
      '',
    ].join('\n\n');
    expect(streamText(Buffer.from(openai))).toBe('Hello world');
    const anthropic = [
      'event: content_block_delta',
      'data: {"type":"content_block_delta","delta":{"type":"text_delta","text":"Hi"}}',
      '',
      'event: ping',
      'data: {"type":"ping"}',
      '',
    ].join('\n');
    expect(streamText(anthropic)).toBe('Hi');
    expect(
      streamText('data: {"candidates":[{"content":{"parts":[{"text":"a"},{"text":"b"}]}}]}\n\ndata: {bad'),
    ).toBe('ab');
  });

  it('reads events whose data spans several lines, CR line ends and Responses API deltas', () => {
    expect(streamText('data: {"choices":[{"delta":\ndata: {"content":"multi"}}]}\r\rdata: [DONE]\r\r')).toBe(
      'multi',
    );
    const responses = [
      'event: response.output_text.delta',
      'data: {"type":"response.output_text.delta","delta":"Hi"}',
      '',
      'event: response.output_text.delta',
      'data: {"type":"response.output_text.delta","delta":" you"}',
      '',
    ].join('\r\n');
    expect(streamText(responses)).toBe('Hi you');
  });

  it('knows an event stream by its content type', () => {
    expect(isEventStream('text/event-stream; charset=utf-8')).toBe(true);
    expect(isEventStream('application/json')).toBe(false);
    expect(isEventStream(undefined)).toBe(false);
  });
});
