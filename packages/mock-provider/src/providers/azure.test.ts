import { describe, expect, it } from 'vitest';
import { json, postJson, sseData, useMock } from '../../test/helpers.js';

const mock = useMock();
const base = () => `${mock().url}/openai/deployments/my-gpt4o`;
const KEY = { 'api-key': 'azure-key' };
const chatBody = { messages: [{ role: 'user', content: 'hi azure' }] };

describe('Azure OpenAI deployments', () => {
  it('serves chat completions with content-filter fields and records the deployment', async () => {
    const res = await postJson(`${base()}/chat/completions?api-version=2024-10-21`, chatBody, KEY);
    expect(res.status).toBe(200);
    expect(res.headers.get('apim-request-id')).toBe(res.headers.get('x-request-id'));
    const body = await json(res);
    expect(body).toMatchObject({
      object: 'chat.completion',
      model: 'my-gpt4o',
      choices: [{ message: { content: 'hi azure' }, content_filter_results: { hate: { filtered: false } } }],
      prompt_filter_results: [{ prompt_index: 0 }],
      usage: { prompt_tokens: 2, completion_tokens: 2 },
    });
    expect(mock().requests[0]).toMatchObject({
      provider: 'azure',
      params: { deployment: 'my-gpt4o' },
      query: { 'api-version': '2024-10-21' },
    });
  });

  it('accepts a bearer token, streams, and serves completions and embeddings', async () => {
    const bearer = { authorization: 'Bearer entra-token' };
    const stream = await postJson(
      `${base()}/chat/completions?api-version=2024-10-01-preview`,
      { ...chatBody, stream: true },
      bearer,
    );
    expect(sseData(await stream.text()).at(-1)).toBe('[DONE]');
    const completion = await json(
      await postJson(`${base()}/completions?api-version=2024-10-21`, { prompt: 'p q' }, KEY),
    );
    expect(completion.choices[0].text).toBe('p q');
    const embedding = await json(
      await postJson(`${base()}/embeddings?api-version=2024-10-21`, { input: 'e', dimensions: 3 }, KEY),
    );
    expect(embedding.data[0].embedding).toHaveLength(3);
    expect(embedding.model).toBe('my-gpt4o');
  });

  it('answers 404 without api-version and 400 for a malformed one, before checking the key', async () => {
    const missing = await postJson(`${base()}/chat/completions`, chatBody, {});
    expect(missing.status).toBe(404);
    expect(await json(missing)).toEqual({ error: { code: '404', message: 'Resource not found' } });
    const malformed = await postJson(`${base()}/chat/completions?api-version=latest-ish`, chatBody, KEY);
    expect(malformed.status).toBe(400);
    expect((await json(malformed)).error.code).toBe('BadRequest');
  });

  it('answers a missing key with Azure 401 shape', async () => {
    const res = await postJson(`${base()}/chat/completions?api-version=2024-10-21`, chatBody, {});
    expect(res.status).toBe(401);
    const body = await json(res);
    expect(body.error.code).toBe('401');
    expect(body.error.message).toMatch(/missing subscription key/);
  });
});
