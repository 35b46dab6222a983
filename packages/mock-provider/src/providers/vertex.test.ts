import { describe, expect, it } from 'vitest';
import { json, parseSse, postJson, sseData, useMock } from '../../test/helpers.js';
import { createMockProvider } from '../server.js';

const mock = useMock();
const AUTH = { authorization: 'Bearer ya29.vertex-token' };
const prefix = () => `${mock().url}/v1/projects/my-proj/locations/us-central1`;
const gemini = (method: string) => `${prefix()}/publishers/google/models/gemini-2.0-flash:${method}`;
const request = {
  systemInstruction: { parts: [{ text: 'be nice' }] },
  contents: [{ role: 'user', parts: [{ text: 'hello gemini model' }] }],
};

describe('Vertex Gemini', () => {
  it('answers generateContent with candidates and usageMetadata, recording project, location and model', async () => {
    const res = await postJson(gemini('generateContent'), request, AUTH);
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body).toMatchObject({
      candidates: [
        {
          content: { role: 'model', parts: [{ text: 'hello gemini model' }] },
          finishReason: 'STOP',
          index: 0,
        },
      ],
      usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 3, totalTokenCount: 8 },
      modelVersion: 'gemini-2.0-flash',
    });
    expect(mock().requests[0]).toMatchObject({
      provider: 'vertex',
      params: { project: 'my-proj', location: 'us-central1', model: 'gemini-2.0-flash' },
    });
    const limited = await json(
      await postJson(
        gemini('generateContent'),
        { ...request, generationConfig: { maxOutputTokens: 1, candidateCount: 2 } },
        AUTH,
      ),
    );
    expect(limited.candidates).toHaveLength(2);
    expect(limited.candidates[1]).toMatchObject({
      finishReason: 'MAX_TOKENS',
      content: { parts: [{ text: 'hello' }] },
    });
  });

  it('streams SSE with alt=sse, the last chunk carrying finishReason and usage', async () => {
    const res = await postJson(`${gemini('streamGenerateContent')}?alt=sse`, request, AUTH);
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const events = parseSse(await res.text(), '\r\n\r\n').map((e) => JSON.parse(e.data));
    expect(events.map((e) => e.candidates[0].content.parts[0].text)).toEqual(['hello ', 'gemini ', 'model']);
    expect(
      events.slice(0, -1).every((e) => !('usageMetadata' in e) && !('finishReason' in e.candidates[0])),
    ).toBe(true);
    expect(events.at(-1)).toMatchObject({
      candidates: [{ finishReason: 'STOP' }],
      usageMetadata: { totalTokenCount: 8 },
    });
  });

  it('streams a JSON array without alt=sse', async () => {
    const res = await postJson(gemini('streamGenerateContent'), request, AUTH);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const chunks = JSON.parse(await res.text());
    expect(chunks).toHaveLength(3);
    expect(chunks[2].usageMetadata.candidatesTokenCount).toBe(3);
  });

  it('rejects a body without contents in Google error shape', async () => {
    const res = await postJson(gemini('generateContent'), {}, AUTH);
    expect(res.status).toBe(400);
    expect((await json(res)).error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
  });

  it('answers missing and invalid tokens with Google UNAUTHENTICATED errors', async () => {
    const missing = await postJson(gemini('generateContent'), request, {});
    expect(missing.status).toBe(401);
    const body = await json(missing);
    expect(body.error).toMatchObject({ code: 401, status: 'UNAUTHENTICATED' });
    expect(body.error.message).toMatch(/missing required authentication credential/);
    const strict = await createMockProvider({ apiKeys: { vertex: ['good-token'] } });
    try {
      const url = `${strict.url}/v1/projects/p/locations/l/publishers/google/models/m:generateContent`;
      const bad = await postJson(url, request, { authorization: 'Bearer stale' });
      expect((await json(bad)).error.message).toMatch(/invalid authentication credentials/);
      expect((await postJson(url, request, { authorization: 'Bearer good-token' })).status).toBe(200);
    } finally {
      await strict.close();
    }
  });
});

describe('Vertex partner and OpenAI-compatible endpoints', () => {
  const claude = (method: string) =>
    `${prefix()}/publishers/anthropic/models/claude-3-5-sonnet@20240620:${method}`;
  const body = {
    anthropic_version: 'vertex-2023-10-16',
    max_tokens: 20,
    messages: [{ role: 'user', content: 'claude on vertex' }],
  };

  it('serves Anthropic rawPredict and streamRawPredict with the model from the path', async () => {
    const message = await json(await postJson(claude('rawPredict'), body, AUTH));
    expect(message).toMatchObject({
      type: 'message',
      model: 'claude-3-5-sonnet@20240620',
      content: [{ text: 'claude on vertex' }],
    });
    const stream = await postJson(claude('streamRawPredict'), { ...body, stream: true }, AUTH);
    const events = parseSse(await stream.text());
    expect(events[0]?.event).toBe('message_start');
    expect(events.at(-1)?.event).toBe('message_stop');
  });

  it('requires anthropic_version in the body and Google auth', async () => {
    const { anthropic_version: _, ...noVersion } = body;
    const res = await postJson(claude('rawPredict'), noVersion, AUTH);
    expect(res.status).toBe(400);
    expect((await json(res)).error).toEqual({
      type: 'invalid_request_error',
      message: 'anthropic_version: Field required',
    });
    const unauth = await postJson(claude('rawPredict'), body, { 'x-api-key': 'k' });
    expect((await json(unauth)).error.status).toBe('UNAUTHENTICATED');
  });

  it('serves the OpenAI-compatible chat completions endpoint', async () => {
    const url = `${prefix()}/endpoints/openapi/chat/completions`;
    const chatBody = {
      model: 'google/gemini-2.0-flash',
      messages: [{ role: 'user', content: 'openai on vertex' }],
    };
    const completion = await json(await postJson(url, chatBody, AUTH));
    expect(completion).toMatchObject({
      object: 'chat.completion',
      model: 'google/gemini-2.0-flash',
      choices: [{ message: { content: 'openai on vertex' } }],
    });
    const events = sseData(await (await postJson(url, { ...chatBody, stream: true }, AUTH)).text());
    expect(events.at(-1)).toBe('[DONE]');
    expect((await postJson(url, chatBody, {})).status).toBe(401);
  });
});
