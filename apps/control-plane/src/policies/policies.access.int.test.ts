// Who may do what with policies: scopes, roles, tenant isolation (404 across workspaces and
// organisations, never 403) and the token rule of spec 4.1 (organisation_id and workspace_id needed).
import { randomUUID } from 'node:crypto';
import { AuditOutcome } from '@aigw/proto';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { ADMIN_KEY, apiClient, startControlPlane, test } from '../../test/harness.js';
import { auditEvents } from '../../test/outbox-rows.js';
import { tenant, userKey } from '../api-keys/api-keys.test-support.js';
import {
  type JwksServer,
  makeKey,
  signToken,
  startJwksServer,
  type TestKey,
} from '../auth/jwks.test-support.js';
import { createPolicy, createWorkspace, rateBody, serviceKey, usageBody } from './policies.test-support.js';

const ALL_POLICY_SCOPES = ['rate_limits_policies', 'usage_limits_policies'].flatMap((family) =>
  ['create', 'read', 'list', 'update', 'delete'].map((action) => `${family}.${action}`),
);

describe('policy access', () => {
  test('a workspace key works in its own workspace only; everything else is 404', async ({ cp }) => {
    const a = await createWorkspace(cp, 'acc-a');
    const b = await createWorkspace(cp, 'acc-b');
    const key = await serviceKey(cp, a.id, ALL_POLICY_SCOPES);
    const inB = await createPolicy(cp, 'rate-limits', rateBody({ workspace_id: b.id }));
    const orgLevel = await createPolicy(cp, 'usage-limits', usageBody());

    const own = await createPolicy(cp, 'rate-limits', rateBody({ name: 'mine' }), key);
    const mine = await cp.call('get', `/policies/rate-limits/${own}`, { key });
    expect(mine.body.workspace_id).toBe(a.id);
    const bySlug = await cp.call('post', '/policies/rate-limits', {
      key,
      body: rateBody({ workspace_id: a.slug }),
    });
    expect(bySlug.status).toBe(201);

    const list = await cp.call('get', '/policies/rate-limits', { key });
    expect(list.body.data.every((p: { workspace_id: string }) => p.workspace_id === a.id)).toBe(true);
    expect(list.body.total).toBe(2);
    expect((await cp.call('get', '/policies/usage-limits', { key })).body.total).toBe(0);

    const elsewhere = await cp.call('post', '/policies/rate-limits', {
      key,
      body: rateBody({ workspace_id: b.id }),
    });
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.body.error.code).toBe('AB08');
    const condition = await cp.call('post', '/policies/rate-limits', {
      key,
      body: rateBody({ conditions: [{ key: 'workspace_id', value: b.slug }] }),
    });
    expect(condition.status).toBe(404);
    expect((await cp.call('get', `/policies/rate-limits?workspace_id=${b.id}`, { key })).status).toBe(404);

    for (const [method, path, body] of [
      ['get', `/policies/rate-limits/${inB}`, undefined],
      ['put', `/policies/rate-limits/${inB}`, { name: 'x' }],
      ['delete', `/policies/rate-limits/${inB}`, undefined],
      ['get', `/policies/rate-limits/${inB}/entities`, undefined],
      ['get', `/policies/usage-limits/${orgLevel}`, undefined],
      ['put', `/policies/usage-limits/${orgLevel}`, { credit_limit: 1000 }],
    ] as const) {
      const hidden = await cp.call(method, path, { key, ...(body ? { body } : {}) });
      expect(hidden.status, `${method} ${path}`).toBe(404);
      expect(hidden.body.error, `${method} ${path}`).toMatchObject({
        code: 'AB08',
        message: 'Policy not found',
      });
    }
    expect((await cp.call('get', `/policies/rate-limits/${inB}`)).body.name).toBe('Per key');
  });

  test("another organisation's policy is 404 to the admin key", async ({ cp, pg }) => {
    const orgId = randomUUID();
    await pg.pool.query("insert into control.organisations (id, name, slug) values ($1, 'Other', $2)", [
      orgId,
      `other-${orgId.slice(0, 8)}`,
    ]);
    const id = randomUUID();
    await pg.pool.query(
      `insert into control.policies (id, kind, organisation_id, name, type, conditions, group_by, unit, value)
       values ($1, 'rate_limits', $2, 'theirs', 'requests', '[{"key":"model","value":"*"}]', '[{"key":"api_key"}]', 'rpm', 5)`,
      [id, orgId],
    );
    expect((await cp.call('get', `/policies/rate-limits/${id}`)).status).toBe(404);
    expect((await cp.call('put', `/policies/rate-limits/${id}`, { body: { value: 1 } })).status).toBe(404);
    const list = await cp.call('get', '/policies/rate-limits?page_size=500');
    expect(list.body.data.map((p: { id: string }) => p.id)).not.toContain(id);
  });

  test('each route needs its scope; members may read but not write; refusals are audited', async ({
    cp,
    pg,
  }) => {
    const ws = await createWorkspace(cp, 'acc-scopes');
    const id = await createPolicy(cp, 'usage-limits', usageBody({ workspace_id: ws.id }));
    const rate = await createPolicy(cp, 'rate-limits', rateBody({ workspace_id: ws.id }));
    const listOnly = await serviceKey(cp, ws.id, ['rate_limits_policies.list', 'usage_limits_policies.read']);

    expect((await cp.call('get', '/policies/rate-limits', { key: listOnly })).status).toBe(200);
    const checks = [
      ['post', '/policies/rate-limits', rateBody(), 'rate_limits_policies.create'],
      ['get', `/policies/rate-limits/${rate}`, undefined, 'rate_limits_policies.read'],
      ['get', `/policies/rate-limits/${rate}/entities`, undefined, 'rate_limits_policies.read'],
      ['put', `/policies/rate-limits/${rate}`, { value: 1 }, 'rate_limits_policies.update'],
      ['delete', `/policies/rate-limits/${rate}`, undefined, 'rate_limits_policies.delete'],
      ['get', '/policies/usage-limits', undefined, 'usage_limits_policies.list'],
      ['post', '/policies/usage-limits', usageBody(), 'usage_limits_policies.create'],
      ['put', `/policies/usage-limits/${id}`, { credit_limit: 5 }, 'usage_limits_policies.update'],
      ['delete', `/policies/usage-limits/${id}`, undefined, 'usage_limits_policies.delete'],
      [
        'post',
        `/policies/usage-limits/${id}/entities/${ws.id}/reset`,
        undefined,
        'usage_limits_policies.update',
      ],
    ] as const;
    for (const [method, path, body, scope] of checks) {
      const refused = await cp.call(method, path, { key: listOnly, ...(body ? { body } : {}) });
      expect(refused.status, `${method} ${path}`).toBe(403);
      expect(refused.body.error, `${method} ${path}`).toMatchObject({
        code: 'AB03',
        message: `missing scope ${scope}`,
      });
    }
    expect((await cp.call('get', `/policies/usage-limits/${id}`, { key: listOnly })).status).toBe(200);

    const t = await tenant(cp, pg.pool);
    const member = await t.user('member');
    await t.member(ws.id, member, 'member');
    const memberKey = (await userKey(cp, ws.id, member, { scopes: ALL_POLICY_SCOPES })).key;
    expect((await cp.call('get', `/policies/usage-limits/${id}`, { key: memberKey })).status).toBe(200);
    for (const [method, path, body] of [
      ['post', '/policies/usage-limits', usageBody()],
      ['put', `/policies/usage-limits/${id}`, { name: 'x' }],
      ['delete', `/policies/rate-limits/${rate}`, undefined],
    ] as const) {
      const refused = await cp.call(method, path, { key: memberKey, ...(body ? { body } : {}) });
      expect(refused.status, `${method} ${path}`).toBe(403);
      expect(refused.body.error.code).toBe('AB03');
    }
    const manager = await t.user('member');
    await t.member(ws.id, manager, 'manager');
    const managerKey = (await userKey(cp, ws.id, manager, { scopes: ALL_POLICY_SCOPES })).key;
    expect(
      (await cp.call('put', `/policies/usage-limits/${id}`, { key: managerKey, body: { name: 'm' } })).status,
    ).toBe(200);

    const refusals = (await auditEvents(pg.pool)).filter(
      (a) => a.action === 'usage_limits_policies.create' && a.outcome === AuditOutcome.FAILURE,
    );
    expect(refusals.map((a) => a.statusCode)).toEqual([403, 403]);
  });
});

