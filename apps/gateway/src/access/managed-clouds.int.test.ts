// Managed cloud providers through the mock: Azure takes its resource, api version and the deployment
// serving the model from the integration, with the key as `api-key`; Bedrock signs with the
// integration's AWS keys (the mock verifies the SigV4 signature) in the integration's region.
import { randomUUID } from 'node:crypto';
import { DEFAULT_AWS_CREDENTIALS } from '@aigw/mock-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiKey,
  azureIntegration,
  type ControlPlaneGateway,
  integration,
  organisation,
  provider,
  startControlPlaneGateway,
  workspace,
} from '../../test/control-plane-entities.js';

const ORG = randomUUID();
const WS = randomUUID();
const KEY = `aigw_${randomUUID()}`;
let gw: ControlPlaneGateway;

beforeAll(async () => {
  gw = await startControlPlaneGateway([]);
  const azure = randomUUID();
  const bedrock = randomUUID();
  gw.use([
    organisation(ORG),
    workspace(WS, ORG),
    apiKey(KEY, ORG, WS),
    azureIntegration(azure, ORG, gw.mock.url),
    provider(randomUUID(), ORG, WS, 'azure', { integrationId: azure, aiProvider: 'azure-openai' }),
    // The same integration, allowed gpt-4o-mini only.
    provider(randomUUID(), ORG, WS, 'azure-mini', {
      integrationId: azure,
      aiProvider: 'azure-openai',
      allowedModels: ['gpt-4o-mini'],
    }),
    integration(bedrock, ORG, {
      aiProvider: 'bedrock',
      credentials: {
        aws_access_key_id: DEFAULT_AWS_CREDENTIALS.accessKeyId,
        aws_secret_access_key: DEFAULT_AWS_CREDENTIALS.secretAccessKey,
        ...(DEFAULT_AWS_CREDENTIALS.sessionToken
          ? { aws_session_token: DEFAULT_AWS_CREDENTIALS.sessionToken }
          : {}),
      },
      options: { custom_host: gw.mock.url, region: 'us-east-1' },
    }),
    provider(randomUUID(), ORG, WS, 'bedrock', { integrationId: bedrock, aiProvider: 'bedrock' }),
  ]);
});

afterAll(async () => {
  await gw?.close();
});

function post(path: string, headers: Record<string, string>, body: unknown) {
  return fetch(`${gw.base}/v1${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-api-key': KEY, ...headers },
    body: JSON.stringify(body),
  });
}

describe('managed cloud providers', () => {
  it('Azure: the deployment serving the model, the api version and api-key from the integration', async () => {
    for (const [model, deployment] of [
      ['gpt-4o', 'dep-4o'],
      ['gpt-4o-mini', 'dep-mini'],
      ['unlisted', 'dep-mini'],
    ] as const) {
      gw.mock.clear();
      const res = await post(
        '/chat/completions',
        // A client resource name must not move the managed key to another Azure resource.
        { 'x-service-provider': '@azure', 'x-service-cloudA-resource-name': 'attacker' },
        { model, messages: [{ role: 'user', content: 'hi' }] },
      );
      expect(res.status, model).toBe(200);
      const seen = gw.mock.requests[0];
      expect(seen?.path).toBe(`/openai/deployments/${deployment}/chat/completions`);
      expect(seen?.query['api-version']).toBe('2024-10-21');
      expect(seen?.headers['api-key']).toBe('azure-managed-key');
    }
  });

  it('Azure with allowed_models: a deployment the client names must be a listed one serving an allowed model', async () => {
    const chat = (model: string | undefined) => ({
      ...(model === undefined ? {} : { model }),
      messages: [{ role: 'user', content: 'hi' }],
    });
    const refused = [
      // an allowed model in the body, the gpt-4o deployment in the header
      ['/chat/completions', { 'x-service-cloudA-deployment-id': 'dep-4o' }, chat('gpt-4o-mini')],
      // the same with no model at all
      ['/chat/completions', { 'x-service-cloudA-deployment-id': 'dep-4o' }, chat(undefined)],
      // the AzureOpenAI SDK's path naming the deployment
      ['/deployments/dep-4o/chat/completions', {}, chat('gpt-4o-mini')],
      // a deployment the integration does not list (another model on the same resource)
      ['/chat/completions', { 'x-service-cloudA-deployment-id': 'dep-o1' }, chat('gpt-4o-mini')],
      ['/deployments/dep-o1/embeddings', {}, { input: 'x' }],
    ] as const;
    for (const [path, headers, body] of refused) {
      gw.mock.clear();
      const res = await post(path, { 'x-service-provider': '@azure-mini', ...headers }, body);
      expect([path, headers, res.status]).toEqual([path, headers, 403]);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('model_not_allowed');
      expect(gw.mock.requests).toHaveLength(0);
    }
    // Through a config naming the provider: the SDK's path is checked the same way; the header is
    // not read there (a config's provider takes its options from the config, not the request).
    const config = { 'x-service-config': JSON.stringify({ provider: '@azure-mini' }) };
    gw.mock.clear();
    const viaConfig = await post('/deployments/dep-4o/chat/completions', config, chat('gpt-4o-mini'));
    expect(viaConfig.status).toBe(403);
    expect(((await viaConfig.json()) as { error: { code: string } }).error.code).toBe('model_not_allowed');
    expect(gw.mock.requests).toHaveLength(0);
    const headerIgnored = await post(
      '/chat/completions',
      { ...config, 'x-service-cloudA-deployment-id': 'dep-4o' },
      chat('gpt-4o-mini'),
    );
    expect(headerIgnored.status).toBe(200);
    expect(gw.mock.requests[0]?.path).toBe('/openai/deployments/dep-mini/chat/completions');
    for (const [path, headers] of [
      ['/chat/completions', { 'x-service-cloudA-deployment-id': 'dep-mini' }],
      ['/deployments/dep-mini/chat/completions', {}],
    ] as const) {
      gw.mock.clear();
      const res = await post(path, { 'x-service-provider': '@azure-mini', ...headers }, chat('gpt-4o-mini'));
      expect([path, res.status]).toEqual([path, 200]);
      expect(gw.mock.requests[0]?.path).toBe('/openai/deployments/dep-mini/chat/completions');
    }
  });

  it("Bedrock: signed with the integration's AWS keys, in its region", async () => {
    gw.mock.clear();
    const res = await post(
      '/model/anthropic.claude-3-haiku-20240307-v1:0/converse',
      { 'x-service-provider': '@bedrock', 'x-service-cloudC-region': 'eu-west-3' },
      { messages: [{ role: 'user', content: [{ text: 'managed cloud' }] }] },
    );
    expect(res.status).toBe(200);
    expect(gw.mock.requests[0]?.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=.*\/us-east-1\/bedrock\/aws4_request/,
    );
  });
});
