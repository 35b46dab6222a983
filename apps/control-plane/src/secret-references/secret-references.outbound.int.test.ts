// Secret references and the control plane's outbound rule, through the admin API: a manager address
// that is a cloud metadata or this-host address, however spelt, is refused with the same 400 as any
// reference that does not resolve, and nothing is read from it.
import { type FakeSecretManagers, startFakeSecretManagers } from '@aigw/testkit/secret-managers';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { test } from '../../test/harness.js';
import { expectError, workspace } from '../integrations/integrations.test-support.js';

let fake: FakeSecretManagers;
beforeAll(async () => {
  fake = await startFakeSecretManagers();
  fake.setVault('secret/outbound/openai', { api_key: 'sk-must-not-be-read' });
  fake.setAws('outbound/openai', JSON.stringify({ api_key: 'sk-must-not-be-read' }));
});
afterAll(() => fake.close());

describe('secret references: outbound hosts', () => {
  test('a metadata or this-host manager address is refused when an integration maps it', async ({ cp }) => {
    const ws = await workspace(cp, 'Outbound ws');
    const port = new URL(fake.url).port;
    const addresses = [
      'http://[::ffff:169.254.169.254]',
      'http://[64:ff9b::a9fe:a9fe]',
      'http://[fe80::1]',
      `http://0.0.0.0:${port}`,
      `http://[::]:${port}`,
    ];
    const before = fake.requests.length;
    for (const [n, address] of addresses.entries()) {
      for (const manager of ['vault_kv2', 'aws_secrets_manager'] as const) {
        const slug = `outbound-${manager === 'vault_kv2' ? 'vault' : 'aws'}-${n}`;
        const ref = await cp.call('post', '/secret-references', {
          body:
            manager === 'vault_kv2'
              ? {
                  name: slug,
                  slug,
                  manager,
                  settings: { address, mount: 'secret', path: 'outbound/openai' },
                  auth: { token: fake.vaultToken },
                  allow_all_workspaces: true,
                }
              : {
                  name: slug,
                  slug,
                  manager,
                  settings: { region: fake.aws.region, secret_id: 'outbound/openai', endpoint: address },
                  auth: {
                    aws_access_key_id: fake.aws.accessKeyId,
                    aws_secret_access_key: fake.aws.secretAccessKey,
                  },
                  allow_all_workspaces: true,
                },
        });
        expect(ref.status, JSON.stringify(ref.body)).toBe(201);
        const created = await cp.call('post', '/integrations', {
          body: {
            name: `Outbound ${slug}`,
            ai_provider: 'openai',
            secret_mappings: [{ field: 'api_key', secret_reference_id: slug, key: 'api_key' }],
            workspaces: [{ id: ws.id }],
          },
        });
        expectError(created, 400, 'AB01', 'body.secret_mappings');
        expect(created.body.error.message, address).toContain('never a secret manager');
      }
    }
    expect(fake.requests.length).toBe(before);
  });
});
