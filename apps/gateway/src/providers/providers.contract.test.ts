// The shared contract every provider meets: from raw client headers (x-service-* options included) to
// an upstream request the in-repo mock provider accepts with the right path, auth and untouched body.
// Each provider is aimed at the mock through its custom host, the way operators aim it at a private one.
import type { IncomingHttpHeaders } from 'node:http';
import {
  createMockProvider,
  DEFAULT_AWS_CREDENTIALS,
  type MockProvider,
  type RecordedRequest,
} from '@aigw/mock-provider';
import { AppError } from '@aigw/runtime';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readCloudOptions } from './cloud-headers.js';
import { getProvider, PROVIDER_IDS } from './registry.js';
import type { ProviderRequest } from './types.js';

const KEYS = {
  openai: 'sk-contract-openai',
  anthropic: 'sk-ant-contract',
  azure: 'azure-contract-key',
  vertex: 'ya29.contract-token',
};

let mock: MockProvider;

beforeAll(async () => {
  mock = await createMockProvider({
    apiKeys: {
      openai: [KEYS.openai],
      anthropic: [KEYS.anthropic],
      azure: [KEYS.azure],
      vertex: [KEYS.vertex],
    },
  });
});
afterAll(() => mock.close());
beforeEach(() => mock.clear());

interface ClientCall {
  readonly provider: string;
  /** The custom host, relative to the mock's URL (e.g. `/v1`). */
  readonly hostPath: string;
  readonly method?: string;
  readonly path: string;
  readonly search?: string;
  /** Raw client headers, `x-service-*` options included. */
  readonly headers: Record<string, string>;
  readonly body?: unknown;
}

interface Sent {
  readonly status: number;
  readonly responseHeaders: Headers;
  readonly answer: unknown;
  readonly recorded: RecordedRequest;
  readonly bodyText: string;
}

interface CallOptions {
  /** The mock to aim at (default: the shared one). */
  readonly server?: MockProvider;
  /** Changes the outgoing request after the target was built (to prove a signature covers it). */
  readonly tamper?: (out: { headers: Record<string, string>; body: string }) => void;
}

/** Does what the pass-through pipeline does, with fetch: options, target, header edits, send. */
async function call(client: ClientCall, options: CallOptions = {}): Promise<Sent> {
  const server = options.server ?? mock;
  const provider = getProvider(client.provider);
  if (!provider) throw new Error(`no provider ${client.provider}`);
  const raw: IncomingHttpHeaders = Object.fromEntries(
    Object.entries(client.headers).map(([name, value]) => [name.toLowerCase(), value]),
  );
  const headers = Object.fromEntries(Object.entries(raw).filter(([name]) => !name.startsWith('x-service-')));
  const bodyText = client.body === undefined ? '' : JSON.stringify(client.body);
  const base: Omit<ProviderRequest, 'json' | 'body'> = {
    method: client.method ?? 'POST',
    path: client.path,
    search: client.search ?? '',
    headers,
    token: /^Bearer (.+)$/.exec(String(raw.authorization ?? ''))?.[1],
    cloud: readCloudOptions(raw),
    customHost: new URL(`${server.url}${client.hostPath}`),
  };
  const withBody = provider.needsBody(base) ? { body: Buffer.from(bodyText), json: client.body } : {};
  const target = await provider.buildTarget({ ...base, ...withBody });

  const outgoing: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (typeof value === 'string') outgoing[name] = value;
  for (const name of target.removeHeaders) delete outgoing[name];
  Object.assign(outgoing, target.setHeaders);
  // fetch always sends the URL's host; a provider that sets `host` must agree with it.
  if (outgoing.host !== undefined) expect(outgoing.host).toBe(target.url.host);
  delete outgoing.host;

  const method = client.method ?? 'POST';
  const out = { headers: outgoing, body: bodyText };
  options.tamper?.(out);
  const res = await fetch(target.url, {
    method,
    headers: out.headers,
    ...(method === 'GET' ? {} : { body: out.body }),
  });
  const text = await res.text();
  const recorded = server.requests.at(-1);
  if (!recorded) throw new Error('the mock recorded nothing');
  return {
    status: res.status,
    responseHeaders: res.headers,
    answer: text.startsWith('{') ? JSON.parse(text) : text,
    recorded,
    bodyText,
  };
}

