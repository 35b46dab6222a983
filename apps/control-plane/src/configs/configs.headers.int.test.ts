// Webhook headers in the inline guardrails of saved configs are secrets: a read key sees header names
// with masked values (the config, its list, its versions), Postgres holds only envelopes (configs and
// config_versions), change events and the snapshot carry only the envelope (which opens with
// MASTER_KEY and the version's AAD to the original values), audit records hold no value, and without
// MASTER_KEY headers are refused while configs without headers still work. Rows stored in plaintext
// before migration 0019 are sealed by the next start with MASTER_KEY.
import { randomUUID } from 'node:crypto';
import { type Entity, EntityKind } from '@aigw/proto';
import { configHeadersAad, openSecret, parseMasterKey } from '@aigw/secret-box';
import type pg from 'pg';
import { describe, expect } from 'vitest';
import { ADMIN_KEY, apiClient, MASTER_KEY, startControlPlane, test } from '../../test/harness.js';
import { auditEvents } from '../../test/outbox-rows.js';
import { readSnapshot, snapshotEntities } from '../../test/snapshot-client.js';
import { expectError, lastChange, serviceKey, workspace } from './configs.test-support.js';

const SECRET = 'whsec-9f8e7d6c5b4a3210-webhook-token';
const NESTED_SECRET = 'nested-key-0123456789abcdefXYZ';

function hookedConfig(secret: string) {
  return {
    strategy: { mode: 'fallback' },
    input_guardrails: [
      {
        id: 'root-hook',
        checks: [
          { id: 'valid_json' },
          {
            id: 'webhook',
            parameters: {
              url: 'https://hooks.example.com/guard',
              headers: { Authorization: `Bearer ${secret}`, 'x-tenant': 'acme' },
            },
          },
        ],
      },
    ],
    targets: [
      { provider: 'openai' },
      {
        strategy: { mode: 'loadbalance' },
        targets: [
          {
            provider: 'anthropic',
            output_guardrails: [
              {
                checks: [
                  {
                    id: 'webhook',
                    parameters: {
                      url: 'https://hooks.example.com/out',
                      headers: { 'x-api-key': NESTED_SECRET },
                    },
                  },
                ],
              },
            ],
          },
        ],
      },
    ],
  };
}

/** What the envelope holds: values by check path, names as sent (a saved config is stored as sent). */
function original(secret: string) {
  return {
    'input_guardrails.0.checks.1': { Authorization: `Bearer ${secret}`, 'x-tenant': 'acme' },
    'targets.1.targets.0.output_guardrails.0.checks.0': { 'x-api-key': NESTED_SECRET },
  };
}

const masterKey = parseMasterKey(MASTER_KEY);

function opened(id: string, version: number, envelope: Uint8Array | null): unknown {
  const aad = configHeadersAad(id, version);
  return JSON.parse(openSecret(masterKey, Buffer.from(envelope ?? []), aad).toString('utf8'));
}

interface StoredRow {
  body: string;
  encrypted_headers: Buffer | null;
  masked: string | null;
}

async function configRow(pool: pg.Pool, id: string) {
  const { rows } = await pool.query(
    'select body, encrypted_headers, masked_headers::text as masked, version, config_version from control.configs where id = $1',
    [id],
  );
  return rows[0] as StoredRow & { version: string; config_version: number };
}

async function versionRow(pool: pg.Pool, id: string, version: number) {
  const { rows } = await pool.query(
    'select body, encrypted_headers, masked_headers::text as masked from control.config_versions where config_id = $1 and version = $2',
    [id, version],
  );
  return rows[0] as StoredRow;
}

function expectNoPlaintext(row: StoredRow | undefined) {
  expect(row).toBeDefined();
  for (const secret of [SECRET, NESTED_SECRET]) {
    expect(row?.body).not.toContain(secret);
    expect(row?.masked ?? '').not.toContain(secret);
    expect(row?.encrypted_headers?.includes(Buffer.from(secret)) ?? false).toBe(false);
  }
}

function configValue(entity: Entity | undefined) {
  return entity?.body?.$case === 'config' ? entity.body.value : undefined;
}

/** The value at a dot-separated path (`targets.1.checks.0`) of a config as the API shows it. */
function at(config: unknown, path: string): unknown {
  return path
    .split('.')
    .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], config);
}

/** The header maps of the two webhook checks of a hookedConfig. */
function shownHeaders(config: unknown) {
  return Object.keys(original(SECRET)).map((path) => at(config, `${path}.parameters.headers`));
}

const MASKED = [{ Authorization: '****oken', 'x-tenant': '****' }, { 'x-api-key': '****fXYZ' }];

