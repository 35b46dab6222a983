import { AuditOutcome, type Entity, EntityKind } from '@aigw/proto';
import { credentialsAad, openSecret, parseMasterKey } from '@aigw/secret-box';
import { type FakeSecretManagers, startFakeSecretManagers } from '@aigw/testkit/secret-managers';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { type ControlPlaneFixture, MASTER_KEY, test } from '../../test/harness.js';
import { auditEvents, changeEvents } from '../../test/outbox-rows.js';
import {
  createIntegration,
  entityChanges,
  expectError,
  expectSecretsNowhere,
  OPENAI_KEY,
  serviceKey,
  workspace,
} from '../integrations/integrations.test-support.js';
import { testRefreshWorker } from '../secret-references/secret-refresh.test-support.js';

let fake: FakeSecretManagers;
beforeAll(async () => {
  fake = await startFakeSecretManagers();
});
afterAll(() => fake.close());

const VK_SCOPES = ['virtual_keys.create', 'virtual_keys.read', 'virtual_keys.update', 'virtual_keys.list'];

async function vaultReference(
  cp: ControlPlaneFixture,
  slug: string,
  path: string,
  extra: Record<string, unknown> = {},
): Promise<{ id: string }> {
  const res = await cp.call('post', '/secret-references', {
    body: {
      name: slug,
      slug,
      manager: 'vault_kv2',
      settings: { address: fake.url, mount: 'secret', path },
      auth: { token: fake.vaultToken },
      ...extra,
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

/** The credentials gateways receive for a virtual key: its latest PROVIDER change, opened. */
async function publishedCredentials(pool: pg.Pool, id: string): Promise<unknown> {
  const entity: Entity | undefined = (await entityChanges(pool, id, EntityKind.PROVIDER)).at(-1);
  if (entity?.body?.$case !== 'provider') throw new Error('no provider change');
  const envelope = Buffer.from(entity.body.value.encryptedCredentials);
  if (envelope.length === 0) return null;
  return JSON.parse(
    openSecret(parseMasterKey(MASTER_KEY), envelope, credentialsAad('provider', id)).toString('utf8'),
  );
}

async function credentialError(pool: pg.Pool, id: string): Promise<string | undefined> {
  const entity = (await entityChanges(pool, id, EntityKind.PROVIDER)).at(-1);
  return entity?.body?.$case === 'provider' ? entity.body.value.credentialError : undefined;
}

/** Rows and change events that a refused request must not have added. */
async function writes(pool: pg.Pool): Promise<{ providers: number; changes: number }> {
  const providers = await pool.query<{ n: string }>('select count(*) as n from control.providers');
  return { providers: Number(providers.rows[0]?.n), changes: (await changeEvents(pool)).length };
}

const chat = { field: 'api_key', key: 'api_key' } as const;

describe('virtual keys with secret_mappings', () => {
  test('mapped at creation by a workspace manager: resolved, sealed for the key, announced; refusals write nothing', async ({
    cp,
    pg,
  }) => {
    fake.setVault('secret/vk/openai', { api_key: 'sk-vk-vault-first-0001' });
    const ws = await workspace(cp, 'Mapped keys');
    const other = await workspace(cp, 'Not allowed');
    await vaultReference(cp, 'vk-vault', 'vk/openai', { allowed_workspaces: [ws.slug] });
    const key = await serviceKey(cp, ws.id, VK_SCOPES);

    const created = await cp.call('post', '/virtual-keys', {
      key,
      body: {
        name: 'From Vault',
        provider: 'openai',
        secret_mappings: [{ ...chat, secret_reference_id: 'vk-vault' }],
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const ref = (await cp.call('get', '/secret-references/vk-vault')).body;
    expect(created.body).toMatchObject({
      object: 'virtual-key',
      key: '****0001',
      credentials: { api_key: '****0001' },
      secret_mappings: [{ field: 'api_key', secret_reference_id: ref.id, key: 'api_key' }],
      secrets: { error: null, withheld: false },
    });
    expect(created.body.secrets.resolved_at).not.toBeNull();
    const id = created.body.id;
    expect(await publishedCredentials(pg.pool, id)).toEqual({ api_key: 'sk-vk-vault-first-0001' });
    expect(await credentialError(pg.pool, id)).toBe('');
    expect((await entityChanges(pg.pool, id, EntityKind.VIRTUAL_KEY)).length).toBe(1);
    // Read back the same way, and the mappings show on the list too.
    expect((await cp.call('get', `/virtual-keys/${id}`, { key })).body.secret_mappings).toEqual(
      created.body.secret_mappings,
    );

    const before = await writes(pg.pool);
    // A reference that does not allow the key's workspace: 400 naming the entry.
    const outside = await cp.call('post', '/virtual-keys', {
      body: {
        workspace_id: other.id,
        name: 'Outside',
        provider: 'openai',
        secret_mappings: [{ ...chat, secret_reference_id: 'vk-vault' }],
      },
    });
    expectError(outside, 400, 'AB01', 'body.secret_mappings[0].secret_reference_id');
    expect(outside.body.error.message).toContain(`not allowed for workspace ${other.id}`);
    // A reference whose secret does not resolve: 400 saying why.
    const broken = await cp.call('post', '/virtual-keys', {
      key,
      body: {
        name: 'Broken',
        provider: 'openai',
        key: OPENAI_KEY,
        secret_mappings: [{ field: 'api_key', secret_reference_id: 'vk-vault', key: 'missing' }],
      },
    });
    expectError(broken, 400, 'AB01', 'body.secret_mappings');
    expect(broken.body.error.message).toContain('no string value "missing"');
    // An unknown reference: 404 AB02 naming the entry.
    expectError(
      await cp.call('post', '/virtual-keys', {
        key,
        body: {
          name: 'Unknown',
          provider: 'openai',
          secret_mappings: [{ ...chat, secret_reference_id: 'no-such-ref' }],
        },
      }),
      404,
      'AB02',
      'body.secret_mappings[0].secret_reference_id',
    );
    // The same refusals on an update leave the key as it was.
    expectError(
      await cp.call('put', `/virtual-keys/${id}`, {
        key,
        body: {
          name: 'Renamed',
          secret_mappings: [{ field: 'api_key', secret_reference_id: 'vk-vault', key: 'x' }],
        },
      }),
      400,
      'AB01',
      'body.secret_mappings',
    );
    expectError(
      await cp.call('put', `/virtual-keys/${id}`, { key, body: { credentials: null } }),
      400,
      'AB01',
      'body.credentials',
    );
    expect(await writes(pg.pool)).toEqual(before);
    expect((await cp.call('get', `/virtual-keys/${id}`, { key })).body.name).toBe('From Vault');

    // A key that uses its integration's credentials has nothing to map: 409, as for credentials.
    const integration = await createIntegration(cp, { workspaces: [{ id: ws.id }] });
    const viaIntegration = (
      await cp.call('get', `/virtual-keys?workspace_id=${ws.id}`, { key })
    ).body.data.find((k: { integration_id: string | null }) => k.integration_id === integration.id);
    expectError(
      await cp.call('put', `/virtual-keys/${viaIntegration.id}`, {
        key,
        body: { secret_mappings: [{ ...chat, secret_reference_id: 'vk-vault' }] },
      }),
      409,
      'AB07',
      'body.secret_mappings',
    );
    // A reference a virtual key maps cannot be deleted.
    const refused = await cp.call('delete', '/secret-references/vk-vault');
    expectError(refused, 409, 'AB07');
    expect(refused.body.error.message).toContain(id);
  });

  test('mapped by an update, rotated on demand, unmapped: the values follow, audited without secrets', async ({
    cp,
    pg,
  }) => {
    fake.setVault('secret/upd/openai', { api_key: 'sk-vk-update-first-00AA' });
    const ws = await workspace(cp, 'Updated keys');
    await vaultReference(cp, 'upd-vault', 'upd/openai', { allow_all_workspaces: true });
    const created = await cp.call('post', '/virtual-keys', {
      body: { workspace_id: ws.id, name: 'Plain', provider: 'openai', key: OPENAI_KEY },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id;
    expect(created.body.secret_mappings).toEqual([]);
    expect(created.body.secrets).toBeNull();

    const mapped = await cp.call('put', `/virtual-keys/${id}`, {
      body: { secret_mappings: [{ ...chat, secret_reference_id: 'upd-vault' }] },
    });
    expect(mapped.status, JSON.stringify(mapped.body)).toBe(200);
    expect(mapped.body.key).toBe('****00AA');
    expect(await publishedCredentials(pg.pool, id)).toEqual({ api_key: 'sk-vk-update-first-00AA' });

    // Rotated at the manager, resolved on demand: the key is listed and its new value published.
    fake.setVault('secret/upd/openai', { api_key: 'sk-vk-update-second-00BB' });
    const resolved = await cp.call('post', '/secret-references/upd-vault/resolve');
    expect(resolved.status, JSON.stringify(resolved.body)).toBe(200);
    expect(resolved.body.integrations).toEqual([]);
    expect(resolved.body.virtual_keys).toEqual([
      { id, slug: created.body.slug, resolved: true, changed: true, error: null },
    ]);
    expect(await publishedCredentials(pg.pool, id)).toEqual({ api_key: 'sk-vk-update-second-00BB' });
    // The VIRTUAL_KEY entity moves with the PROVIDER one (same version), as on every provider write.
    const [p, v] = [EntityKind.PROVIDER, EntityKind.VIRTUAL_KEY];
    expect((await entityChanges(pg.pool, id, p)).at(-1)?.version).toBe(
      (await entityChanges(pg.pool, id, v)).at(-1)?.version,
    );
    // Unchanged value: nothing new published.
    const events = (await entityChanges(pg.pool, id)).length;
    const again = await cp.call('post', '/secret-references/upd-vault/resolve');
    expect(again.body.virtual_keys[0]).toMatchObject({ resolved: true, changed: false });
    expect((await entityChanges(pg.pool, id)).length).toBe(events);

    // A key sent for a mapped field is overridden by the mapping; `[]` keeps the last values stored.
    const sent = await cp.call('put', `/virtual-keys/${id}`, { body: { key: OPENAI_KEY } });
    expect(sent.body.key).toBe('****00BB');
    const unmapped = await cp.call('put', `/virtual-keys/${id}`, { body: { secret_mappings: [] } });
    expect(unmapped.body).toMatchObject({ key: '****00BB', secret_mappings: [], secrets: null });
    expect(await publishedCredentials(pg.pool, id)).toEqual({ api_key: 'sk-vk-update-second-00BB' });
    expect((await cp.call('post', '/secret-references/upd-vault/resolve')).body.virtual_keys).toEqual([]);

    const audits = await auditEvents(pg.pool);
    const resolves = audits.filter((a) => a.action === 'virtual_keys.secrets.resolve' && a.resourceId === id);
    expect(resolves).toHaveLength(1);
    expect(resolves[0]).toMatchObject({
      outcome: AuditOutcome.SUCCESS,
      resourceType: 'virtual_key',
      workspaceId: ws.id,
    });
    const updates = audits.filter((a) => a.action === 'virtual_keys.update' && a.resourceId === id);
    expect(updates.length).toBeGreaterThanOrEqual(3);
    expect(updates.some((a) => a.requestDetailsJson.includes('upd-vault'))).toBe(true);
    await expectSecretsNowhere(pg.pool, [
      'sk-vk-update-first-00AA',
      'sk-vk-update-second-00BB',
      OPENAI_KEY,
      fake.vaultToken,
    ]);
  });

  test('the refresher rotates virtual keys too; failures are audited, then withheld past the window', async ({
    cp,
    pg,
  }) => {
    fake.setVault('secret/sweep/openai', { api_key: 'sk-vk-sweep-value-000A' });
    const ws = await workspace(cp, 'Swept keys');
    await vaultReference(cp, 'sweep-vault', 'sweep/openai', {
      allow_all_workspaces: true,
      refresh_interval_seconds: 60,
    });
    const created = await cp.call('post', '/virtual-keys', {
      body: {
        workspace_id: ws.id,
        name: 'Swept',
        provider: 'openai',
        secret_mappings: [{ ...chat, secret_reference_id: 'sweep-vault' }],
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id;
    const worker = await testRefreshWorker(pg.url, 'vk-refresh-test');
    const start = Date.now();
    const at = (seconds: number) => new Date(start + seconds * 1000);
    const mine = (outcomes: { id: string }[]) => outcomes.find((o) => o.id === id);

    expect(mine(await worker.sweep(at(10)))).toBeUndefined();
    fake.setVault('secret/sweep/openai', { api_key: 'sk-vk-sweep-value-000B' });
    expect(mine(await worker.sweep(at(61)))).toMatchObject({
      resource_type: 'virtual_key',
      resolved: true,
      changed: true,
      error: null,
    });
    expect(await publishedCredentials(pg.pool, id)).toEqual({ api_key: 'sk-vk-sweep-value-000B' });

    fake.failWith(503);
    try {
      const failed = mine(await worker.sweep(at(122)));
      expect(failed).toMatchObject({ resolved: false, changed: false });
      expect((failed as { error?: string }).error).toContain('answered 503');
      const shown = await cp.call('get', `/virtual-keys/${id}`);
      expect(shown.body.secrets.withheld).toBe(false);
      expect(shown.body.secrets.error).toContain('answered 503');
      // Still served within the window.
      expect(await publishedCredentials(pg.pool, id)).toEqual({ api_key: 'sk-vk-sweep-value-000B' });
      // Past twice the interval since the last success: withheld, and gateways are told why.
      expect(mine(await worker.sweep(at(61 + 121)))).toMatchObject({ resolved: false, changed: true });
      expect(await publishedCredentials(pg.pool, id)).toBeNull();
      expect(await credentialError(pg.pool, id)).toContain('answered 503');
      expect((await cp.call('get', `/virtual-keys/${id}`)).body.secrets.withheld).toBe(true);
    } finally {
      fake.failWith(undefined);
    }
    expect(mine(await worker.sweep(at(61 + 182)))).toMatchObject({ resolved: true, changed: true });
    expect(await publishedCredentials(pg.pool, id)).toEqual({ api_key: 'sk-vk-sweep-value-000B' });
    expect(await credentialError(pg.pool, id)).toBe('');

    const outcomes = (await auditEvents(pg.pool))
      .filter((a) => a.action === 'virtual_keys.secrets.resolve' && a.resourceId === id)
      .map((a) => [a.outcome, JSON.parse(a.requestDetailsJson).withheld ?? null]);
    // Rotation, first failure, withheld, recovery: one record each.
    expect(outcomes).toEqual([
      [AuditOutcome.SUCCESS, null],
      [AuditOutcome.FAILURE, false],
      [AuditOutcome.FAILURE, true],
      [AuditOutcome.SUCCESS, null],
    ]);
    await expectSecretsNowhere(pg.pool, [
      'sk-vk-sweep-value-000A',
      'sk-vk-sweep-value-000B',
      fake.vaultToken,
    ]);
  });
});