const bearerAuth = (token: string) => ({
  authorization: `Bearer ${token}`,
  'content-type': 'application/json',
});
const CHAT = { model: 'some-model', messages: [{ role: 'user', content: 'contract says hi' }] };

/** Providers that speak OpenAI's API with a bearer token and an OpenAI-style base path. */
const OPENAI_STYLE = [
  'openai',
  'groq',
  'mistral-ai',
  'together-ai',
  'deepseek',
  'fireworks-ai',
  'perplexity-ai',
  'openrouter',
  'openai-compatible',
];

/** Which describe block below covers each provider: the suite must name every registered one. */
const COVERED = [
  ...OPENAI_STYLE,
  'ollama',
  'cohere',
  'google',
  'anthropic',
  'azure-openai',
  'vertex-ai',
  'bedrock',
];

it('covers every registered provider', () => {
  expect([...COVERED].sort()).toEqual([...PROVIDER_IDS].sort());
});

describe.each(OPENAI_STYLE)('%s (custom host <mock>/v1)', (provider) => {
  it('sends /chat/completions with the bearer token and the body unchanged', async () => {
    const sent = await call({
      provider,
      hostPath: '/v1',
      path: '/chat/completions',
      headers: bearerAuth(KEYS.openai),
      body: CHAT,
    });
    expect(sent.status).toBe(200);
    expect(sent.recorded).toMatchObject({ provider: 'openai', method: 'POST', path: '/v1/chat/completions' });
    expect(sent.recorded.headers.authorization).toBe(`Bearer ${KEYS.openai}`);
    expect(sent.recorded.body.toString()).toBe(sent.bodyText);
    expect(sent.answer).toMatchObject({ object: 'chat.completion' });
  });
});

describe('ollama (custom host <mock>, server root)', () => {
  it('puts OpenAI-style paths under /v1 and passes a token through', async () => {
    const sent = await call({
      provider: 'ollama',
      hostPath: '',
      path: '/chat/completions',
      headers: bearerAuth(KEYS.openai),
      body: CHAT,
    });
    expect(sent.status).toBe(200);
    expect(sent.recorded.path).toBe('/v1/chat/completions');
    expect(sent.recorded.body.toString()).toBe(sent.bodyText);
  });

  it('invents no auth: without a token the mock (which wants one) answers 401', async () => {
    const sent = await call({
      provider: 'ollama',
      hostPath: '',
      path: '/chat/completions',
      headers: { 'content-type': 'application/json' },
      body: CHAT,
    });
    expect(sent.status).toBe(401);
    expect(sent.recorded.headers.authorization).toBeUndefined();
  });
});

describe('cohere (custom host <mock>)', () => {
  it('maps /v1/rerank 1:1 and the mock answers it', async () => {
    const sent = await call({
      provider: 'cohere',
      hostPath: '',
      path: '/v1/rerank',
      headers: bearerAuth(KEYS.openai),
      body: { model: 'rerank-v3.5', query: 'red fruit', documents: ['an apple is red', 'the sky'] },
    });
    expect(sent.status).toBe(200);
    expect(sent.recorded.path).toBe('/v1/rerank');
    expect(sent.recorded.headers.authorization).toBe(`Bearer ${KEYS.openai}`);
  });

  it('sends v2 /v2/chat 1:1 with path, auth and body unchanged', async () => {
    const sent = await call({
      provider: 'cohere',
      hostPath: '',
      path: '/v2/chat',
      headers: bearerAuth(KEYS.openai),
      body: { model: 'command-r-plus', messages: [{ role: 'user', content: 'hi' }] },
    });
    expect(sent.status).toBe(200);
    expect(sent.recorded).toMatchObject({ provider: 'cohere', method: 'POST', path: '/v2/chat' });
    expect(sent.recorded.headers.authorization).toBe(`Bearer ${KEYS.openai}`);
    expect(sent.recorded.body.toString()).toBe(sent.bodyText);
  });
});

