// The unified API's embeddings: the OpenAI SDK's embeddings.create against Gemini (AI Studio),
// Vertex AI, Cohere and Bedrock (Titan, Cohere) through the gateway, each mock answering natively.
import { test } from '@aigw/testkit';
import type { BadRequestError } from 'openai';
import { afterAll, describe, expect } from 'vitest';
import { eventFor, type Harness, startHarness } from '../../test/harness.js';
import { bedrockCredentials, lastSentJson, openaiClient } from './unified.test-support.js';

let h: Harness;

afterAll(async () => {
  await h?.close();
});

function targets() {
  const vertex = {
    'x-service-provider': 'vertex-ai',
    'x-service-custom-host': h.mock.url,
    'x-service-cloudB-project-id': 'p',
    'x-service-cloudB-region': 'us-central1',
  };
  return [
    {
      name: 'google',
      headers: { 'x-service-provider': 'google', 'x-service-custom-host': h.mock.url },
      model: 'text-embedding-004',
      path: '/v1beta/models/text-embedding-004:batchEmbedContents',
      reportsUsage: false,
    },
    {
      name: 'vertex-ai',
      headers: vertex,
      model: 'text-embedding-005',
      path: '/v1/projects/p/locations/us-central1/publishers/google/models/text-embedding-005:predict',
      reportsUsage: true,
    },
    {
      name: 'cohere',
      headers: { 'x-service-provider': 'cohere', 'x-service-custom-host': h.mock.url },
      model: 'embed-v4.0',
      path: '/v2/embed',
      reportsUsage: true,
    },
    {
      name: 'bedrock cohere',
      headers: {
        'x-service-provider': 'bedrock',
        'x-service-custom-host': h.mock.url,
        ...bedrockCredentials,
      },
      model: 'cohere.embed-english-v3',
      path: '/model/cohere.embed-english-v3/invoke',
      reportsUsage: false,
    },
  ] as const;
}

describe('unified API: OpenAI embeddings to every provider with embeddings', () => {
  test('set up', async ({ nats }) => {
    h = await startHarness(nats);
    expect(h.mock.url).toMatch(/^http:/);
  });

  test('a list of inputs: one vector each, in order, usage reported or estimated', async () => {
    for (const t of targets()) {
      const raw = await openaiClient(h, t.headers)
        .embeddings.create({ model: t.model, input: ['red apples', 'green pears'] })
        .withResponse();
      const list = raw.data;
      expect(h.mock.requests.at(-1)?.path, t.name).toBe(t.path);
      expect(list.object).toBe('list');
      expect(list.data.map((d) => d.index)).toEqual([0, 1]);
      expect(list.data[0]?.embedding.length, t.name).toBeGreaterThan(100);
      expect(list.data[0]?.embedding).not.toEqual(list.data[1]?.embedding);
      const event = await eventFor(h, raw.response.headers.get('x-service-trace-id') ?? '');
      expect(event.provider?.type).toBe(t.headers['x-service-provider']);
      expect(event.tokens?.inputTokens, t.name).toBeGreaterThan(0);
      expect(event.tokens?.estimated, t.name).toBe(!t.reportsUsage);
      if (t.reportsUsage) expect(list.usage.prompt_tokens).toBe(4);
    }
  });

  test('dimensions and base64 encoding', async () => {
    const google = targets()[0];
    const list = await openaiClient(h, google.headers).embeddings.create({
      model: google.model,
      input: 'short',
      dimensions: 64,
    });
    expect(list.data[0]?.embedding).toHaveLength(64);
    const sent = lastSentJson(h) as { requests: Array<{ outputDimensionality: number }> };
    expect(sent.requests[0]?.outputDimensionality).toBe(64);
    // The SDK asks for base64 by default and decodes it: same vector as floats.
    const floats = await openaiClient(h, google.headers).embeddings.create({
      model: google.model,
      input: 'short',
      encoding_format: 'float',
    });
    const decoded = await openaiClient(h, google.headers).embeddings.create({
      model: google.model,
      input: 'short',
    });
    expect(decoded.data[0]?.embedding.map((v) => Math.fround(v))).toEqual(
      floats.data[0]?.embedding.map((v) => Math.fround(v)),
    );
  });

  test('Bedrock Titan: one input a call; a list is a 400 naming input', async () => {
    const headers = {
      'x-service-provider': 'bedrock',
      'x-service-custom-host': h.mock.url,
      ...bedrockCredentials,
    };
    const one = await openaiClient(h, headers).embeddings.create({
      model: 'amazon.titan-embed-text-v2:0',
      input: 'one',
    });
    expect(one.data).toHaveLength(1);
    expect(one.usage.prompt_tokens).toBe(1);
    expect(h.mock.requests.at(-1)?.path).toBe('/model/amazon.titan-embed-text-v2:0/invoke');
    const refused = await openaiClient(h, headers)
      .embeddings.create({ model: 'amazon.titan-embed-text-v2:0', input: ['a', 'b'] })
      .catch((err: unknown) => err);
    expect((refused as BadRequestError).code).toBe('unsupported_parameter');
    expect((refused as BadRequestError).param).toBe('input');
  });
});
