// Rate limits policies end to end (spec 2.1, 4.1): create, list and its filters, get, update (200 `{}`),
// archive, the gateway entity, audit records, validation errors and "Policy not found".
import { AuditOutcome, EntityKind, EntityStatus, RateLimitType, RateLimitUnit } from '@aigw/proto';
import { describe, expect } from 'vitest';
import { test } from '../../test/harness.js';
import { auditEvents } from '../../test/outbox-rows.js';
import { createPolicy, createWorkspace, policyChanges, rateBody } from './policies.test-support.js';

const MISSING = '00000000-0000-4000-8000-000000000000';

describe('rate limits policies', () => {
  test('create returns 201 {id, object}, stores the policy, emits its entity and an audit record', async ({
    cp,
    pg,
  }) => {
    const ws = await createWorkspace(cp, 'rl-create');
    const created = await cp.call('post', '/policies/rate-limits', {
      body: rateBody({
        name: 'Tokens per hour',
        type: 'tokens',
        unit: 'rph',
        value: 50000,
        conditions: [
          { key: 'workspace_id', value: ws.slug },
          { key: 'metadata.team', value: 'search' },
        ],
        group_by: [{ key: 'api_key' }, { key: 'model' }],
        workspace_id: ws.slug,
      }),
    });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body).sort()).toEqual(['id', 'object']);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      object: 'policy_rate_limits',
    });

    const got = await cp.call('get', `/policies/rate-limits/${created.body.id}`);
    expect(got.status).toBe(200);
    const organisationId = (await cp.call('get', '/organisation')).body.id;
    expect(got.body).toEqual({
      id: created.body.id,
      object: 'policy_rate_limits',
      name: 'Tokens per hour',
      type: 'tokens',
      unit: 'rph',
      value: 50000,
      conditions: [
        { key: 'workspace_id', value: ws.id },
        { key: 'metadata.team', value: 'search' },
      ],
      group_by: [{ key: 'api_key' }, { key: 'model' }],
      workspace_id: ws.id,
      organisation_id: organisationId,
      created_at: expect.any(String),
      last_updated_at: expect.any(String),
      status: 'active',
    });

    const [change] = await policyChanges(pg.pool, created.body.id);
    expect(change?.entity).toMatchObject({
      kind: EntityKind.RATE_LIMIT_POLICY,
      version: 1,
      tombstone: false,
      organisationId,
      workspaceId: ws.id,
      body: {
        $case: 'rateLimitPolicy',
        value: {
          name: 'Tokens per hour',
          type: RateLimitType.TOKENS,
          unit: RateLimitUnit.RPH,
          value: 50000,
          conditions: [
            { key: 'workspace_id', value: ws.id },
            { key: 'metadata.team', value: 'search' },
          ],
          groupBy: [{ key: 'api_key' }, { key: 'model' }],
          status: EntityStatus.ACTIVE,
        },
      },
    });
    const audit = (await auditEvents(pg.pool)).find(
      (a) => a.action === 'rate_limits_policies.create' && a.resourceId === created.body.id,
    );
    expect(audit).toMatchObject({
      resourceType: 'rate_limits_policy',
      workspaceId: ws.id,
      outcome: AuditOutcome.SUCCESS,
      statusCode: 201,
    });
  });

  test('an admin key without workspace_id makes an organisation-level policy', async ({ cp, pg }) => {
    const id = await createPolicy(cp, 'rate-limits', rateBody({ name: 'Org wide' }));
    const got = await cp.call('get', `/policies/rate-limits/${id}`);
    expect(got.body.workspace_id).toBeNull();
    const [change] = await policyChanges(pg.pool, id);
    expect(change?.entity?.workspaceId).toBe('');
  });

  test('list: workspace (id or slug), status, type and unit filters, pagination and total', async ({
    cp,
  }) => {
    const a = await createWorkspace(cp, 'rl-list-a');
    const b = await createWorkspace(cp, 'rl-list-b');
    const inA = [
      await createPolicy(cp, 'rate-limits', rateBody({ name: 'a1', workspace_id: a.id })),
      await createPolicy(cp, 'rate-limits', rateBody({ name: 'a2', workspace_id: a.id, type: 'tokens' })),
      await createPolicy(cp, 'rate-limits', rateBody({ name: 'a3', workspace_id: a.id, unit: 'rpd' })),
    ];
    const inB = await createPolicy(cp, 'rate-limits', rateBody({ name: 'b1', workspace_id: b.slug }));
    const names = (body: { data: { name: string }[] }) => body.data.map((p) => p.name);

    const byId = await cp.call('get', `/policies/rate-limits?workspace_id=${a.id}`);
    expect(byId.status).toBe(200);
    expect(byId.body).toMatchObject({ object: 'list', total: 3 });
    expect(names(byId.body)).toEqual(['a1', 'a2', 'a3']);
    expect((await cp.call('get', `/policies/rate-limits?workspace_id=${a.slug}`)).body.total).toBe(3);
    expect(names((await cp.call('get', `/policies/rate-limits?workspace_id=${b.slug}`)).body)).toEqual([
      'b1',
    ]);

    const tokens = await cp.call('get', `/policies/rate-limits?workspace_id=${a.id}&type=tokens`);
    expect(names(tokens.body)).toEqual(['a2']);
    const daily = await cp.call('get', `/policies/rate-limits?workspace_id=${a.id}&unit=rpd`);
    expect(names(daily.body)).toEqual(['a3']);

    const page = await cp.call(
      'get',
      `/policies/rate-limits?workspace_id=${a.id}&page_size=2&current_page=1`,
    );
    expect(page.body).toMatchObject({ total: 3 });
    expect(names(page.body)).toEqual(['a3']);
    const none = await cp.call('get', `/policies/rate-limits?workspace_id=${a.id}&page_size=0`);
    expect(none.body).toEqual({ object: 'list', data: [], total: 3 });

    expect((await cp.call('delete', `/policies/rate-limits/${inA[0]}`)).status).toBe(200);
    expect(names((await cp.call('get', `/policies/rate-limits?workspace_id=${a.id}`)).body)).toEqual([
      'a2',
      'a3',
    ]);
    const archived = await cp.call('get', `/policies/rate-limits?workspace_id=${a.id}&status=archived`);
    expect(names(archived.body)).toEqual(['a1']);
    expect(archived.body.data[0].status).toBe('archived');

    const all = await cp.call('get', '/policies/rate-limits?page_size=500');
    expect(all.body.data.map((p: { id: string }) => p.id)).toEqual(expect.arrayContaining([inB, inA[1]]));

    for (const query of ['status=deleted', 'type=cost', 'unit=rps', 'page_size=-1', 'current_page=x']) {
      const bad = await cp.call('get', `/policies/rate-limits?${query}`);
      expect(bad.status, query).toBe(400);
      expect(bad.body.error.code, query).toBe('AB01');
      expect(bad.body.error.param, query).toBe(`query.${query.split('=')[0]}`);
    }
    const unknownWorkspace = await cp.call('get', '/policies/rate-limits?workspace_id=no-such-ws');
    expect(unknownWorkspace.status).toBe(404);
  });

  test('update answers 200 {} and changes name, unit and value only', async ({ cp, pg }) => {
    const id = await createPolicy(cp, 'rate-limits', rateBody());
    const updated = await cp.call('put', `/policies/rate-limits/${id}`, {
      body: { name: 'Renamed', unit: 'rph', value: 7 },
    });
    expect(updated.status).toBe(200);
    expect(updated.headers.get('content-type')).toContain('application/json');
    expect(updated.body).toEqual({});
    const got = (await cp.call('get', `/policies/rate-limits/${id}`)).body;
    expect(got).toMatchObject({ name: 'Renamed', unit: 'rph', value: 7, type: 'requests' });
    expect(Date.parse(got.last_updated_at)).toBeGreaterThanOrEqual(Date.parse(got.created_at));

    expect((await cp.call('put', `/policies/rate-limits/${id}`, { body: { value: 9 } })).body).toEqual({});
    expect((await cp.call('get', `/policies/rate-limits/${id}`)).body).toMatchObject({
      name: 'Renamed',
      value: 9,
    });

    const changes = await policyChanges(pg.pool, id);
    expect(changes.map((c) => c.entity?.version)).toEqual([1, 2, 3]);
    expect(changes[2]?.entity?.body).toMatchObject({ value: { unit: RateLimitUnit.RPH, value: 9 } });
    const audits = (await auditEvents(pg.pool)).filter(
      (a) => a.action === 'rate_limits_policies.update' && a.resourceId === id,
    );
    expect(audits.map((a) => a.statusCode)).toEqual([200, 200]);

    const noop = await cp.call('put', `/policies/rate-limits/${id}`, { body: {} });
    expect(noop.status).toBe(200);
    expect((await policyChanges(pg.pool, id)).length).toBe(3);

    for (const [body, param] of [
      [{ type: 'tokens' }, 'body'],
      [{ conditions: [] }, 'body'],
      [{ value: 0 }, 'body.value'],
      [{ value: 1.5 }, 'body.value'],
      [{ unit: 'rps' }, 'body.unit'],
      [{ name: 'x'.repeat(256) }, 'body.name'],
    ] as const) {
      const bad = await cp.call('put', `/policies/rate-limits/${id}`, { body });
      expect(bad.status, JSON.stringify(body)).toBe(400);
      expect(bad.body.error).toMatchObject({ code: 'AB01', param });
    }
  });

  test('delete archives (idempotent, 200 {}); the entity carries ARCHIVED; unknown ids are 404', async ({
    cp,
    pg,
  }) => {
    const id = await createPolicy(cp, 'rate-limits', rateBody());
    const deleted = await cp.call('delete', `/policies/rate-limits/${id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({});
    expect((await cp.call('delete', `/policies/rate-limits/${id}`)).status).toBe(200);
    expect((await cp.call('get', `/policies/rate-limits/${id}`)).body.status).toBe('archived');
    const changes = await policyChanges(pg.pool, id);
    expect(changes.map((c) => c.entity?.version)).toEqual([1, 2]);
    expect(changes[1]?.entity?.body).toMatchObject({ value: { status: EntityStatus.ARCHIVED } });
    const audits = (await auditEvents(pg.pool)).filter(
      (a) => a.action === 'rate_limits_policies.delete' && a.resourceId === id,
    );
    expect(audits).toHaveLength(2);

    for (const [method, body] of [
      ['get', undefined],
      ['put', { name: 'x' }],
      ['delete', undefined],
    ] as const) {
      const missing = await cp.call(method, `/policies/rate-limits/${MISSING}`, body ? { body } : {});
      expect(missing.status, method).toBe(404);
      expect(missing.body.error).toMatchObject({ code: 'AB08', message: 'Policy not found' });
    }
    const usage = await createPolicy(cp, 'usage-limits', {
      name: 'budget',
      conditions: [{ key: 'model', value: '*' }],
      group_by: [{ key: 'api_key' }],
      type: 'cost',
      credit_limit: 10,
    });
    expect((await cp.call('get', `/policies/rate-limits/${usage}`)).status).toBe(404);
    const malformed = await cp.call('get', '/policies/rate-limits/not-a-uuid');
    expect(malformed.status).toBe(400);
    expect(malformed.body.error).toMatchObject({ code: 'AB01', param: 'path.rateLimitsPolicyId' });
  });
});