describe('google (custom host <mock>)', () => {
  it('sends the native path 1:1 with the token as x-goog-api-key', async () => {
    const sent = await call({
      provider: 'google',
      hostPath: '',
      path: '/v1beta/models/gemini-2.0-flash:generateContent',
      headers: bearerAuth(KEYS.openai),
      body: { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] },
    });
    expect(sent.recorded).toMatchObject({
      method: 'POST',
      path: '/v1beta/models/gemini-2.0-flash:generateContent',
    });
    expect(sent.recorded.headers['x-goog-api-key']).toBe(KEYS.openai);
    expect(sent.recorded.headers.authorization).toBeUndefined();
    expect(sent.recorded.body.toString()).toBe(sent.bodyText);
  });
});

describe('anthropic (custom host <mock>/v1)', () => {
  it('turns the bearer token into x-api-key, adds anthropic-version and drops authorization', async () => {
    const sent = await call({
      provider: 'anthropic',
      hostPath: '/v1',
      path: '/messages',
      headers: { ...bearerAuth(KEYS.anthropic), 'x-service-anthropic-beta': 'prompt-caching-2024-07-31' },
      body: {
        model: 'claude-3-5-sonnet-latest',
        max_tokens: 16,
        messages: [{ role: 'user', content: 'hi' }],
      },
    });
    expect(sent.status).toBe(200);
    expect(sent.recorded).toMatchObject({ provider: 'anthropic', path: '/v1/messages' });
    expect(sent.recorded.headers).toMatchObject({
      'x-api-key': KEYS.anthropic,
      'anthropic-version': '2023-06-01',
      'anthropic-beta': 'prompt-caching-2024-07-31',
    });
    expect(sent.recorded.headers.authorization).toBeUndefined();
    expect(sent.answer).toMatchObject({ type: 'message' });
  });
});

describe('azure-openai (custom host <mock>)', () => {
  const azure = {
    'x-service-cloudA-deployment-id': 'gpt-4o-prod',
    'x-service-cloudA-api-version': '2024-10-21',
  };

  it.each(['/chat/completions', '/embeddings'])(
    'sends %s to the deployment with api-version and api-key',
    async (path) => {
      const sent = await call({
        provider: 'azure-openai',
        hostPath: '',
        path,
        headers: { ...bearerAuth(KEYS.azure), ...azure },
        body: path === '/embeddings' ? { input: 'hello' } : CHAT,
      });
      expect(sent.status).toBe(200);
      expect(sent.recorded).toMatchObject({
        provider: 'azure',
        path: `/openai/deployments/gpt-4o-prod${path}`,
        query: { 'api-version': '2024-10-21' },
        params: { deployment: 'gpt-4o-prod' },
      });
      expect(sent.recorded.headers['api-key']).toBe(KEYS.azure);
      expect(sent.recorded.headers.authorization).toBeUndefined();
    },
  );
});

