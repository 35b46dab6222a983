// Acceptance: Azure OpenAI, Vertex AI and Bedrock requests through the gateway arrive at the
// provider with the right URL and auth; Bedrock's SigV4 signature is verified by the mock.
import { DEFAULT_AWS_CREDENTIALS } from '@aigw/mock-provider';
import { test } from '@aigw/testkit';
import { afterAll, describe, expect } from 'vitest';
import { type Harness, startHarness } from '../../test/harness.js';

let h: Harness;

afterAll(async () => {
  await h?.close();
});

function post(path: string, headers: Record<string, string>, body: unknown) {
  return fetch(`${h.base}/v1${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-custom-host': h.mock.url, ...headers },
    body: JSON.stringify(body),
  });
}

const messages = [{ role: 'user', content: 'cloud call' }];

describe('cloud providers through the gateway', () => {
  test('set up', async ({ nats }) => {
    h = await startHarness(nats);
    expect(h.mock.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  test('Azure OpenAI (cloud A): deployment URL, api-version, api-key auth', async () => {
    const res = await post(
      '/chat/completions',
      {
        'x-service-provider': 'azure-openai',
        authorization: 'Bearer azure-key',
        'x-service-cloudA-resource-name': 'my-resource',
        'x-service-cloudA-deployment-id': 'gpt4o-prod',
        'x-service-cloudA-api-version': '2024-10-21',
      },
      { messages },
    );
    expect(res.status).toBe(200);
    const seen = h.mock.requests.at(-1);
    expect(seen?.url).toBe('/openai/deployments/gpt4o-prod/chat/completions?api-version=2024-10-21');
    expect(seen?.headers['api-key']).toBe('azure-key');
    expect(seen?.headers.authorization).toBeUndefined();
    expect(seen?.params.deployment).toBe('gpt4o-prod');
  });

  test('Vertex AI (cloud B): the model body field carries the resource name', async () => {
    const res = await post(
      '/chat/completions',
      {
        'x-service-provider': 'vertex-ai',
        authorization: 'Bearer ya29.token',
        'x-service-cloudB-request-type': 'generateContent',
      },
      {
        model: 'projects/my-project/locations/us-central1/publishers/google/models/gemini-1.5-pro',
        contents: [{ role: 'user', parts: [{ text: 'cloud call' }] }],
      },
    );
    expect(res.status).toBe(200);
    const seen = h.mock.requests.at(-1);
    expect(seen?.path).toBe(
      '/v1/projects/my-project/locations/us-central1/publishers/google/models/gemini-1.5-pro:generateContent',
    );
    expect(seen?.headers.authorization).toBe('Bearer ya29.token');
    const openapi = await post(
      '/chat/completions',
      {
        'x-service-provider': 'vertex-ai',
        authorization: 'Bearer ya29.token',
        'x-service-cloudB-project-id': 'my-project',
        'x-service-cloudB-region': 'europe-west4',
      },
      { model: 'google/gemini-1.5-pro', messages },
    );
    expect(openapi.status).toBe(200);
    expect(h.mock.requests.at(-1)?.path).toBe(
      '/v1/projects/my-project/locations/europe-west4/endpoints/openapi/chat/completions',
    );
  });

  test('Bedrock (cloud C): a SigV4 signature the provider verifies; a wrong secret is refused', async () => {
    const headers = {
      'x-service-provider': 'bedrock',
      'x-service-cloudC-access-key-id': DEFAULT_AWS_CREDENTIALS.accessKeyId,
      'x-service-cloudC-secret-access-key': DEFAULT_AWS_CREDENTIALS.secretAccessKey,
      'x-service-cloudC-region': 'us-east-1',
      ...(DEFAULT_AWS_CREDENTIALS.sessionToken
        ? { 'x-service-cloudC-session-token': DEFAULT_AWS_CREDENTIALS.sessionToken }
        : {}),
    };
    const body = { messages: [{ role: 'user', content: [{ text: 'cloud call' }] }] };
    const res = await post('/model/anthropic.claude-3-haiku-20240307-v1:0/converse', headers, body);
    expect(res.status).toBe(200);
    const converse = (await res.json()) as { output: { message: { content: Array<{ text: string }> } } };
    expect(converse.output.message.content[0]?.text).toBe('cloud call');
    const seen = h.mock.requests.at(-1);
    expect(seen?.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=.*\/us-east-1\/bedrock\/aws4_request/,
    );
    const forged = await post(
      '/model/anthropic.claude-3-haiku-20240307-v1:0/converse',
      { ...headers, 'x-service-cloudC-secret-access-key': 'not-the-secret' },
      body,
    );
    expect(forged.status).toBe(403);
    expect(forged.headers.get('x-service-gateway-error')).toBeNull();
  });

  test('a body the gateway must read that is not JSON is a 400 invalid_json', async () => {
    h.mock.clear();
    const res = await fetch(`${h.base}/v1/chat/completions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-service-custom-host': h.mock.url,
        'x-service-provider': 'vertex-ai',
        authorization: 'Bearer ya29.token',
        'x-service-cloudB-request-type': 'generateContent',
      },
      body: '{"model": "projects/p/locations/us-central1/publishers/google/models/gemini", broken',
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('invalid_json');
    expect(h.mock.requests).toEqual([]);
  });

  test('hostile values meant for a hostname are a 400 before anything is sent', async () => {
    h.mock.clear();
    const cases: Array<[string, Record<string, string>]> = [
      [
        'azure-openai',
        {
          'x-service-cloudA-resource-name': 'evil.com#',
          'x-service-cloudA-deployment-id': 'd',
          'x-service-cloudA-api-version': 'v',
        },
      ],
      [
        'azure-openai',
        {
          'x-service-cloudA-resource-name': 'a/b',
          'x-service-cloudA-deployment-id': 'd',
          'x-service-cloudA-api-version': 'v',
        },
      ],
      ['vertex-ai', { 'x-service-cloudB-project-id': 'p@x', 'x-service-cloudB-region': 'us-central1' }],
      ['vertex-ai', { 'x-service-cloudB-project-id': 'p', 'x-service-cloudB-region': 'us%2ecentral1' }],
      [
        'bedrock',
        {
          'x-service-cloudC-region': 'us-east-1.evil.com',
          'x-service-cloudC-access-key-id': 'A',
          'x-service-cloudC-secret-access-key': 'S',
        },
      ],
    ];
    for (const [provider, headers] of cases) {
      const res = await fetch(`${h.base}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'x-service-provider': provider, authorization: 'Bearer t', ...headers },
        body: JSON.stringify({ messages }),
      });
      expect(res.status, `${provider} ${JSON.stringify(headers)}`).toBe(400);
      const error = ((await res.json()) as { error: { code: string; param: string } }).error;
      expect(error.code).toBe('invalid_header');
      expect(error.param.startsWith('x-service-cloud')).toBe(true);
    }
    expect(h.mock.requests).toEqual([]);
  });
});