describe('webhook headers of saved configs', () => {
  test('a read key sees names with masked values; Postgres, events, snapshot and audit hold no plaintext', async ({
    cp,
    pg,
  }) => {
    const ws = await workspace(cp, 'Hooked configs');
    const created = await cp.call('post', '/configs', {
      body: { name: 'Hooked', workspace_id: ws.id, config: hookedConfig(SECRET) },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id as string;
    const readKey = await serviceKey(cp, ws.id, ['configs.read', 'configs.list']);
    const reads = await Promise.all([
      cp.call('get', `/configs/${id}`, { key: readKey }),
      cp.call('get', '/configs', { key: readKey }),
      cp.call('get', `/configs/${id}/versions`, { key: readKey }),
      cp.call('get', `/configs/${id}/versions/1`, { key: readKey }),
    ]);
    for (const res of [created, ...reads]) {
      expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
      expect(JSON.stringify(res.body)).not.toContain(SECRET);
      expect(JSON.stringify(res.body)).not.toContain(NESTED_SECRET);
    }
    const [got, , , version1] = reads;
    expect(shownHeaders(got?.body.config)).toEqual(MASKED);
    expect(shownHeaders(version1?.body.config)).toEqual(MASKED);
    expect(got?.body.config.strategy).toEqual({ mode: 'fallback' });

    const row = await configRow(pg.pool, id);
    expectNoPlaintext(row);
    expect(opened(id, 1, row.encrypted_headers)).toEqual(original(SECRET));
    const v1 = await versionRow(pg.pool, id, 1);
    expectNoPlaintext(v1);
    expect(opened(id, 1, v1.encrypted_headers)).toEqual(original(SECRET));

    const change = configValue(await lastChange(pg.pool, id, EntityKind.CONFIG));
    expect(change?.bodyJson).not.toContain(SECRET);
    expect(change?.bodyJson).not.toContain(NESTED_SECRET);
    expect(JSON.parse(change?.bodyJson ?? '{}').input_guardrails[0].checks[1].parameters.headers).toEqual({});
    expect(opened(id, 1, change?.encryptedHeaders ?? null)).toEqual(original(SECRET));
    const snapshot = snapshotEntities(await readSnapshot(cp.app.ports.grpc)).find((e) => e.id === id);
    const fromSnapshot = configValue(snapshot);
    expect(fromSnapshot?.bodyJson).not.toContain(SECRET);
    expect(opened(id, 1, fromSnapshot?.encryptedHeaders ?? null)).toEqual(original(SECRET));

    const audit = (await auditEvents(pg.pool)).find(
      (a) => a.action === 'configs.create' && a.resourceId === id,
    );
    expect(audit).toBeDefined();
    expect(audit?.requestDetailsJson).not.toContain(SECRET);
    expect(audit?.requestDetailsJson).not.toContain(NESTED_SECRET);
  });

  test('updates: new header values make a new version sealed for it; the same config again does not', async ({
    cp,
    pg,
  }) => {
    const ws = await workspace(cp, 'Hook config updates');
    const created = await cp.call('post', '/configs', {
      body: { name: 'Rotated', workspace_id: ws.id, config: hookedConfig(SECRET) },
    });
    const id = created.body.id as string;
    const rotated = 'rotated-secret-abcdefghijkl';
    // Only a header value differs: the stored text is the same, the version is not.
    const replaced = await cp.call('put', `/configs/${id}`, { body: { config: hookedConfig(rotated) } });
    expect(replaced.status, JSON.stringify(replaced.body)).toBe(200);
    expect(replaced.body.version).toBe(2);
    expect(JSON.stringify(replaced.body)).not.toContain(rotated);
    const v2 = await versionRow(pg.pool, id, 2);
    expectNoPlaintext(v2);
    expect(v2.body).not.toContain(rotated);
    expect(opened(id, 2, v2.encrypted_headers)).toEqual(original(rotated));
    // Each version keeps its own envelope, bound to its number.
    expect(opened(id, 1, (await versionRow(pg.pool, id, 1)).encrypted_headers)).toEqual(original(SECRET));
    expect(() => opened(id, 1, v2.encrypted_headers)).toThrow();
    const older = await cp.call('get', `/configs/${id}/versions/1`);
    expect(shownHeaders(older.body.config)).toEqual(MASKED);

    const again = await cp.call('put', `/configs/${id}`, { body: { config: hookedConfig(rotated) } });
    expect(again.body.version).toBe(2);
    const renamed = await cp.call('put', `/configs/${id}`, { body: { name: 'Renamed' } });
    expect(renamed.body.version).toBe(2);
    const change = configValue(await lastChange(pg.pool, id, EntityKind.CONFIG));
    expect(change?.name).toBe('Renamed');
    expect(opened(id, 2, change?.encryptedHeaders ?? null)).toEqual(original(rotated));

    const plain = { strategy: { mode: 'single' }, targets: [{ provider: 'openai' }] };
    const cleared = await cp.call('put', `/configs/${id}`, { body: { config: plain } });
    expect(cleared.body.version).toBe(3);
    const row = await configRow(pg.pool, id);
    expect(row.encrypted_headers).toBeNull();
    expect(row.masked).toBeNull();
    expect(configValue(await lastChange(pg.pool, id, EntityKind.CONFIG))?.encryptedHeaders.length).toBe(0);
  });

  test('without MASTER_KEY, headers are refused with 500 AB04 and nothing is stored; configs without headers work', async ({
    pg,
    nats,
  }) => {
    const { app } = startControlPlane({ pg, nats }, { MASTER_KEY: '' });
    await app.start();
    try {
      const call = apiClient(`http://127.0.0.1:${app.ports.http}`, ADMIN_KEY);
      const ws = await call('post', '/workspaces', { body: { name: 'No key configs' } });
      const refused = await call('post', '/configs', {
        body: { name: 'Keyless config', workspace_id: ws.body.id, config: hookedConfig(SECRET) },
      });
      expectError(refused, 500, 'AB04');
      expect(refused.body.error.message).toContain('MASTER_KEY');
      expect(JSON.stringify(refused.body)).not.toContain(SECRET);
      const { rows } = await pg.pool.query("select 1 from control.configs where name = 'Keyless config'");
      expect(rows).toEqual([]);

      const plainConfig = {
        strategy: { mode: 'single' },
        targets: [{ provider: 'openai' }],
        input_guardrails: [
          { checks: [{ id: 'webhook', parameters: { url: 'https://hooks.example.com/open' } }] },
        ],
      };
      const plain = await call('post', '/configs', {
        body: { name: 'Headerless config', workspace_id: ws.body.id, config: plainConfig },
      });
      expect(plain.status, JSON.stringify(plain.body)).toBe(201);
      expect(plain.body.config).toEqual(plainConfig);
      const updated = await call('put', `/configs/${plain.body.id}`, {
        body: { config: hookedConfig(SECRET) },
      });
      expectError(updated, 500, 'AB04');
      const row = await configRow(pg.pool, plain.body.id);
      expect(row.body).not.toContain(SECRET);
      expect(row.config_version).toBe(1);
    } finally {
      await app.stop();
    }
  });

  test('rows stored in plaintext before migration 0019: masked on read without MASTER_KEY, sealed by a start with it', async ({
    cp,
    pg,
    nats,
  }) => {
    const ws = await workspace(cp, 'Legacy configs');
    const id = randomUUID();
    const { rows } = await pg.pool.query('select organisation_id from control.workspaces where id = $1', [
      ws.id,
    ]);
    const organisationId = rows[0].organisation_id as string;
    // As 0009-0018 stored them: the config text as sent, values in plaintext, in every version.
    const first = JSON.stringify(hookedConfig('first-version-secret-0001'));
    const latest = JSON.stringify(hookedConfig(SECRET));
    await pg.pool.query(
      `insert into control.configs (id, organisation_id, workspace_id, name, slug, body, config_version)
       values ($1, $2, $3, 'Legacy', $4, $5, 2)`,
      [id, organisationId, ws.id, `legacy-${id.slice(0, 8)}`, latest],
    );
    await pg.pool.query(
      `insert into control.config_versions (config_id, version, body) values ($1, 1, $2), ($1, 2, $3)`,
      [id, first, latest],
    );
    const legacy = await cp.call('get', `/configs/${id}`);
    const legacyV1 = await cp.call('get', `/configs/${id}/versions/1`);
    expect(JSON.stringify(legacy.body)).not.toContain(SECRET);
    expect(JSON.stringify(legacyV1.body)).not.toContain('first-version-secret');
    expect(shownHeaders(legacy.body.config)).toEqual(MASKED);

    const keyless = startControlPlane({ pg, nats }, { MASTER_KEY: '' }).app;
    await keyless.start();
    await keyless.stop();
    expect((await configRow(pg.pool, id)).body).toContain(SECRET);

    const keyed = startControlPlane({ pg, nats }).app;
    await keyed.start();
    await keyed.stop();
    const row = await configRow(pg.pool, id);
    expectNoPlaintext(row);
    expect(row.version).toBe('2');
    expect(row.config_version).toBe(2);
    const sealed = original(SECRET);
    expect(opened(id, 2, row.encrypted_headers)).toEqual(sealed);
    const v1 = await versionRow(pg.pool, id, 1);
    expect(v1.body).not.toContain('first-version-secret');
    expect(opened(id, 1, v1.encrypted_headers)).toMatchObject({
      'input_guardrails.0.checks.1': { Authorization: 'Bearer first-version-secret-0001' },
    });
    expectNoPlaintext(await versionRow(pg.pool, id, 2));
    const change = await lastChange(pg.pool, id, EntityKind.CONFIG);
    expect(change?.version).toBe(2);
    expect(configValue(change)?.bodyJson).not.toContain(SECRET);
    expect(opened(id, 2, configValue(change)?.encryptedHeaders ?? null)).toEqual(sealed);
    expect((await cp.call('get', `/configs/${id}`)).body.config).toEqual(legacy.body.config);
    expect((await cp.call('get', `/configs/${id}/versions/1`)).body.config).toEqual(legacyV1.body.config);
  });
});
