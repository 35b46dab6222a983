import { ChangeEvent, type Entity, EntityKind, EntityStatus } from '@aigw/proto';
import { DeliverPolicy } from '@nats-io/jetstream';
import { describe, expect } from 'vitest';
import { type ControlPlaneFixture, test } from '../../test/harness.js';
import { readSnapshot, snapshotEntities } from '../../test/snapshot-client.js';

/** What a gateway holds: per entity the highest version seen (tombstones included). */
class GatewayView {
  readonly entities = new Map<string, Entity>();

  apply(entity: Entity): void {
    const id = `${entity.kind}:${entity.id}`;
    const held = this.entities.get(id);
    if (!held || entity.version > held.version) this.entities.set(id, entity);
  }

  versions(): Record<string, string> {
    return Object.fromEntries(
      [...this.entities].map(([id, e]) => [id, `${e.version}${e.tombstone ? '†' : ''}`]).sort(),
    );
  }
}

function versionsOf(entities: readonly Entity[]): Record<string, string> {
  const view = new GatewayView();
  for (const e of entities) view.apply(e);
  return view.versions();
}

async function churn(cp: ControlPlaneFixture, round: number): Promise<void> {
  const ws = await cp.call('post', '/workspaces', { body: { name: `Team ${round}` } });
  expect(ws.status).toBe(201);
  const key = await cp.call('post', '/api-keys/workspace/service', {
    body: { name: `svc ${round}`, workspace_id: ws.body.id, scopes: ['completions.write'] },
  });
  expect(key.status).toBe(201);
  expect(
    (await cp.call('put', `/workspaces/${ws.body.id}`, { body: { description: `round ${round}` } })).status,
  ).toBe(200);
  if (round % 2 === 0) expect((await cp.call('delete', `/api-keys/${key.body.id}`)).status).toBe(200);
  else expect((await cp.call('post', `/api-keys/${key.body.id}/rotate`)).status).toBe(200);
  if (round % 3 === 0) expect((await cp.call('delete', `/workspaces/${ws.body.id}`)).status).toBe(200);
}

const SECRET = 'sk-convergence-secret-0123456789abcdef';

/** One change to every other family gateways need: credentials, providers, configs, guardrails, policies, pricing. */
async function churnResources(cp: ControlPlaneFixture, round: number): Promise<void> {
  const ws = await cp.call('post', '/workspaces', { body: { name: `Resources ${round}` } });
  expect(ws.status).toBe(201);
  const integration = await cp.call('post', '/integrations', {
    body: {
      name: `OpenAI ${round}`,
      ai_provider: 'openai',
      credentials: { api_key: `${SECRET}-${round}` },
      workspaces: [{ id: ws.body.id }],
      default_provider_slug: `openai-${round}`,
    },
  });
  expect(integration.status).toBe(201);
  const guardrail = await cp.call('post', '/guardrails', {
    body: {
      name: `No secrets ${round}`,
      workspace_id: ws.body.id,
      checks: [{ id: 'regex_match', parameters: { pattern: 'sk-[a-z]{8}' } }],
      actions: { deny: true },
    },
  });
  expect(guardrail.status).toBe(201);
  const config = await cp.call('post', '/configs', {
    body: {
      name: `Fallback ${round}`,
      workspace_id: ws.body.id,
      config: {
        strategy: { mode: 'fallback' },
        targets: [
          { provider: `@openai-${round}` },
          { provider: 'openai', custom_host: 'https://example.com/v1' },
        ],
        input_guardrails: [guardrail.body.id],
      },
    },
  });
  expect(config.status).toBe(201);
  expect(
    (
      await cp.call('put', `/configs/${config.body.id}`, {
        body: { config: { provider: `@openai-${round}` } },
      })
    ).status,
  ).toBe(200);
  const rate = await cp.call('post', '/policies/rate-limits', {
    body: {
      name: `rpm ${round}`,
      type: 'requests',
      unit: 'rpm',
      value: 60,
      conditions: [{ key: 'workspace_id', value: ws.body.id }],
      group_by: [{ key: 'api_key' }],
      workspace_id: ws.body.id,
    },
  });
  expect(rate.status).toBe(201);
  const usage = await cp.call('post', '/policies/usage-limits', {
    body: {
      name: `budget ${round}`,
      type: 'cost',
      credit_limit: 10,
      conditions: [{ key: 'workspace_id', value: ws.body.id }],
      group_by: [{ key: 'workspace_id' }],
      workspace_id: ws.body.id,
    },
  });
  expect(usage.status).toBe(201);
  const price = await cp.call('post', '/model-pricing', {
    body: { ai_provider: 'openai', model: `gpt-convergence-${round}`, input_per_mtok: 1, output_per_mtok: 2 },
  });
  expect(price.status).toBe(201);
  if (round % 2 === 1) {
    expect((await cp.call('delete', `/integrations/${integration.body.id}`)).status).toBe(200);
    expect((await cp.call('delete', `/model-pricing/${price.body.id}`)).status).toBe(200);
  }
}

