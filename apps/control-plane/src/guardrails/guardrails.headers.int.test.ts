// Webhook headers of saved guardrails are secrets: read keys see names with masked values, Postgres
// holds only the envelope, change events and the snapshot carry only the envelope (which opens with
// MASTER_KEY to the original values), audit records hold no value, and without MASTER_KEY headers
// are refused while guardrails without headers still work. Rows stored in plaintext before
// migration 0018 are sealed by the next start with MASTER_KEY.
import { randomUUID } from 'node:crypto';
import { type Entity, EntityKind } from '@aigw/proto';
import type pg from 'pg';
import { describe, expect } from 'vitest';
import { ADMIN_KEY, apiClient, startControlPlane, test } from '../../test/harness.js';
import { auditEvents } from '../../test/outbox-rows.js';
import { readSnapshot, snapshotEntities } from '../../test/snapshot-client.js';
import { expectError, lastChange, serviceKey, workspace } from '../configs/configs.test-support.js';
import { openedHeaders, PARTNER_SECRET, SECRET, WEBHOOK_CHECKS } from './guardrails.headers.test-support.js';

async function storedRow(pool: pg.Pool, id: string) {
  const { rows } = await pool.query(
    'select definition::text as definition, encrypted_headers, masked_headers::text as masked, version from control.guardrails where id = $1',
    [id],
  );
  return rows[0] as {
    definition: string;
    encrypted_headers: Buffer | null;
    masked: string | null;
    version: string;
  };
}

function bodyJson(entity: Entity | undefined): string {
  return entity?.body?.$case === 'guardrail' ? entity.body.value.bodyJson : '';
}

function envelopeOf(entity: Entity | undefined): Uint8Array {
  return entity?.body?.$case === 'guardrail' ? entity.body.value.encryptedHeaders : new Uint8Array();
}

/** Header names are stored lower-case (the config schema normalises them). */
const ORIGINAL = {
  '1': { authorization: `Bearer ${SECRET}`, 'x-tenant': 'acme' },
  '2': { 'x-api-key': PARTNER_SECRET },
};

