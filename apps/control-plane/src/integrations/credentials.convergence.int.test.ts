// After a sequence of integration, provider and virtual-key changes, the JetStream change stream and
// the gRPC snapshot both hold every entity at its latest version, with credentials only sealed.
import { ChangeEvent, Entity, EntityKind } from '@aigw/proto';
import { credentialsAad, openSecret, parseMasterKey } from '@aigw/secret-box';
import type { NatsFixture } from '@aigw/testkit';
import { DeliverPolicy } from '@nats-io/jetstream';
import type pg from 'pg';
import { describe, expect } from 'vitest';
import { type ApiResponse, MASTER_KEY, test } from '../../test/harness.js';
import { readSnapshot, snapshotEntities } from '../../test/snapshot-client.js';
import {
  AWS_SECRET,
  createIntegration,
  HEADER_SECRET,
  OPENAI_KEY,
  ROTATED_KEY,
  workspace,
} from './integrations.test-support.js';

const VK_KEY = 'sk-test-virtual-key-0123456789-vkey';
const VK_ROTATED = 'sk-test-virtual-rotated-98765-vkr2';
const SECRETS = [OPENAI_KEY, ROTATED_KEY, AWS_SECRET, HEADER_SECRET, VK_KEY, VK_ROTATED];
const KINDS = new Set([EntityKind.INTEGRATION, EntityKind.PROVIDER, EntityKind.VIRTUAL_KEY]);
const masterKey = parseMasterKey(MASTER_KEY);

async function ok(promise: Promise<ApiResponse>, status = 200) {
  const res = await promise;
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  return res.body;
}

/** Highest version per kind:id, tombstones marked, as a gateway would hold them. */
function view(entities: readonly Entity[]): Map<string, Entity> {
  const held = new Map<string, Entity>();
  for (const entity of entities) {
    if (!KINDS.has(entity.kind)) continue;
    const id = `${entity.kind}:${entity.id}`;
    const current = held.get(id);
    if (!current || entity.version > current.version) held.set(id, entity);
  }
  return held;
}

function versions(held: Map<string, Entity>): Record<string, string> {
  return Object.fromEntries(
    [...held]
      .map(([id, e]) => [id, `${e.version}${e.tombstone ? '†' : ''}`] as const)
      .sort(([a], [b]) => a.localeCompare(b)),
  );
}

/** What the database says every gateway must end up with. */
async function expected(pool: pg.Pool): Promise<Record<string, string>> {
  const out: [string, string][] = [];
  for (const r of (await pool.query('select id, version from control.integrations')).rows)
    out.push([`${EntityKind.INTEGRATION}:${r.id}`, String(r.version)]);
  for (const r of (await pool.query('select id, version from control.providers')).rows) {
    out.push([`${EntityKind.PROVIDER}:${r.id}`, String(r.version)]);
    out.push([`${EntityKind.VIRTUAL_KEY}:${r.id}`, String(r.version)]);
  }
  const tombstones = await pool.query(
    'select kind, id, version from control.tombstones where kind = any($1)',
    [[...KINDS]],
  );
  for (const r of tombstones.rows) out.push([`${r.kind}:${r.id}`, `${r.version}†`]);
  return Object.fromEntries(out.sort(([a], [b]) => a.localeCompare(b)));
}

async function streamMessages(nats: NatsFixture, stream: string): Promise<Uint8Array[]> {
  const info = await nats.jsm.streams.info(stream);
  const consumer = await nats.js.consumers.get(stream, { deliver_policy: DeliverPolicy.All });
  const batch = await consumer.fetch({ max_messages: info.state.messages, expires: 5_000 });
  const out: Uint8Array[] = [];
  for await (const message of batch) out.push(message.data);
  expect(out.length).toBe(info.state.messages);
  return out;
}

function opened(entity: Entity | undefined, owner: 'integration' | 'provider'): unknown {
  const value = entity?.body?.value as { encryptedCredentials?: Buffer } | undefined;
  const envelope = value?.encryptedCredentials ?? Buffer.alloc(0);
  return JSON.parse(
    openSecret(masterKey, envelope, credentialsAad(owner, entity?.id ?? '')).toString('utf8'),
  );
}

