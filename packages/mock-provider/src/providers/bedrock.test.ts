import { describe, expect, it } from 'vitest';
import { json, useMock } from '../../test/helpers.js';
import { decodeEventMessages } from '../eventstream.js';
import { signAwsRequest } from '../sigv4.js';

const creds = {
  accessKeyId: 'AKIDBEDROCKTEST',
  secretAccessKey: 'bedrock-secret',
  sessionToken: 'session-xyz',
};
const mock = useMock({ aws: creds });
const MODEL = 'anthropic.claude-3-5-sonnet-20240620-v1%3A0';

function signedFetch(path: string, body: unknown, signWith = creds, region = 'us-east-1'): Promise<Response> {
  const url = `${mock().url}${path}`;
  const payload = JSON.stringify(body);
  const headers = signAwsRequest({
    method: 'POST',
    url,
    body: payload,
    region,
    credentials: signWith,
    headers: { 'content-type': 'application/json', accept: 'application/json' },
  });
  return fetch(url, { method: 'POST', headers, body: payload });
}

const converse = {
  system: [{ text: 'sys prompt' }],
  messages: [{ role: 'user', content: [{ text: 'hi bedrock model' }] }],
  inferenceConfig: { maxTokens: 100 },
};

async function expectAwsError(res: Response, status: number, type: string): Promise<string> {
  expect(res.status).toBe(status);
  expect(res.headers.get('x-amzn-errortype')?.split(':')[0]).toBe(type);
  const body = await json(res);
  expect(Object.keys(body)).toEqual(['message']);
  return body.message;
}

describe('Bedrock Converse', () => {
  it('answers a signed request in Converse shape and records model id and region', async () => {
    const res = await signedFetch(`/model/${MODEL}/converse`, converse, creds, 'eu-central-1');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-amzn-requestid')).toBe(res.headers.get('x-request-id'));
    expect(await json(res)).toEqual({
      output: { message: { role: 'assistant', content: [{ text: 'hi bedrock model' }] } },
      stopReason: 'end_turn',
      usage: { inputTokens: 5, outputTokens: 3, totalTokens: 8 },
      metrics: { latencyMs: 0 },
    });
    expect(mock().requests[0]).toMatchObject({
      provider: 'bedrock',
      params: { modelId: 'anthropic.claude-3-5-sonnet-20240620-v1:0', region: 'eu-central-1' },
    });
  });

  it('honours maxTokens and rejects a body without messages', async () => {
    const short = await json(
      await signedFetch(`/model/${MODEL}/converse`, { ...converse, inferenceConfig: { maxTokens: 1 } }),
    );
    expect(short).toMatchObject({
      stopReason: 'max_tokens',
      output: { message: { content: [{ text: 'hi' }] } },
    });
    const message = await expectAwsError(
      await signedFetch(`/model/${MODEL}/converse`, {}),
      400,
      'ValidationException',
    );
    expect(message).toMatch(/messages/);
  });

  it('streams converse-stream as AWS event-stream messages', async () => {
    const res = await signedFetch(`/model/${MODEL}/converse-stream`, converse);
    expect(res.headers.get('content-type')).toBe('application/vnd.amazon.eventstream');
    const events = decodeEventMessages(Buffer.from(await res.arrayBuffer()));
    expect(events.map((e) => e.headers[':event-type'])).toEqual([
      'messageStart',
      'contentBlockDelta',
      'contentBlockDelta',
      'contentBlockDelta',
      'contentBlockStop',
      'messageStop',
      'metadata',
    ]);
    const payloads = events.map((e) => JSON.parse(e.payload.toString()));
    expect(
      payloads
        .slice(1, 4)
        .map((p) => p.delta.text)
        .join(''),
    ).toBe('hi bedrock model');
    expect(payloads[5]).toEqual({ stopReason: 'end_turn' });
    expect(payloads[6].usage).toEqual({ inputTokens: 5, outputTokens: 3, totalTokens: 8 });
  });
});

