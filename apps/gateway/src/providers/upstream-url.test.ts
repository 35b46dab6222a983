import { AppError } from '@aigw/runtime';
import { describe, expect, it } from 'vitest';
import { assertSafePath, chooseBase, customBase, joinUrl } from './upstream-url.js';

function rejected(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  return undefined;
}

describe('custom host as a base', () => {
  it('keeps scheme, host, port and base path, without a trailing slash, query or fragment', () => {
    expect(customBase(new URL('http://127.0.0.1:9000'))).toBe('http://127.0.0.1:9000');
    expect(customBase(new URL('https://proxy.example.com/openai/v1/?x=1#f'))).toBe(
      'https://proxy.example.com/openai/v1',
    );
  });

  it('replaces the provider base only when given', () => {
    expect(chooseBase({ customHost: undefined }, 'https://api.openai.com/v1')).toBe(
      'https://api.openai.com/v1',
    );
    expect(chooseBase({ customHost: new URL('http://[::1]:8080/v1') }, 'https://api.openai.com/v1')).toBe(
      'http://[::1]:8080/v1',
    );
  });
});

describe('joinUrl', () => {
  it('appends the path and the raw query as they are', () => {
    expect(joinUrl('https://api.openai.com/v1', '/files/file-1/content', '?a=1&b=%20').href).toBe(
      'https://api.openai.com/v1/files/file-1/content?a=1&b=%20',
    );
    expect(joinUrl('https://x.test', '/model/a%3A0/invoke', '').href).toBe(
      'https://x.test/model/a%3A0/invoke',
    );
  });

  it.each([
    '/../admin',
    '/v1/./x',
    '/files/%2e%2e/x',
    '/files/%2E./x',
    '/a\\..\\b',
    '/a#frag',
    '/a?b',
    '/a b',
    '/a\nb',
    'no-leading-slash',
    // URL parsing keeps these, but a provider or proxy that decodes %2f / %5c before resolving dot
    // segments would climb out of a custom host's base path.
    '/files/..%2fadmin',
    '/files/%2e%2e%2Fadmin',
    '/a/..%5cb',
    '/a%2f..%2fb',
    '/a%2F.',
  ])('refuses %j with bad_request on param path', (path) => {
    const err = rejected(() => joinUrl('https://api.openai.com/v1', path, ''));
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ status: 400, code: 'bad_request', param: 'path' });
  });

  it('hands out one checked URL per base, path and query, and a fresh one once a caller changed it', () => {
    const first = joinUrl('https://api.openai.com/v1', '/chat/completions', '?a=1?b=2');
    expect(first.href).toBe('https://api.openai.com/v1/chat/completions?a=1?b=2');
    expect(joinUrl('https://api.openai.com/v1', '/chat/completions', '?a=1?b=2')).toBe(first);
    expect(joinUrl('https://api.openai.com/v1', '/chat/completions', 'a=1?b=2')).toBe(first);
    first.search = '?changed';
    const again = joinUrl('https://api.openai.com/v1', '/chat/completions', '?a=1?b=2');
    expect(again).not.toBe(first);
    expect(again.href).toBe('https://api.openai.com/v1/chat/completions?a=1?b=2');
  });

  it('checks the same text cut at another place on its own', () => {
    // Same joined text, different base: each pair is checked against its own base.
    expect(joinUrl('https://x.test/v1', '/a/b', '').href).toBe('https://x.test/v1/a/b');
    expect(joinUrl('https://x.test/v1/a', '/b', '').href).toBe('https://x.test/v1/a/b');
    const err = rejected(() => joinUrl('https://x.test/v1/a/', '/../b', ''));
    expect(err).toMatchObject({ status: 400, code: 'bad_request', param: 'path' });
    expect(rejected(() => joinUrl('https://x.test/v1/a/', '/../b', ''))).toMatchObject({
      code: 'bad_request',
    });
  });

  it('accepts dots inside segments', () => {
    expect(() => assertSafePath('/model/anthropic.claude-v2/invoke')).not.toThrow();
    expect(() => assertSafePath('/files/...')).not.toThrow();
  });

  it('accepts encoded slashes that are not around a dot segment (a Bedrock ARN model id)', () => {
    const arn = '/model/arn%3Aaws%3Abedrock%3Aus-east-1%3A1%3Ainference-profile%2Fus.anthropic.claude/invoke';
    expect(joinUrl('https://x.test/v1', arn, '').pathname).toBe(`/v1${arn}`);
    expect(() => assertSafePath('/files/..x%2F.y')).not.toThrow();
  });

  it.each(['/files/%252e%252e/x', '/files/a;b', '/files/%00', '/files/..%252f'])(
    'forwards %j literally, under the base path',
    (path) => {
      expect(joinUrl('https://x.test/v1', path, '').href).toBe(`https://x.test/v1${path}`);
    },
  );
});