describe('token callers (spec 4.1: organisation_id and workspace_id needed without an API key)', () => {
  let jwks: JwksServer;
  let signing: TestKey;
  beforeAll(async () => {
    signing = await makeKey('RS256', 'policies');
    jwks = await startJwksServer([signing.jwk]);
  });
  afterAll(() => jwks.close());

  test('a token must name both; an API key may omit them', async ({ pg, nats }) => {
    const { app } = startControlPlane(
      { pg, nats },
      { JWT_JWKS_URL: jwks.url, JWT_ISSUER: 'https://idp.policies.test', JWT_AUDIENCE: 'aigw-admin' },
    );
    await app.start();
    try {
      const call = apiClient(`http://127.0.0.1:${app.ports.http}`, ADMIN_KEY);
      const organisationId = (await call('get', '/organisation')).body.id;
      const ws = (await call('post', '/workspaces', { body: { name: 'jwt', slug: 'jwt' } })).body;
      const now = Math.floor(Date.now() / 1000);
      const token = await signToken(signing, {
        iss: 'https://idp.policies.test',
        aud: 'aigw-admin',
        iat: now,
        exp: now + 300,
        sub: 'owner-by-token',
        organisation_id: organisationId,
        role: 'owner',
        scope: 'rate_limits_policies.create rate_limits_policies.read',
      });
      const asToken = (body: Record<string, unknown>) =>
        call('post', '/policies/rate-limits', { key: null, token, body: rateBody(body) });

      const noOrg = await asToken({ workspace_id: ws.id });
      expect(noOrg.status).toBe(400);
      expect(noOrg.body.error).toMatchObject({ code: 'AB01', param: 'body.organisation_id' });
      const noWorkspace = await asToken({ organisation_id: organisationId });
      expect(noWorkspace.body.error).toMatchObject({ code: 'AB01', param: 'body.workspace_id' });
      const wrongOrg = await asToken({ organisation_id: randomUUID(), workspace_id: ws.id });
      expect(wrongOrg.status).toBe(404);
      const ok = await asToken({ organisation_id: organisationId, workspace_id: 'jwt' });
      expect(ok.status).toBe(201);
      const got = await call('get', `/policies/rate-limits/${ok.body.id}`, { key: null, token });
      expect(got.body).toMatchObject({ organisation_id: organisationId, workspace_id: ws.id });

      expect((await call('post', '/policies/rate-limits', { body: rateBody() })).status).toBe(201);
    } finally {
      await app.stop();
    }
  });
});
