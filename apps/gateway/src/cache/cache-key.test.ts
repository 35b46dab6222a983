import { describe, expect, it } from 'vitest';
import { canonicalUrl, semanticRequest, simpleCacheKey } from './cache-key.js';
import { canonicalJson } from './canonical-json.js';

const URL_ = 'https://api.openai.com/v1/chat/completions';
const chat = (question: string, extra: Record<string, unknown> = {}) => ({
  model: 'gpt-4o',
  temperature: 0,
  messages: [
    { role: 'system', content: 'Answer briefly.' },
    { role: 'user', content: question },
  ],
  ...extra,
});
const key = (
  body: unknown,
  extra: { namespace?: string; scope?: string; url?: string; provider?: string } = {},
) => simpleCacheKey({ provider: extra.provider ?? 'openai', url: extra.url ?? URL_, body, ...extra });

describe('canonicalJson', () => {
  it('sorts keys at every depth, keeps array order and drops undefined members', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: undefined } })).toBe(
      '{"a":{"d":[3,{"y":2,"z":1}]},"b":1}',
    );
    expect(canonicalJson([2, 1])).not.toBe(canonicalJson([1, 2]));
    expect(canonicalJson({ s: 'é"\n', n: -0, t: true, x: null })).toBe(
      '{"n":0,"s":"é\\"\\n","t":true,"x":null}',
    );
  });
});

describe('simpleCacheKey', () => {
  it('is the same for the same body whatever its key order or formatting', () => {
    const a = key(chat('hi'));
    expect(a).toMatch(/^v1:-:[0-9a-f]{64}$/);
    const reordered = JSON.parse(
      '{"messages":[{"content":"Answer briefly.","role":"system"},{"content":"hi","role":"user"}],"temperature":0,"model":"gpt-4o"}',
    );
    expect(key(reordered)).toBe(a);
  });

  it('differs when the body, provider or URL path differs', () => {
    const a = key(chat('hi'));
    expect(key(chat('hi', { temperature: 1 }))).not.toBe(a);
    expect(key(chat('hi', { stream: true }))).not.toBe(a);
    expect(key(chat('hello'))).not.toBe(a);
    expect(key(chat('hi'), { provider: 'azure-openai' })).not.toBe(a);
    expect(key(chat('hi'), { url: 'https://api.openai.com/v1/completions' })).not.toBe(a);
    expect(key(chat('hi'), { url: 'https://other.example/v1/chat/completions' })).not.toBe(a);
  });

  it('partitions by namespace and scope, with a prefix shared by the partition', () => {
    const plain = key(chat('hi'));
    const teamA = key(chat('hi'), { namespace: 'team-a' });
    const teamB = key(chat('hi'), { namespace: 'team-b' });
    expect(new Set([plain, teamA, teamB]).size).toBe(3);
    expect(key(chat('other'), { namespace: 'team-a' }).split(':')[1]).toBe(teamA.split(':')[1]);
    expect(key(chat('hi'), { namespace: '' })).toBe(plain);
    expect(key(chat('hi'), { scope: 'ws-1', namespace: 'team-a' })).not.toBe(teamA);
    expect(key(chat('hi'), { scope: 'ws-1' })).not.toBe(key(chat('hi'), { scope: 'ws-2' }));
  });

  it('ignores credentials in the URL and the order of query parameters', () => {
    const base = 'https://example-resource.openai.azure.com/openai/deployments/d/chat/completions';
    const a = key(chat('hi'), { url: `${base}?api-version=2024-10-21&x=1` });
    expect(key(chat('hi'), { url: `${base}?x=1&api-version=2024-10-21&api-key=secret` })).toBe(a);
    expect(key(chat('hi'), { url: `${base}?x=2&api-version=2024-10-21` })).not.toBe(a);
    expect(canonicalUrl('https://user:pw@host.example/p?key=abc&b=2&a=1#frag')).toBe(
      'https://host.example/p?a=1&b=2',
    );
  });

  it('keys a body that is not JSON by its bytes', () => {
    const a = key(Buffer.from([0, 1, 2]));
    expect(key(Buffer.from([0, 1, 2]))).toBe(a);
    expect(key(Buffer.from([0, 1, 3]))).not.toBe(a);
    expect(key('\u0000\u0001\u0002')).not.toBe(a);
  });
});

describe('semanticRequest', () => {
  const semantic = (body: unknown, extra: { namespace?: string; scope?: string } = {}) =>
    semanticRequest({ provider: 'openai', url: URL_, body, ...extra });

  it('takes the last user message out of the parameters key', () => {
    const a = semantic(chat('What is the capital of France?'));
    const b = semantic(chat('what is the capital city of France'));
    expect(a?.text).toBe('What is the capital of France?');
    expect(a?.bucket).toEqual({ scope: '', namespace: '', model: 'gpt-4o', paramsKey: b?.bucket.paramsKey });
  });

  it('puts model, parameters, system prompt, earlier turns, namespace and scope in the bucket', () => {
    const base = semantic(chat('q'))!.bucket;
    expect(semantic(chat('q', { model: 'gpt-4o-mini' }))!.bucket.model).toBe('gpt-4o-mini');
    expect(semantic(chat('q', { model: 'gpt-4o-mini' }))!.bucket.paramsKey).not.toBe(base.paramsKey);
    expect(semantic(chat('q', { temperature: 0.7 }))!.bucket.paramsKey).not.toBe(base.paramsKey);
    const otherSystem = chat('q');
    otherSystem.messages[0] = { role: 'system', content: 'Answer in French.' };
    expect(semantic(otherSystem)!.bucket.paramsKey).not.toBe(base.paramsKey);
    const longer = chat('q');
    longer.messages.splice(1, 0, { role: 'user', content: 'earlier' }, { role: 'assistant', content: 'ok' });
    expect(semantic(longer)!.bucket.paramsKey).not.toBe(base.paramsKey);
    expect(semantic(chat('q'), { namespace: 'n', scope: 's' })!.bucket).toMatchObject({
      namespace: 'n',
      scope: 's',
    });
  });

  it('has no question for bodies without a text user message', () => {
    expect(semantic({ model: 'text-embedding-3-small', input: 'hello' })).toBeUndefined();
    expect(semantic(chat('   '))).toBeUndefined();
  });
});
