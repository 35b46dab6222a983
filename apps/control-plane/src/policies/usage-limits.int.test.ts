// Usage limits policies end to end: the object, the gateway entity (micro-USD), list filters,
// updates that merge into the stored limit, and archive.
import { EntityKind, EntityStatus, PeriodicReset, UsageLimitType } from '@aigw/proto';
import { describe, expect } from 'vitest';
import { test } from '../../test/harness.js';
import { auditEvents } from '../../test/outbox-rows.js';
import { readSnapshot, snapshotEntities } from '../../test/snapshot-client.js';
import {
  createPolicy,
  createWorkspace,
  policyChanges,
  rateBody,
  usageBody,
} from './policies.test-support.js';

describe('usage limits policies', () => {
  test('create, get and the gateway entity with the limit in micro-USD', async ({ cp, pg }) => {
    const ws = await createWorkspace(cp, 'ul-create');
    const created = await cp.call('post', '/policies/usage-limits', {
      body: usageBody({
        credit_limit: 12.5,
        alert_threshold: 10.25,
        periodic_reset: null,
        periodic_reset_days: 30,
        next_usage_reset_at: '2999-01-01T00:00:00.000Z',
        workspace_id: ws.id,
      }),
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ id: expect.any(String), object: 'policy_usage_limits' });
    const got = await cp.call('get', `/policies/usage-limits/${created.body.id}`);
    expect(got.body).toEqual({
      id: created.body.id,
      object: 'policy_usage_limits',
      name: 'Monthly budget',
      type: 'cost',
      credit_limit: 12.5,
      alert_threshold: 10.25,
      periodic_reset: null,
      periodic_reset_days: 30,
      next_usage_reset_at: '2999-01-01T00:00:00.000Z',
      conditions: [{ key: 'model', value: '*' }],
      group_by: [{ key: 'api_key' }],
      workspace_id: ws.id,
      organisation_id: expect.any(String),
      created_at: expect.any(String),
      last_updated_at: expect.any(String),
      status: 'active',
    });
    const [change] = await policyChanges(pg.pool, created.body.id);
    expect(change?.entity).toMatchObject({
      kind: EntityKind.USAGE_LIMIT_POLICY,
      workspaceId: ws.id,
      body: {
        $case: 'usageLimitPolicy',
        value: {
          type: UsageLimitType.COST,
          creditLimit: 12_500_000,
          alertThreshold: 10_250_000,
          periodicReset: PeriodicReset.UNSPECIFIED,
          periodicResetDays: 30,
          nextUsageResetAtMs: Date.parse('2999-01-01T00:00:00.000Z'),
          status: EntityStatus.ACTIVE,
        },
      },
    });

    const tokens = await createPolicy(
      cp,
      'usage-limits',
      usageBody({ type: 'tokens', credit_limit: 1_000_000, alert_threshold: null, periodic_reset: 'weekly' }),
    );
    const [tokenChange] = await policyChanges(pg.pool, tokens);
    expect(tokenChange?.entity?.body).toMatchObject({
      value: { type: UsageLimitType.TOKENS, creditLimit: 1_000_000, periodicReset: PeriodicReset.WEEKLY },
    });
    expect(
      tokenChange?.entity?.body?.$case === 'usageLimitPolicy' && tokenChange.entity.body.value.alertThreshold,
    ).toBe(undefined);
  });

  test('list filters by workspace, status and type', async ({ cp }) => {
    const ws = await createWorkspace(cp, 'ul-list');
    const cost = await createPolicy(cp, 'usage-limits', usageBody({ name: 'cost', workspace_id: ws.slug }));
    await createPolicy(
      cp,
      'usage-limits',
      usageBody({
        name: 'tokens',
        type: 'tokens',
        credit_limit: 1000,
        alert_threshold: 10,
        workspace_id: ws.id,
      }),
    );
    const names = async (query: string) =>
      (await cp.call('get', `/policies/usage-limits?${query}`)).body.data.map(
        (p: { name: string }) => p.name,
      );
    expect(await names(`workspace_id=${ws.id}`)).toEqual(['cost', 'tokens']);
    expect(await names(`workspace_id=${ws.slug}&type=tokens`)).toEqual(['tokens']);
    await cp.call('delete', `/policies/usage-limits/${cost}`);
    expect(await names(`workspace_id=${ws.id}`)).toEqual(['tokens']);
    expect(await names(`workspace_id=${ws.id}&status=archived`)).toEqual(['cost']);
    expect((await cp.call('get', '/policies/usage-limits?type=requests')).status).toBe(400);
  });

  test('update merges: one reset style replaces the other, null clears, {} is answered', async ({
    cp,
    pg,
  }) => {
    const id = await createPolicy(
      cp,
      'usage-limits',
      usageBody({ next_usage_reset_at: '2999-06-01T00:00:00Z', periodic_reset: 'monthly' }),
    );
    const get = async () => (await cp.call('get', `/policies/usage-limits/${id}`)).body;

    const toDays = await cp.call('put', `/policies/usage-limits/${id}`, {
      body: { periodic_reset_days: 14 },
    });
    expect(toDays.status).toBe(200);
    expect(toDays.body).toEqual({});
    expect(await get()).toMatchObject({
      periodic_reset: null,
      periodic_reset_days: 14,
      next_usage_reset_at: '2999-06-01T00:00:00.000Z',
    });

    await cp.call('put', `/policies/usage-limits/${id}`, { body: { periodic_reset_days: null } });
    expect(await get()).toMatchObject({
      periodic_reset: null,
      periodic_reset_days: null,
      next_usage_reset_at: null,
    });

    await cp.call('put', `/policies/usage-limits/${id}`, {
      body: { name: 'Renamed', credit_limit: 500, alert_threshold: null, periodic_reset: 'weekly' },
    });
    expect(await get()).toMatchObject({
      name: 'Renamed',
      credit_limit: 500,
      alert_threshold: null,
      periodic_reset: 'weekly',
    });
    const changes = await policyChanges(pg.pool, id);
    expect(changes.map((c) => c.entity?.version)).toEqual([1, 2, 3, 4]);
    expect(changes[3]?.entity?.body).toMatchObject({
      value: { creditLimit: 500_000_000, periodicReset: PeriodicReset.WEEKLY },
    });
    const audits = (await auditEvents(pg.pool)).filter(
      (a) => a.action === 'usage_limits_policies.update' && a.resourceId === id,
    );
    expect(audits).toHaveLength(3);

    expect((await cp.call('delete', `/policies/usage-limits/${id}`)).body).toEqual({});
    expect((await get()).status).toBe('archived');
    const missing = await cp.call('put', '/policies/usage-limits/00000000-0000-4000-8000-000000000000', {
      body: { name: 'x' },
    });
    expect(missing.body.error).toMatchObject({ code: 'AB08', message: 'Policy not found' });
  });

  test('snapshots carry both kinds, archived ones with their status, at their latest version', async ({
    cp,
  }) => {
    const usage = await createPolicy(cp, 'usage-limits', usageBody());
    const rate = await createPolicy(cp, 'rate-limits', rateBody());
    await cp.call('put', `/policies/rate-limits/${rate}`, { body: { value: 5 } });
    await cp.call('delete', `/policies/rate-limits/${rate}`);
    const entities = snapshotEntities(await readSnapshot(cp.app.ports.grpc));
    expect(entities.find((e) => e.id === usage)).toMatchObject({
      kind: EntityKind.USAGE_LIMIT_POLICY,
      version: 1,
      body: { $case: 'usageLimitPolicy', value: { creditLimit: 100_000_000, alertThreshold: 80_000_000 } },
    });
    expect(entities.find((e) => e.id === rate)).toMatchObject({
      kind: EntityKind.RATE_LIMIT_POLICY,
      version: 3,
      tombstone: false,
      body: { $case: 'rateLimitPolicy', value: { value: 5, status: EntityStatus.ARCHIVED } },
    });
  });
});