describe('vertex-ai (custom host <mock>)', () => {
  const location = { 'x-service-cloudB-project-id': 'my-project', 'x-service-cloudB-region': 'us-central1' };
  const prefix = '/v1/projects/my-project/locations/us-central1';

  it('sends OpenAI-style /chat/completions to endpoints/openapi', async () => {
    const sent = await call({
      provider: 'vertex-ai',
      hostPath: '',
      path: '/chat/completions',
      headers: { ...bearerAuth(KEYS.vertex), ...location },
      body: { ...CHAT, model: 'google/gemini-2.0-flash-001' },
    });
    expect(sent.status).toBe(200);
    expect(sent.recorded).toMatchObject({
      provider: 'vertex',
      path: `${prefix}/endpoints/openapi/chat/completions`,
    });
    expect(sent.recorded.headers.authorization).toBe(`Bearer ${KEYS.vertex}`);
  });

  it('calls <publisher model>:generateContent from the request type and the model body field', async () => {
    const sent = await call({
      provider: 'vertex-ai',
      hostPath: '',
      path: '/chat/completions',
      headers: {
        ...bearerAuth(KEYS.vertex),
        ...location,
        'x-service-cloudB-request-type': 'generateContent',
      },
      body: {
        model: 'publishers/google/models/gemini-1.5-pro',
        contents: [{ role: 'user', parts: [{ text: 'hi' }] }],
      },
    });
    expect(sent.status).toBe(200);
    expect(sent.recorded).toMatchObject({
      path: `${prefix}/publishers/google/models/gemini-1.5-pro:generateContent`,
      params: { project: 'my-project', location: 'us-central1', model: 'gemini-1.5-pro' },
    });
    expect(sent.recorded.body.toString()).toBe(sent.bodyText);
    expect(sent.answer).toMatchObject({ candidates: [{ content: { parts: [{ text: 'hi' }] } }] });
  });

  it('calls a full Anthropic resource name with rawPredict, the location taken from the name', async () => {
    const sent = await call({
      provider: 'vertex-ai',
      hostPath: '',
      path: '/messages',
      headers: { ...bearerAuth(KEYS.vertex), 'x-service-cloudB-request-type': 'rawPredict' },
      body: {
        model: 'projects/p2/locations/europe-west1/publishers/anthropic/models/claude-3-5-sonnet@20240620',
        anthropic_version: 'vertex-2023-10-16',
        max_tokens: 16,
        messages: [{ role: 'user', content: 'claude on vertex' }],
      },
    });
    expect(sent.status).toBe(200);
    expect(sent.recorded.params).toMatchObject({
      project: 'p2',
      location: 'europe-west1',
      model: 'claude-3-5-sonnet@20240620',
    });
    expect(sent.answer).toMatchObject({ type: 'message', content: [{ text: 'claude on vertex' }] });
  });
});

describe('bedrock (custom host <mock>)', () => {
  const path = '/model/anthropic.claude-3-haiku-20240307-v1%3A0/converse';
  const converse = { messages: [{ role: 'user', content: [{ text: 'hello bedrock' }] }] };
  const aws = (credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string }) => ({
    'content-type': 'application/json',
    'x-service-cloudC-access-key-id': credentials.accessKeyId,
    'x-service-cloudC-secret-access-key': credentials.secretAccessKey,
    'x-service-cloudC-region': 'us-east-1',
    ...(credentials.sessionToken && { 'x-service-cloudC-session-token': credentials.sessionToken }),
  });

  it('signs /model/<id>/converse with SigV4 and the mock verifies it', async () => {
    const sent = await call({
      provider: 'bedrock',
      hostPath: '',
      path,
      headers: aws(DEFAULT_AWS_CREDENTIALS),
      body: converse,
    });
    expect(sent.status).toBe(200);
    expect(sent.recorded).toMatchObject({
      provider: 'bedrock',
      params: { modelId: 'anthropic.claude-3-haiku-20240307-v1:0', region: 'us-east-1' },
    });
    expect(sent.recorded.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDMOCKPROVIDER0000\//,
    );
    expect(sent.answer).toMatchObject({ output: { message: { content: [{ text: 'hello bedrock' }] } } });
  });

  it('signs the session token too', async () => {
    const credentials = { ...DEFAULT_AWS_CREDENTIALS, sessionToken: 'FwoGZXIvYXdzEXAMPLE' };
    const strict = await createMockProvider({ aws: credentials });
    try {
      const client = { provider: 'bedrock', hostPath: '', path, headers: aws(credentials), body: converse };
      const sent = await call(client, { server: strict });
      expect(sent.status).toBe(200);
      expect(sent.recorded.headers['x-amz-security-token']).toBe(credentials.sessionToken);
    } finally {
      await strict.close();
    }
  });

  type Outgoing = { headers: Record<string, string>; body: string };
  const flipLast = (value: string) => value.replace(/.$/, (c) => (c === '0' ? '1' : '0'));
  it.each<[string, (out: Outgoing) => void]>([
    [
      'the body',
      (out) => {
        out.body = out.body.replace('hello', 'HELLO');
      },
    ],
    [
      'the signature',
      (out) => {
        out.headers.authorization = flipLast(out.headers.authorization!);
      },
    ],
    [
      'a signed header',
      (out) => {
        // One second later: still a valid, current timestamp, but not the signed one.
        out.headers['x-amz-date'] = out.headers['x-amz-date']!.replace(
          /(\d)Z$/,
          (_, d) => `${(Number(d) + 1) % 10}Z`,
        );
      },
    ],
  ])('is refused (403 InvalidSignatureException) when %s is changed after signing', async (_what, tamper) => {
    const client = {
      provider: 'bedrock',
      hostPath: '',
      path,
      headers: aws(DEFAULT_AWS_CREDENTIALS),
      body: converse,
    };
    const sent = await call(client, { tamper });
    expect(sent.status).toBe(403);
    expect(sent.recorded.provider).toBe('bedrock');
    expect(sent.responseHeaders.get('x-amzn-errortype')).toMatch(/^InvalidSignatureException:/);
  });
});

