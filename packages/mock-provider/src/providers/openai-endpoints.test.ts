import { describe, expect, it } from 'vitest';
import { json, OPENAI_AUTH, postJson, sseData, useMock } from '../../test/helpers.js';
import { embeddingVector } from '../text.js';
import { float32Base64 } from './openai-embeddings.js';
import { MODERATION_CATEGORIES } from './openai-misc.js';

const mock = useMock();
const post = (path: string, body: unknown) => postJson(`${mock().url}${path}`, body, OPENAI_AUTH);
const get = (path: string, headers: Record<string, string> = OPENAI_AUTH) =>
  fetch(`${mock().url}${path}`, { headers });

describe('POST /v1/completions', () => {
  it('echoes each prompt, n times, with usage', async () => {
    const body = await json(
      await post('/v1/completions', { model: 'gpt-3.5-turbo-instruct', prompt: ['a b', 'c'], n: 2 }),
    );
    expect(body).toMatchObject({ object: 'text_completion', model: 'gpt-3.5-turbo-instruct' });
    expect(body.choices.map((c: { text: string; index: number }) => [c.index, c.text])).toEqual([
      [0, 'a b'],
      [1, 'a b'],
      [2, 'c'],
      [3, 'c'],
    ]);
    expect(body.usage).toEqual({ prompt_tokens: 3, completion_tokens: 6, total_tokens: 9 });
  });

  it('truncates to max_tokens and streams text_completion chunks', async () => {
    const truncated = await json(
      await post('/v1/completions', { model: 'm', prompt: 'one two three', max_tokens: 2 }),
    );
    expect(truncated.choices[0]).toMatchObject({ text: 'one two', finish_reason: 'length' });
    const events = sseData(
      await (await post('/v1/completions', { model: 'm', prompt: 'x y', stream: true })).text(),
    );
    expect(events.at(-1)).toBe('[DONE]');
    const chunks = events.slice(0, -1) as Array<{
      object: string;
      choices: Array<{ text: string; finish_reason: string | null }>;
    }>;
    expect(chunks.every((c) => c.object === 'text_completion')).toBe(true);
    expect(chunks.map((c) => c.choices[0]!.text).join('')).toBe('x y');
    expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe('stop');
  });

  it('requires a prompt', async () => {
    expect((await post('/v1/completions', { model: 'm' })).status).toBe(400);
  });
});

describe('POST /v1/embeddings', () => {
  it('returns deterministic vectors for a string input with the default size', async () => {
    const body = await json(
      await post('/v1/embeddings', { model: 'text-embedding-3-small', input: 'hello world' }),
    );
    expect(body).toMatchObject({
      object: 'list',
      model: 'text-embedding-3-small',
      usage: { prompt_tokens: 2, total_tokens: 2 },
    });
    expect(body.data).toHaveLength(1);
    expect(body.data[0]).toMatchObject({ object: 'embedding', index: 0 });
    expect(body.data[0].embedding).toHaveLength(1536);
    expect(body.data[0].embedding).toEqual(embeddingVector('hello world', 1536));
  });

  it('honours dimensions for an array input and base64 encoding', async () => {
    const body = await json(await post('/v1/embeddings', { model: 'm', input: ['a', 'b c'], dimensions: 8 }));
    expect(
      body.data.map((d: { index: number; embedding: number[] }) => [d.index, d.embedding.length]),
    ).toEqual([
      [0, 8],
      [1, 8],
    ]);
    expect(body.usage.prompt_tokens).toBe(3);
    const b64 = await json(
      await post('/v1/embeddings', { model: 'm', input: 'a', dimensions: 4, encoding_format: 'base64' }),
    );
    expect(b64.data[0].embedding).toBe(float32Base64(embeddingVector('a', 4)));
    const large = await json(
      await post('/v1/embeddings', { model: 'text-embedding-3-large', input: [[1, 2, 3]] }),
    );
    expect(large.data[0].embedding).toHaveLength(3072);
    expect(large.usage.prompt_tokens).toBe(3);
  });

  it('rejects empty input and bad dimensions', async () => {
    expect((await post('/v1/embeddings', { model: 'm', input: '' })).status).toBe(400);
    expect((await post('/v1/embeddings', { model: 'm', input: 'x', dimensions: 0 })).status).toBe(400);
  });
});