describe('credentials on the change stream and in snapshots', () => {
  test('every entity at its latest version, credentials sealed, no plaintext anywhere', async ({
    cp,
    pg,
    nats,
  }) => {
    const a = await workspace(cp, 'Conv A');
    const b = await workspace(cp, 'Conv B');
    const main = await createIntegration(cp, {
      name: 'Conv main',
      credentials: { api_key: OPENAI_KEY, custom_headers: { 'x-tenant': HEADER_SECRET } },
      workspaces: [{ id: a.id }, { id: b.id }],
    });
    await ok(cp.call('put', `/integrations/${main.id}`, { body: { credentials: { api_key: ROTATED_KEY } } }));
    const aws = await createIntegration(cp, {
      name: 'Conv aws',
      ai_provider: 'bedrock',
      credentials: { aws_access_key_id: 'AKIAABCDEFGHIJKLMNOP', aws_secret_access_key: AWS_SECRET },
      options: { region: 'eu-west-1' },
    });
    await ok(
      cp.call('put', `/integrations/${main.id}/workspaces`, {
        body: { workspaces: [{ id: b.id, enabled: false }] },
      }),
    );
    const vk = await ok(
      cp.call('post', '/virtual-keys', {
        body: { workspace_id: a.id, name: 'Conv vk', provider: 'openai', key: VK_KEY },
      }),
      201,
    );
    await ok(cp.call('put', `/virtual-keys/${vk.id}`, { body: { key: VK_ROTATED } }));
    const second = await ok(
      cp.call('post', '/providers', {
        body: { workspace_id: a.id, integration_id: main.id, slug: 'conv-second' },
      }),
      201,
    );
    const defaults = (await ok(cp.call('get', `/providers?integration_id=${main.id}`))).data as {
      id: string;
      workspace_id: string;
    }[];
    const inB = defaults.find((p) => p.workspace_id === b.id)?.id ?? '';
    await ok(cp.call('delete', `/providers/${inB}`));
    await ok(cp.call('delete', `/integrations/${aws.id}`));
    await ok(cp.call('put', `/providers/${second.id}`, { body: { tags: { round: 'last' } } }));

    const deadline = Date.now() + 20_000;
    for (;;) {
      const pending = await pg.pool.query<{ n: number }>(
        'select count(*)::int as n from control.outbox where published_at is null',
      );
      if (pending.rows[0]?.n === 0 || Date.now() > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const truth = await expected(pg.pool);
    // main; three providers (two kinds each); tombstones: the aws integration, the B provider twice.
    expect(Object.keys(truth).length).toBe(1 + 2 * 3 + 3);

    const changeBytes = await streamMessages(nats, `${cp.namespace}_AIGW_CHANGES`);
    const streamView = view(
      changeBytes.map((data) => ChangeEvent.decode(data).entity).filter((e): e is Entity => !!e),
    );
    const snapshot = snapshotEntities(await readSnapshot(cp.app.ports.grpc));
    const snapshotView = view(snapshot);
    expect(versions(streamView)).toEqual(truth);
    expect(versions(snapshotView)).toEqual(truth);

    for (const held of [streamView, snapshotView]) {
      expect(opened(held.get(`${EntityKind.INTEGRATION}:${main.id}`), 'integration')).toEqual({
        api_key: ROTATED_KEY,
      });
      expect(opened(held.get(`${EntityKind.PROVIDER}:${vk.id}`), 'provider')).toEqual({
        api_key: VK_ROTATED,
      });
      expect(held.get(`${EntityKind.INTEGRATION}:${aws.id}`)?.tombstone).toBe(true);
      expect(held.get(`${EntityKind.VIRTUAL_KEY}:${inB}`)?.tombstone).toBe(true);
      const integration = held.get(`${EntityKind.INTEGRATION}:${main.id}`);
      expect(
        integration?.body?.$case === 'integration' && integration.body.value.workspaces.map((w) => w.enabled),
      ).toEqual([true, false]);
    }

    const auditBytes = await streamMessages(nats, `${cp.namespace}_AIGW_AUDIT`);
    const snapshotBytes = snapshot.map((e) => Buffer.from(Entity.encode(e).finish()));
    for (const secret of SECRETS) {
      const bytes = Buffer.from(secret, 'utf8');
      for (const data of [...changeBytes, ...auditBytes, ...snapshotBytes])
        expect(Buffer.from(data).includes(bytes)).toBe(false);
    }
  });
});