describe('header validation happens before any request is made', () => {
  const azure = { 'x-service-cloudA-deployment-id': 'd', 'x-service-cloudA-api-version': '2024-10-21' };
  const vertex = { 'x-service-cloudB-project-id': 'p', 'x-service-cloudB-region': 'us-central1' };
  const aws = {
    'x-service-cloudC-access-key-id': DEFAULT_AWS_CREDENTIALS.accessKeyId,
    'x-service-cloudC-secret-access-key': DEFAULT_AWS_CREDENTIALS.secretAccessKey,
    'x-service-cloudC-region': 'us-east-1',
  };
  const cases: Array<[provider: string, path: string, headers: Record<string, string>, param: string]> = [
    [
      'azure-openai',
      '/chat/completions',
      { ...azure, 'x-service-cloudA-resource-name': 'evil.com#' },
      'x-service-cloudA-resource-name',
    ],
    [
      'azure-openai',
      '/chat/completions',
      { 'x-service-cloudA-api-version': '2024-10-21' },
      'x-service-cloudA-deployment-id',
    ],
    [
      'azure-openai',
      '/chat/completions',
      { ...azure, 'x-service-cloudA-deployment-id': '../x' },
      'x-service-cloudA-deployment-id',
    ],
    [
      'azure-openai',
      '/chat/completions',
      { 'x-service-cloudA-deployment-id': 'd' },
      'x-service-cloudA-api-version',
    ],
    [
      'vertex-ai',
      '/chat/completions',
      { ...vertex, 'x-service-cloudB-region': 'us-central1.evil.com#' },
      'x-service-cloudB-region',
    ],
    [
      'vertex-ai',
      '/chat/completions',
      { ...vertex, 'x-service-cloudB-project-id': 'p/../../x' },
      'x-service-cloudB-project-id',
    ],
    [
      'vertex-ai',
      '/chat/completions',
      { 'x-service-cloudB-region': 'us-central1' },
      'x-service-cloudB-project-id',
    ],
    [
      'bedrock',
      '/model/m/converse',
      { ...aws, 'x-service-cloudC-region': 'evil.com#' },
      'x-service-cloudC-region',
    ],
    [
      'bedrock',
      '/model/m/converse',
      { 'x-service-cloudC-region': 'us-east-1' },
      'x-service-cloudC-access-key-id',
    ],
  ];

  it.each(cases)('%s %s %j -> 400 invalid_header on %s', async (provider, path, headers, param) => {
    const client = {
      provider,
      hostPath: '',
      path,
      headers: { 'content-type': 'application/json', ...headers },
      body: CHAT,
    };
    const error = await call(client).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ status: 400, code: 'invalid_header', param });
    expect(mock.requests).toHaveLength(0);
  });
});