describe('GET /v1/models', () => {
  it('lists models and retrieves one, 404 for unknown ids', async () => {
    const list = await json(await get('/v1/models'));
    expect(list.object).toBe('list');
    expect(list.data).toContainEqual(expect.objectContaining({ id: 'gpt-4o', object: 'model' }));
    expect(await json(await get('/v1/models/gpt-4o'))).toMatchObject({ id: 'gpt-4o', object: 'model' });
    const missing = await get('/v1/models/nope');
    expect(missing.status).toBe(404);
    expect((await json(missing)).error.code).toBe('model_not_found');
    expect((await get('/v1/models', {})).status).toBe(401);
  });
});

describe('POST /v1/moderations', () => {
  it('returns the eleven categories with scores, unflagged for clean text', async () => {
    const body = await json(await post('/v1/moderations', { input: 'a friendly sentence' }));
    expect(body.id).toMatch(/^modr-/);
    expect(body.model).toBe('text-moderation-latest');
    expect(body.results).toHaveLength(1);
    const [result] = body.results;
    expect(Object.keys(result.categories)).toEqual([...MODERATION_CATEGORIES]);
    expect(Object.keys(result.category_scores)).toEqual([...MODERATION_CATEGORIES]);
    expect(MODERATION_CATEGORIES).toHaveLength(11);
    expect(result.flagged).toBe(false);
    expect(Object.values(result.categories).every((v) => v === false)).toBe(true);
    expect(Object.values(result.category_scores).every((v) => typeof v === 'number' && v < 0.01)).toBe(true);
  });

  it('flags exactly the categories named by flag:<category> tokens', async () => {
    const body = await json(
      await post('/v1/moderations', {
        model: 'text-moderation-stable',
        input: ['ok', 'bad flag:violence/graphic flag:hate'],
      }),
    );
    expect(body.model).toBe('text-moderation-stable');
    expect(body.results[0].flagged).toBe(false);
    const flagged = body.results[1];
    expect(flagged.flagged).toBe(true);
    const hits = Object.entries(flagged.categories)
      .filter(([, v]) => v)
      .map(([k]) => k);
    expect(hits.sort()).toEqual(['hate', 'violence/graphic']);
    expect(flagged.category_scores['violence/graphic']).toBe(0.99);
    expect(flagged.categories['hate/threatening']).toBe(false);
  });
});

describe('POST /v1/rerank', () => {
  it('orders documents by query-word overlap', async () => {
    const body = await json(
      await post('/v1/rerank', {
        query: 'red apple',
        documents: ['green pear', { text: 'a red apple' }, 'red car'],
        top_n: 2,
        return_documents: true,
      }),
    );
    expect(body.results).toEqual([
      { index: 1, relevance_score: 1, document: { text: 'a red apple' } },
      { index: 2, relevance_score: 0.5, document: { text: 'red car' } },
    ]);
  });
});

describe('unknown paths', () => {
  it('answer 404 in OpenAI shape without auth, and are recorded', async () => {
    const res = await fetch(`${mock().url}/v1/collections/abc?x=1`, { method: 'PUT', body: 'raw' });
    expect(res.status).toBe(404);
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);
    expect(await json(res)).toEqual({
      error: {
        message: 'Invalid URL (PUT /v1/collections/abc)',
        type: 'invalid_request_error',
        param: null,
        code: null,
      },
    });
    const [recorded] = mock().requests;
    expect(recorded).toMatchObject({
      method: 'PUT',
      path: '/v1/collections/abc',
      query: { x: '1' },
      provider: 'mock',
    });
    expect(recorded?.body.toString()).toBe('raw');
  });
});
