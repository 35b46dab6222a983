// Limits see the model an Azure deployment serves: Azure answers with the deployment's model
// whatever the body names, so a deployment the client picks (header or the AzureOpenAI SDK's path)
// is counted as its model by policies with a `model` condition.
import { randomUUID } from 'node:crypto';
import type { PolicyCondition } from '@aigw/proto';
import { test } from '@aigw/testkit';
import { afterEach, describe, expect } from 'vitest';
import {
  azureIntegration,
  type ControlPlaneGateway,
  managedTenant,
  provider,
  startTenantGateway,
} from '../../test/control-plane-entities.js';
import { makeLimits, ratePolicy } from '../limits/limits.test-support.js';

let gw: ControlPlaneGateway | undefined;

afterEach(async () => {
  await gw?.close();
  gw = undefined;
});

/** A tenant with a managed Azure provider `@azure` (deployments dep-4o, dep-4o-mini) and a
 *  requests policy of 1 a minute on the given conditions, grouped by key. */
async function azureTenant(redis: Parameters<typeof makeLimits>[0], conditions: PolicyCondition[]) {
  const tenant = await startTenantGateway(makeLimits(redis).limits);
  const { org, ws } = tenant;
  const azure = randomUUID();
  gw = tenant.gw;
  tenant.gw.use([
    ...managedTenant(tenant.gw, tenant),
    azureIntegration(azure, org, tenant.gw.mock.url),
    provider(randomUUID(), org, ws, 'azure', { integrationId: azure, aiProvider: 'azure-openai' }),
    { ...ratePolicy({ value: 1, conditions, groupBy: [{ key: 'api_key' }] }), organisationId: org },
  ]);
  return tenant;
}

describe('a policy on a model counts the Azure deployment serving it', () => {
  test('1 request a minute on gpt-4o: the second call to its deployment is refused, whatever the body names', async ({
    redis,
  }) => {
    const tenant = await azureTenant(redis.client, [{ key: 'model', value: 'gpt-4o' }]);
    const current = tenant.gw;
    const call = (path: string, headers: Record<string, string>, model: string) =>
      fetch(`${current.base}/v1${path}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-service-api-key': tenant.key,
          'x-service-provider': '@azure',
          ...headers,
        },
        body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
      });
    const first = await call(
      '/chat/completions',
      { 'x-service-cloudA-deployment-id': 'dep-4o' },
      'gpt-4o-mini',
    );
    expect(first.status).toBe(200);
    await first.arrayBuffer();
    expect(current.mock.requests.at(-1)?.path).toBe('/openai/deployments/dep-4o/chat/completions');
    const second = await call('/deployments/dep-4o/chat/completions', {}, 'gpt-4o-mini');
    expect(second.status).toBe(429);
    await second.arrayBuffer();
    // gpt-4o-mini's deployment is not under the policy.
    const mini = await call('/chat/completions', {}, 'gpt-4o-mini');
    expect(mini.status).toBe(200);
    await mini.arrayBuffer();
  });

  test('a config target naming the deployment is counted as its model too', async ({ redis }) => {
    const tenant = await azureTenant(redis.client, [{ key: 'model', value: 'gpt-4o' }]);
    const current = tenant.gw;
    const call = () =>
      fetch(`${current.base}/v1/chat/completions`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-service-api-key': tenant.key,
          'x-service-config': JSON.stringify({ provider: '@azure', azure_deployment_id: 'dep-4o' }),
        },
        body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
      });
    const first = await call();
    expect(first.status).toBe(200);
    await first.arrayBuffer();
    expect(current.mock.requests.at(-1)?.path).toBe('/openai/deployments/dep-4o/chat/completions');
    const second = await call();
    expect(second.status).toBe(429);
    expect(((await second.json()) as { error: { code: string } }).error.code).toBe('policy_rate_limited');
    expect(current.mock.requests).toHaveLength(1);
  });
});
