import { describe, expect, it } from 'vitest';
import { json, OPENAI_AUTH, postJson, useMock } from '../test/helpers.js';
import { DEFAULT_KNOBS } from './knobs.js';

const mock = useMock({ chunks: 4 });
const chatBody = { model: 'gpt-4o', messages: [{ role: 'user', content: 'record me' }] };

describe('recording', () => {
  it('records method, path, query, headers, raw and parsed body, and the x-request-id it answered with', async () => {
    const res = await postJson(`${mock().url}/v1/chat/completions?trace=a&trace=b&one=1`, chatBody, {
      ...OPENAI_AUTH,
      'x-custom': 'yes',
    });
    const [recorded] = mock().requests;
    expect(recorded).toMatchObject({
      method: 'POST',
      path: '/v1/chat/completions',
      url: '/v1/chat/completions?trace=a&trace=b&one=1',
      query: { trace: ['a', 'b'], one: '1' },
      json: chatBody,
      provider: 'openai',
      upgrade: false,
      requestId: res.headers.get('x-request-id'),
    });
    expect(recorded?.headers['x-custom']).toBe('yes');
    expect(recorded?.body.toString()).toBe(JSON.stringify(chatBody));
  });

  it('records requests rejected by auth, and lists them over GET /_mock/requests with filters', async () => {
    await postJson(`${mock().url}/v1/chat/completions`, chatBody);
    await fetch(`${mock().url}/v1/models`, { headers: OPENAI_AUTH });
    const all = await json(await fetch(`${mock().url}/_mock/requests`));
    expect(all.total).toBe(2);
    expect(all.data[0]).toMatchObject({
      method: 'POST',
      path: '/v1/chat/completions',
      bodyText: JSON.stringify(chatBody),
    });
    expect(Buffer.from(all.data[0].bodyBase64, 'base64').toString()).toBe(JSON.stringify(chatBody));
    const filtered = await json(await fetch(`${mock().url}/_mock/requests?path=/v1/models`));
    expect(filtered.data.map((r: { method: string }) => r.method)).toEqual(['GET']);
    const byProvider = await json(await fetch(`${mock().url}/_mock/requests?provider=anthropic`));
    expect(byProvider.total).toBe(0);
  });

  it('serializes multipart parts with their data in base64', async () => {
    const form = new FormData();
    form.append('purpose', 'batch');
    form.append('file', new Blob(['line']), 'a.jsonl');
    await fetch(`${mock().url}/v1/files`, { method: 'POST', headers: OPENAI_AUTH, body: form });
    const { data } = await json(await fetch(`${mock().url}/_mock/requests`));
    expect(data[0].parts[1]).toMatchObject({
      name: 'file',
      filename: 'a.jsonl',
      size: 4,
      dataBase64: Buffer.from('line').toString('base64'),
    });
  });

  it('forgets requests on clear() and DELETE /_mock/requests, and does not record control calls', async () => {
    await fetch(`${mock().url}/v1/models`, { headers: OPENAI_AUTH });
    mock().clear();
    expect(mock().requests).toHaveLength(0);
    await fetch(`${mock().url}/v1/models`, { headers: OPENAI_AUTH });
    expect((await fetch(`${mock().url}/_mock/requests`, { method: 'DELETE' })).status).toBe(204);
    expect(mock().requests).toHaveLength(0);
    await fetch(`${mock().url}/_mock/health`);
    expect(mock().requests).toHaveLength(0);
  });
});

describe('control endpoints', () => {
  it('reports health', async () => {
    const res = await fetch(`${mock().url}/_mock/health`);
    expect(await json(res)).toEqual({ status: 'ok' });
  });

  it('reads, patches and resets the server-wide knobs', async () => {
    expect(await json(await fetch(`${mock().url}/_mock/config`))).toEqual({ ...DEFAULT_KNOBS, chunks: 4 });
    const patched = await json(await postJson(`${mock().url}/_mock/config`, { status: 418, retryAfter: 3 }));
    expect(patched).toMatchObject({ status: 418, retryAfter: 3, chunks: 4 });
    expect(mock().knobs.status).toBe(418);
    const reset = await json(await postJson(`${mock().url}/_mock/reset`, {}));
    expect(reset).toEqual({ ...DEFAULT_KNOBS, chunks: 4 });
    const unset = await json(await postJson(`${mock().url}/_mock/config`, { chunks: null }));
    expect(unset.chunks).toBeUndefined();
  });

  it('answers 400 for a non-object config body and 404 for unknown control paths', async () => {
    expect((await postJson(`${mock().url}/_mock/config`, '[1]')).status).toBe(400);
    expect((await postJson(`${mock().url}/_mock/config`, 'nope')).status).toBe(400);
    const unknown = await fetch(`${mock().url}/_mock/nothing`);
    expect(unknown.status).toBe(404);
    expect((await json(unknown)).error.type).toBe('invalid_request_error');
  });
});