describe('gateway-style convergence', () => {
  test('subscribe, then snapshot, then apply buffered changes by version: the view equals the database', async ({
    cp,
    nats,
  }) => {
    for (let round = 0; round < 5; round++) await churn(cp, round);

    // A gateway subscribes first (new messages only), then loads the snapshot, while writes continue.
    const view = new GatewayView();
    const consumer = await nats.js.consumers.get(`${cp.namespace}_AIGW_CHANGES`, {
      deliver_policy: DeliverPolicy.New,
    });
    const messages = await consumer.consume();
    const received: ChangeEvent[] = [];
    const pump = (async () => {
      for await (const message of messages) received.push(ChangeEvent.decode(message.data));
    })();

    const writes = (async () => {
      for (let round = 5; round < 15; round++) {
        await churn(cp, round);
        await churnResources(cp, round);
      }
    })();
    const snapshot = snapshotEntities(await readSnapshot(cp.app.ports.grpc));
    for (const entity of snapshot) view.apply(entity);
    await writes;

    const expected = versionsOf(snapshotEntities(await readSnapshot(cp.app.ports.grpc)));
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline) {
      for (const event of received.splice(0)) if (event.entity) view.apply(event.entity);
      if (JSON.stringify(view.versions()) === JSON.stringify(expected)) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await messages.close();
    await pump;
    expect(view.versions()).toEqual(expected);

    // Deleted keys are tombstones in both; a rotated key's latest hash is what the gateway holds.
    const tombstones = [...view.entities.values()].filter((e) => e.tombstone);
    expect(tombstones.length).toBeGreaterThanOrEqual(7);
    const archived = [...view.entities.values()].filter(
      (e) =>
        e.kind === EntityKind.WORKSPACE &&
        e.body?.$case === 'workspace' &&
        e.body.value.status === EntityStatus.ARCHIVED,
    );
    expect(archived.length).toBe(5);

    // Every kind gateways need is there, and credentials exist only sealed.
    const kinds = new Set([...view.entities.values()].map((e) => e.kind));
    for (const kind of [
      EntityKind.ORGANISATION,
      EntityKind.WORKSPACE,
      EntityKind.API_KEY,
      EntityKind.INTEGRATION,
      EntityKind.PROVIDER,
      EntityKind.VIRTUAL_KEY,
      EntityKind.CONFIG,
      EntityKind.RATE_LIMIT_POLICY,
      EntityKind.USAGE_LIMIT_POLICY,
      EntityKind.GUARDRAIL,
      EntityKind.MODEL_PRICING,
    ]) {
      expect(kinds.has(kind), EntityKind[kind]).toBe(true);
    }
    const sealed = [...view.entities.values()].filter(
      (e) => e.body?.$case === 'integration' && e.body.value.encryptedCredentials.length > 0,
    );
    expect(sealed.length).toBeGreaterThanOrEqual(5);
  });

  test('no stream message, outbox row or snapshot carries a credential in clear', async ({
    cp,
    pg,
    nats,
  }) => {
    await churnResources(cp, 200);
    const secret = `${SECRET}-200`;
    const outbox = await pg.pool.query<{ payload: Buffer }>('select payload from control.outbox');
    expect(outbox.rows.length).toBeGreaterThan(0);
    for (const row of outbox.rows) expect(row.payload.includes(secret)).toBe(false);
    const snapshot = await readSnapshot(cp.app.ports.grpc);
    for (const entity of snapshotEntities(snapshot)) {
      expect(JSON.stringify(entity).includes(secret)).toBe(false);
    }
    const stream = `${cp.namespace}_AIGW_AUDIT`;
    const consumer = await nats.js.consumers.get(stream, { deliver_policy: DeliverPolicy.All });
    const info = await nats.jsm.streams.info(stream);
    const batch = await consumer.fetch({ max_messages: info.state.messages, expires: 5_000 });
    let audited = 0;
    for await (const message of batch) {
      audited++;
      expect(Buffer.from(message.data).includes(secret)).toBe(false);
    }
    expect(audited).toBeGreaterThan(0);
  });

  test('every change reaches the stream exactly once per entity version', async ({ cp, nats, pg }) => {
    await churn(cp, 100);
    const deadline = Date.now() + 20_000;
    let backlog = 1;
    while (backlog > 0 && Date.now() < deadline) {
      const pending = await pg.pool.query<{ n: number }>(
        'select count(*)::int as n from control.outbox where published_at is null',
      );
      backlog = pending.rows[0]?.n ?? 1;
      if (backlog > 0) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(backlog).toBe(0);

    const outbox = await pg.pool.query<{ payload: Buffer }>(
      "select payload from control.outbox where subject like '%aigw.changes.v1.%' order by id",
    );
    const expected = outbox.rows.map((r) => versionKey(ChangeEvent.decode(r.payload)));

    const stream = `${cp.namespace}_AIGW_CHANGES`;
    const info = await nats.jsm.streams.info(stream);
    expect(info.state.messages).toBe(expected.length);
    const consumer = await nats.js.consumers.get(stream, { deliver_policy: DeliverPolicy.All });
    const seen: string[] = [];
    const batch = await consumer.fetch({ max_messages: expected.length, expires: 5_000 });
    for await (const message of batch) seen.push(versionKey(ChangeEvent.decode(message.data)));
    expect(seen).toEqual(expected);
    expect(new Set(seen).size).toBe(seen.length);
  });
});

function versionKey(event: ChangeEvent): string {
  return `${event.entity?.kind}:${event.entity?.id}:${event.entity?.version}`;
}