describe('webhook headers of guardrails', () => {
  test('a read key sees header names with masked values; Postgres, events, snapshot and audit hold no plaintext', async ({
    cp,
    pg,
  }) => {
    const ws = await workspace(cp, 'Hooked');
    const created = await cp.call('post', '/guardrails', {
      body: { name: 'Hooked guard', workspace_id: ws.id, checks: WEBHOOK_CHECKS },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id as string;
    const readKey = await serviceKey(cp, ws.id, ['guardrails.read', 'guardrails.list']);
    const got = await cp.call('get', `/guardrails/${id}`, { key: readKey });
    const listed = await cp.call('get', '/guardrails', { key: readKey });
    expect(got.status).toBe(200);
    for (const body of [created.body, got.body, listed.body]) {
      const text = JSON.stringify(body);
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain(PARTNER_SECRET);
    }
    expect(got.body.checks[0]).toEqual({ id: 'valid_json', parameters: {} });
    expect(got.body.checks[1].parameters.headers).toEqual({ authorization: '****oken', 'x-tenant': '****' });
    expect(got.body.checks[2].parameters).toMatchObject({
      policyId: 'p1',
      headers: { 'x-api-key': '****fXYZ' },
    });

    const row = await storedRow(pg.pool, id);
    expect(row.definition).not.toContain(SECRET);
    expect(row.definition).not.toContain(PARTNER_SECRET);
    expect(row.masked).not.toContain(SECRET);
    expect(row.encrypted_headers?.includes(Buffer.from(SECRET))).toBe(false);
    expect(openedHeaders(id, row.encrypted_headers ?? Buffer.alloc(0))).toEqual(ORIGINAL);

    const change = await lastChange(pg.pool, id, EntityKind.GUARDRAIL);
    expect(bodyJson(change)).not.toContain(SECRET);
    expect(JSON.parse(bodyJson(change)).checks[1].parameters.headers).toEqual({});
    expect(openedHeaders(id, envelopeOf(change))).toEqual(ORIGINAL);
    const fromSnapshot = snapshotEntities(await readSnapshot(cp.app.ports.grpc)).find((e) => e.id === id);
    expect(bodyJson(fromSnapshot)).not.toContain(SECRET);
    expect(openedHeaders(id, envelopeOf(fromSnapshot))).toEqual(ORIGINAL);

    const audit = (await auditEvents(pg.pool)).find(
      (a) => a.action === 'guardrails.create' && a.resourceId === id,
    );
    expect(audit?.requestDetailsJson).toContain('hooks.example.com');
    expect(audit?.requestDetailsJson).not.toContain(SECRET);
    expect(audit?.requestDetailsJson).not.toContain(PARTNER_SECRET);
  });

  test('updates: without checks the envelope is kept; new checks replace the headers, none removes them', async ({
    cp,
    pg,
  }) => {
    const ws = await workspace(cp, 'Hook updates');
    const created = await cp.call('post', '/guardrails', {
      body: { name: 'Updated hook', workspace_id: ws.id, checks: WEBHOOK_CHECKS },
    });
    const id = created.body.id as string;
    const renamed = await cp.call('put', `/guardrails/${id}`, {
      body: { name: 'Renamed', actions: { deny: true } },
    });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect(renamed.body.checks[1].parameters.headers).toEqual({
      authorization: '****oken',
      'x-tenant': '****',
    });
    expect(openedHeaders(id, (await storedRow(pg.pool, id)).encrypted_headers ?? Buffer.alloc(0))).toEqual(
      ORIGINAL,
    );
    expect(openedHeaders(id, envelopeOf(await lastChange(pg.pool, id, EntityKind.GUARDRAIL)))).toEqual(
      ORIGINAL,
    );

    const rotated = 'rotated-secret-abcdefghijkl';
    const replaced = await cp.call('put', `/guardrails/${id}`, {
      body: {
        checks: [
          {
            id: 'webhook',
            parameters: { url: 'https://hooks.example.com/v2', headers: { Authorization: rotated } },
          },
        ],
      },
    });
    expect(replaced.status, JSON.stringify(replaced.body)).toBe(200);
    expect(JSON.stringify(replaced.body)).not.toContain(rotated);
    expect(openedHeaders(id, (await storedRow(pg.pool, id)).encrypted_headers ?? Buffer.alloc(0))).toEqual({
      '0': { authorization: rotated },
    });

    const cleared = await cp.call('put', `/guardrails/${id}`, {
      body: { checks: [{ id: 'webhook', parameters: { url: 'https://hooks.example.com/v3' } }] },
    });
    expect(cleared.body.checks[0].parameters.headers).toEqual({});
    const row = await storedRow(pg.pool, id);
    expect(row.encrypted_headers).toBeNull();
    expect(row.masked).toBeNull();
    expect(envelopeOf(await lastChange(pg.pool, id, EntityKind.GUARDRAIL)).length).toBe(0);
  });

  test('without MASTER_KEY, headers are refused with 500 AB04 and nothing is stored; guardrails without headers work', async ({
    pg,
    nats,
  }) => {
    const { app } = startControlPlane({ pg, nats }, { MASTER_KEY: '' });
    await app.start();
    try {
      const call = apiClient(`http://127.0.0.1:${app.ports.http}`, ADMIN_KEY);
      const ws = await call('post', '/workspaces', { body: { name: 'No key hooks' } });
      const refused = await call('post', '/guardrails', {
        body: { name: 'Keyless hook', workspace_id: ws.body.id, checks: WEBHOOK_CHECKS },
      });
      expectError(refused, 500, 'AB04');
      expect(refused.body.error.message).toContain('MASTER_KEY');
      expect(JSON.stringify(refused.body)).not.toContain(SECRET);
      expect((await call('get', `/guardrails/keyless-hook?workspace_id=${ws.body.id}`)).status).toBe(404);
      const { rows } = await pg.pool.query("select 1 from control.guardrails where name = 'Keyless hook'");
      expect(rows).toEqual([]);

      const plain = await call('post', '/guardrails', {
        body: {
          name: 'Headerless hook',
          workspace_id: ws.body.id,
          checks: [{ id: 'webhook', parameters: { url: 'https://hooks.example.com/open' } }],
        },
      });
      expect(plain.status, JSON.stringify(plain.body)).toBe(201);
      const updated = await call('put', `/guardrails/${plain.body.id}`, {
        body: {
          checks: [
            { id: 'webhook', parameters: { url: 'https://hooks.example.com/open', headers: { a: SECRET } } },
          ],
        },
      });
      expectError(updated, 500, 'AB04');
      expect((await storedRow(pg.pool, plain.body.id)).definition).not.toContain(SECRET);
    } finally {
      await app.stop();
    }
  });

  test('rows stored in plaintext before migration 0018: masked on read without MASTER_KEY, sealed by a start with it', async ({
    cp,
    pg,
    nats,
  }) => {
    const ws = await workspace(cp, 'Legacy hooks');
    const id = randomUUID();
    const { rows } = await pg.pool.query('select organisation_id from control.workspaces where id = $1', [
      ws.id,
    ]);
    const organisationId = rows[0].organisation_id as string;
    // As 0009-0017 stored them: normalised by the schema (lower-case names), values in plaintext.
    const checks = [
      {
        id: 'webhook',
        parameters: { url: 'https://hooks.example.com/guard', headers: ORIGINAL['1'], timeout: 10000 },
      },
      {
        id: 'partner.acme',
        parameters: {
          url: 'https://acme.example.com/scan',
          headers: ORIGINAL['2'],
          timeout: 10000,
          policyId: 'p1',
        },
      },
    ];
    const definition = { checks, actions: { deny: false }, async: false };
    await pg.pool.query(
      `insert into control.guardrails (id, organisation_id, workspace_id, name, slug, definition)
       values ($1, $2, $3, 'Legacy', $4, $5)`,
      [id, organisationId, ws.id, `legacy-${id.slice(0, 8)}`, JSON.stringify(definition)],
    );
    const legacy = await cp.call('get', `/guardrails/${id}`);
    expect(JSON.stringify(legacy.body)).not.toContain(SECRET);
    expect(legacy.body.checks[0].parameters.headers).toEqual({
      authorization: '****oken',
      'x-tenant': '****',
    });

    const keyless = startControlPlane({ pg, nats }, { MASTER_KEY: '' }).app;
    await keyless.start();
    await keyless.stop();
    expect((await storedRow(pg.pool, id)).definition).toContain(SECRET);

    const keyed = startControlPlane({ pg, nats }).app;
    await keyed.start();
    await keyed.stop();
    const row = await storedRow(pg.pool, id);
    expect(row.definition).not.toContain(SECRET);
    expect(row.definition).not.toContain(PARTNER_SECRET);
    expect(row.version).toBe('2');
    const sealed = { '0': ORIGINAL['1'], '1': ORIGINAL['2'] };
    expect(openedHeaders(id, row.encrypted_headers ?? Buffer.alloc(0))).toEqual(sealed);
    const change = await lastChange(pg.pool, id, EntityKind.GUARDRAIL);
    expect(change?.version).toBe(2);
    expect(bodyJson(change)).not.toContain(SECRET);
    expect(openedHeaders(id, envelopeOf(change))).toEqual(sealed);
    expect((await cp.call('get', `/guardrails/${id}`)).body.checks).toEqual(legacy.body.checks);
  });
});
