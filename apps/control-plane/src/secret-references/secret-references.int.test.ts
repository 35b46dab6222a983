import { AuditOutcome, type Entity, EntityKind } from '@aigw/proto';
import { credentialsAad, openSecret, parseMasterKey } from '@aigw/secret-box';
import { type FakeSecretManagers, startFakeSecretManagers } from '@aigw/testkit/secret-managers';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { MASTER_KEY, test } from '../../test/harness.js';
import { auditEvents } from '../../test/outbox-rows.js';
import { otherOrganisation } from '../access/access.test-support.js';
import {
  adminKeyWithout,
  entityChanges,
  expectError,
  serviceKey,
  workspace,
} from '../integrations/integrations.test-support.js';
import { testRefreshWorker } from './secret-refresh.test-support.js';

let fake: FakeSecretManagers;
beforeAll(async () => {
  fake = await startFakeSecretManagers();
});
afterAll(() => fake.close());

const SCOPES = [
  'secret_references.create',
  'secret_references.read',
  'secret_references.list',
  'secret_references.update',
  'secret_references.delete',
];

const vaultBody = (slug: string, path: string, extra: Record<string, unknown> = {}) => ({
  name: slug,
  slug,
  manager: 'vault_kv2',
  settings: { address: fake.url, mount: 'secret', path },
  auth: { token: fake.vaultToken },
  allow_all_workspaces: true,
  ...extra,
});

/** The credentials gateways receive for an integration: its latest change event, opened. */
function openedCredentials(entity: Entity | undefined): unknown {
  if (entity?.body?.$case !== 'integration') throw new Error('not an integration');
  const envelope = Buffer.from(entity.body.value.encryptedCredentials);
  if (envelope.length === 0) return null;
  return JSON.parse(
    openSecret(parseMasterKey(MASTER_KEY), envelope, credentialsAad('integration', entity.id)).toString(
      'utf8',
    ),
  );
}