describe('Bedrock InvokeModel', () => {
  it('answers Anthropic, Titan and Llama bodies in their native shapes', async () => {
    const anthropic = await signedFetch(`/model/${MODEL}/invoke`, {
      anthropic_version: 'bedrock-2023-05-31',
      max_tokens: 50,
      messages: [{ role: 'user', content: 'claude on bedrock' }],
    });
    expect(await json(anthropic)).toMatchObject({
      type: 'message',
      model: 'anthropic.claude-3-5-sonnet-20240620-v1:0',
      content: [{ type: 'text', text: 'claude on bedrock' }],
      usage: { input_tokens: 3, output_tokens: 3 },
    });
    const titan = await signedFetch('/model/amazon.titan-text-express-v1/invoke', {
      inputText: 'a b c',
      textGenerationConfig: { maxTokenCount: 2 },
    });
    expect(await json(titan)).toEqual({
      inputTextTokenCount: 3,
      results: [{ tokenCount: 2, outputText: 'a b', completionReason: 'LENGTH' }],
    });
    const llama = await signedFetch('/model/meta.llama3-8b-instruct-v1%3A0/invoke', { prompt: 'x y' });
    expect(await json(llama)).toEqual({
      generation: 'x y',
      prompt_token_count: 2,
      generation_token_count: 2,
      stop_reason: 'stop',
    });
  });

  it('rejects an Anthropic body that names the model or lacks anthropic_version', async () => {
    const base = { max_tokens: 5, messages: [{ role: 'user', content: 'x' }] };
    await expectAwsError(await signedFetch(`/model/${MODEL}/invoke`, base), 400, 'ValidationException');
    const withModel = { ...base, anthropic_version: 'bedrock-2023-05-31', model: 'claude' };
    await expectAwsError(await signedFetch(`/model/${MODEL}/invoke`, withModel), 400, 'ValidationException');
  });

  it('streams invoke-with-response-stream as chunk events carrying base64 Anthropic events', async () => {
    const res = await signedFetch(`/model/${MODEL}/invoke-with-response-stream`, {
      anthropic_version: 'bedrock-2023-05-31',
      max_tokens: 50,
      messages: [{ role: 'user', content: 'one two' }],
    });
    const events = decodeEventMessages(Buffer.from(await res.arrayBuffer()));
    expect(events.every((e) => e.headers[':event-type'] === 'chunk')).toBe(true);
    const inner = events.map((e) =>
      JSON.parse(Buffer.from(JSON.parse(e.payload.toString()).bytes, 'base64').toString()),
    );
    expect(inner.map((e) => e.type)).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(inner.at(-1)['amazon-bedrock-invocationMetrics']).toMatchObject({
      inputTokenCount: 2,
      outputTokenCount: 2,
    });
  });
});

describe('Bedrock SigV4 checks', () => {
  const path = `/model/${MODEL}/converse`;

  it('rejects a missing signature with MissingAuthenticationTokenException', async () => {
    const res = await fetch(`${mock().url}${path}`, { method: 'POST', body: JSON.stringify(converse) });
    expect(await expectAwsError(res, 403, 'MissingAuthenticationTokenException')).toBe(
      'Missing Authentication Token',
    );
    expect(mock().requests).toHaveLength(1);
  });

  it('rejects a wrong secret and a tampered body with InvalidSignatureException', async () => {
    const wrong = await signedFetch(path, converse, { ...creds, secretAccessKey: 'not-the-secret' });
    expect(await expectAwsError(wrong, 403, 'InvalidSignatureException')).toMatch(
      /signature we calculated does not match/,
    );

    const url = `${mock().url}${path}`;
    const headers = signAwsRequest({
      method: 'POST',
      url,
      body: JSON.stringify(converse),
      region: 'us-east-1',
      credentials: creds,
    });
    const tampered = await fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ ...converse, extra: 1 }),
    });
    await expectAwsError(tampered, 403, 'InvalidSignatureException');

    const otherPath = await fetch(`${mock().url}/model/other-model/converse`, {
      method: 'POST',
      headers,
      body: JSON.stringify(converse),
    });
    await expectAwsError(otherPath, 403, 'InvalidSignatureException');
  });

  it('rejects an unknown access key or a missing session token with UnrecognizedClientException', async () => {
    await expectAwsError(
      await signedFetch(path, converse, { ...creds, accessKeyId: 'AKIDOTHER' }),
      403,
      'UnrecognizedClientException',
    );
    const noToken = {
      accessKeyId: creds.accessKeyId,
      secretAccessKey: creds.secretAccessKey,
      sessionToken: '',
    };
    await expectAwsError(await signedFetch(path, converse, noToken), 403, 'UnrecognizedClientException');
  });

  it('checks x-amz-content-sha256 when it is sent', async () => {
    const url = `${mock().url}${path}`;
    const payload = JSON.stringify(converse);
    const headers = signAwsRequest({
      method: 'POST',
      url,
      body: payload,
      region: 'us-east-1',
      credentials: creds,
      contentSha256Header: true,
    });
    expect((await fetch(url, { method: 'POST', headers, body: payload })).status).toBe(200);
    const forged = { ...headers, 'x-amz-content-sha256': '0'.repeat(64) };
    await expectAwsError(
      await fetch(url, { method: 'POST', headers: forged, body: payload }),
      403,
      'InvalidSignatureException',
    );
  });
});