describe('secret references', () => {
  test('create, read, list, update, delete: manager credentials sealed and only shown masked', async ({
    cp,
    pg,
  }) => {
    const created = await cp.call('post', '/secret-references', {
      body: vaultBody('team-vault', 'team/openai'),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({
      object: 'secret_reference',
      slug: 'team-vault',
      manager: 'vault_kv2',
      settings: { address: fake.url, mount: 'secret', path: 'team/openai' },
      auth: { token: `****${fake.vaultToken.slice(-4)}` },
      allow_all_workspaces: true,
      refresh_interval_seconds: 300,
    });
    const aws = await cp.call('post', '/secret-references', {
      body: {
        name: 'AWS',
        manager: 'aws_secrets_manager',
        settings: { region: fake.aws.region, secret_id: 'prod/openai', endpoint: fake.url },
        auth: { aws_access_key_id: fake.aws.accessKeyId, aws_secret_access_key: fake.aws.secretAccessKey },
        refresh_interval_seconds: 60,
      },
    });
    expect(aws.status, JSON.stringify(aws.body)).toBe(201);
    expect(
      (await cp.call('get', '/secret-references?manager=aws_secrets_manager')).body.data.map(
        (r: { slug: string }) => r.slug,
      ),
    ).toEqual([aws.body.slug]);
    expect((await cp.call('get', '/secret-references/team-vault')).body.id).toBe(created.body.id);
    // Slugs derived from the name are made unique in the organisation.
    const twice = [];
    for (let i = 0; i < 2; i++) {
      const res = await cp.call('post', '/secret-references', {
        body: { ...vaultBody('x', 'team/openai'), slug: undefined, name: 'Same name' },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      twice.push(res.body.slug);
    }
    expect(twice).toEqual(['same-name', 'same-name-2']);

    // settings are checked against the reference's own manager.
    expectError(
      await cp.call('put', '/secret-references/team-vault', {
        body: { settings: { region: 'eu-west-1', secret_id: 'x' } },
      }),
      400,
      'AB01',
    );
    expectError(
      await cp.call('post', '/secret-references', {
        body: { ...vaultBody('bad', 'x'), manager: 'keychain' },
      }),
      400,
      'AB01',
    );
    expectError(
      await cp.call('post', '/secret-references', {
        body: { name: 'env', manager: 'env', settings: { variable: 'DATABASE_URL' } },
      }),
      400,
      'AB01',
    );
    const moved = await cp.call('put', '/secret-references/team-vault', {
      body: { settings: { address: fake.url, path: 'team/other' } },
    });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect(moved.body.settings).toEqual({ address: fake.url, mount: 'secret', path: 'team/other' });

    expect((await cp.call('delete', `/secret-references/${aws.body.id}`)).status).toBe(200);
    expectError(await cp.call('get', `/secret-references/${aws.body.id}`), 404, 'AB08');

    // Nothing secret in any response above, and nothing in the stored audit rows.
    const rows = JSON.stringify(await auditEvents(pg.pool));
    for (const secret of [fake.vaultToken, fake.aws.secretAccessKey]) expect(rows).not.toContain(secret);
    expect(JSON.stringify(created.body) + JSON.stringify(aws.body)).not.toContain(fake.vaultToken);
  });

  test("another organisation's admin sees none of them and cannot map them: 404", async ({ cp, pg }) => {
    const ref = await cp.call('post', '/secret-references', { body: vaultBody('org-a-vault', 'a/openai') });
    expect(ref.status).toBe(201);
    const other = await otherOrganisation(pg.pool);
    const key = other.key.key;
    for (const id of [ref.body.id, 'org-a-vault']) {
      expectError(await cp.call('get', `/secret-references/${id}`, { key }), 404, 'AB08');
      expectError(
        await cp.call('put', `/secret-references/${id}`, { key, body: { name: 'x' } }),
        404,
        'AB08',
      );
      expectError(await cp.call('delete', `/secret-references/${id}`, { key }), 404, 'AB08');
      expectError(await cp.call('post', `/secret-references/${id}/resolve`, { key }), 404, 'AB08');
      expectError(
        await cp.call('post', '/integrations', {
          key,
          body: {
            name: 'steal',
            ai_provider: 'openai',
            secret_mappings: [{ field: 'api_key', secret_reference_id: id }],
          },
        }),
        404,
        'AB02',
      );
    }
    expect((await cp.call('get', '/secret-references', { key })).body.total).toBe(0);
    expect((await cp.call('get', '/secret-references/org-a-vault')).body.name).toBe('org-a-vault');
  });

  test('organisation owners and admins only: workspace keys, narrow admin keys are 403', async ({ cp }) => {
    const ws = await workspace(cp, 'Secrets ws');
    const key = await serviceKey(cp, ws.id, ['configs.read']);
    for (const [method, path] of [
      ['get', '/secret-references'],
      ['post', '/secret-references'],
    ] as const) {
      expectError(
        await cp.call(method, path, { key, ...(method === 'post' ? { body: vaultBody('x', 'x') } : {}) }),
        403,
        'AB03',
      );
    }
    for (const scope of SCOPES) {
      const narrow = await adminKeyWithout(cp, [scope]);
      const calls: Record<string, [string, string]> = {
        'secret_references.create': ['post', '/secret-references'],
        'secret_references.list': ['get', '/secret-references'],
        'secret_references.read': ['get', '/secret-references/anything'],
        'secret_references.update': ['put', '/secret-references/anything'],
        'secret_references.delete': ['delete', '/secret-references/anything'],
      };
      const [method, path] = calls[scope] ?? ['get', '/'];
      const res = await cp.call(method, path, {
        key: narrow,
        ...(method === 'post' || method === 'put' ? { body: vaultBody('y', 'y') } : {}),
      });
      expectError(res, 403, 'AB03');
      expect(res.body.error.message).toContain(scope);
    }
  });

  test('an integration mapped to a reference: resolved and sealed, rotated on demand, workspace restriction', async ({
    cp,
    pg,
  }) => {
    fake.setVault('secret/int/openai', { api_key: 'sk-vault-first-value-0001' });
    const ws = await workspace(cp, 'Mapped ws');
    const other = await workspace(cp, 'Other ws');
    const ref = await cp.call('post', '/secret-references', {
      body: vaultBody('int-vault', 'int/openai', {
        allow_all_workspaces: false,
        allowed_workspaces: [ws.slug],
      }),
    });
    expect(ref.status, JSON.stringify(ref.body)).toBe(201);

    const mapping = [{ field: 'api_key', secret_reference_id: 'int-vault', key: 'api_key' }];
    // Reaching a workspace the reference does not allow is refused.
    expectError(
      await cp.call('post', '/integrations', {
        body: {
          name: 'Too wide',
          ai_provider: 'openai',
          secret_mappings: mapping,
          allow_all_workspaces: true,
        },
      }),
      400,
      'AB01',
      'body.secret_mappings[0].secret_reference_id',
    );
    const created = await cp.call('post', '/integrations', {
      body: { name: 'Mapped', ai_provider: 'openai', secret_mappings: mapping, workspaces: [{ id: ws.id }] },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.credentials).toEqual({ api_key: '****0001' });
    expect(created.body.secret_mappings).toEqual([
      { field: 'api_key', secret_reference_id: ref.body.id, key: 'api_key' },
    ]);
    expect(created.body.secrets).toMatchObject({ error: null, withheld: false });
    const id = created.body.id;
    expect(openedCredentials((await entityChanges(pg.pool, id, EntityKind.INTEGRATION)).at(-1))).toEqual({
      api_key: 'sk-vault-first-value-0001',
    });
    expectError(
      await cp.call('put', `/integrations/${id}/workspaces`, { body: { workspaces: [{ id: other.id }] } }),
      400,
      'AB01',
    );

    // Rotated at the manager, resolved on demand: a new change event carries the new value.
    fake.setVault('secret/int/openai', { api_key: 'sk-vault-second-value-0002' });
    const resolved = await cp.call('post', '/secret-references/int-vault/resolve');
    expect(resolved.status, JSON.stringify(resolved.body)).toBe(200);
    expect(resolved.body.integrations).toEqual([
      { id, slug: created.body.slug, resolved: true, changed: true, error: null },
    ]);
    expect(openedCredentials((await entityChanges(pg.pool, id, EntityKind.INTEGRATION)).at(-1))).toEqual({
      api_key: 'sk-vault-second-value-0002',
    });
    // Unchanged value: no new event.
    const events = (await entityChanges(pg.pool, id, EntityKind.INTEGRATION)).length;
    expect((await cp.call('post', '/secret-references/int-vault/resolve')).body.integrations[0].changed).toBe(
      false,
    );
    expect((await entityChanges(pg.pool, id, EntityKind.INTEGRATION)).length).toBe(events);

    // A reference in use cannot be deleted.
    expectError(await cp.call('delete', '/secret-references/int-vault'), 409, 'AB07');
    // A reference that does not resolve is a clear 400 on the integration.
    const broken = await cp.call('post', '/integrations', {
      body: {
        name: 'Broken',
        ai_provider: 'openai',
        secret_mappings: [{ field: 'api_key', secret_reference_id: 'int-vault', key: 'missing' }],
        workspaces: [{ id: ws.id }],
      },
    });
    expectError(broken, 400, 'AB01', 'body.secret_mappings');
    expect(broken.body.error.message).toContain('no string value "missing"');

    const rows = JSON.stringify(await auditEvents(pg.pool));
    for (const secret of ['sk-vault-first-value-0001', 'sk-vault-second-value-0002', fake.vaultToken]) {
      expect(rows).not.toContain(secret);
    }
  });

  test('the refresher: rotated values reach gateways; failures are audited, then withheld past the window', async ({
    cp,
    pg,
  }) => {
    fake.setVault('secret/refresh/key', { api_key: 'sk-refresh-value-000A' });
    const ws = await workspace(cp, 'Refresh ws');
    await cp.call('post', '/secret-references', {
      body: vaultBody('refresh-vault', 'refresh/key', { refresh_interval_seconds: 60 }),
    });
    const created = await cp.call('post', '/integrations', {
      body: {
        name: 'Refreshed',
        ai_provider: 'openai',
        secret_mappings: [{ field: 'api_key', secret_reference_id: 'refresh-vault', key: 'api_key' }],
        workspaces: [{ id: ws.id }],
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id;
    const worker = await testRefreshWorker(pg.url, 'refresh-test');
    const start = Date.now();
    const at = (seconds: number) => new Date(start + seconds * 1000);

    // Not due yet.
    expect((await worker.sweep(at(10))).map((o) => o.id)).not.toContain(id);
    fake.setVault('secret/refresh/key', { api_key: 'sk-refresh-value-000B' });
    const rotated = (await worker.sweep(at(61))).find((o) => o.id === id);
    expect(rotated).toMatchObject({ resolved: true, changed: true, error: null });
    expect(openedCredentials((await entityChanges(pg.pool, id, EntityKind.INTEGRATION)).at(-1))).toEqual({
      api_key: 'sk-refresh-value-000B',
    });

    // The manager fails: the error is recorded and audited once, the old secret is still served...
    fake.failWith(503);
    try {
      const failed = (await worker.sweep(at(122))).find((o) => o.id === id);
      expect(failed).toMatchObject({ resolved: false, changed: false });
      expect(failed?.error).toContain('answered 503');
      const shown = await cp.call('get', `/integrations/${id}`);
      expect(shown.body.secrets).toMatchObject({ withheld: false });
      expect(shown.body.secrets.error).toContain('answered 503');
      const audits = (await auditEvents(pg.pool)).filter(
        (a) => a.action === 'integrations.secrets.resolve' && a.resourceId === id,
      );
      expect(audits.at(-1)).toMatchObject({ outcome: AuditOutcome.FAILURE });
      // ...until twice the refresh interval has passed since the last success: then it is withheld.
      const withheld = (await worker.sweep(at(61 + 121))).find((o) => o.id === id);
      expect(withheld).toMatchObject({ resolved: false, changed: true });
      const entity = (await entityChanges(pg.pool, id, EntityKind.INTEGRATION)).at(-1);
      expect(openedCredentials(entity)).toBeNull();
      expect(entity?.body?.$case === 'integration' && entity.body.value.credentialError).toContain(
        'answered 503',
      );
    } finally {
      fake.failWith(undefined);
    }
    // Recovered: served again.
    const recovered = (await worker.sweep(at(61 + 182))).find((o) => o.id === id);
    expect(recovered).toMatchObject({ resolved: true, changed: true, error: null });
    const entity = (await entityChanges(pg.pool, id, EntityKind.INTEGRATION)).at(-1);
    expect(openedCredentials(entity)).toEqual({ api_key: 'sk-refresh-value-000B' });
    expect(entity?.body?.$case === 'integration' && entity.body.value.credentialError).toBe('');
  });
});
