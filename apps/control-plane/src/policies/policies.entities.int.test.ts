// The entities a policy is attached to (workspaces, API keys, users matched on their attributes),
// and the per-entity usage reset of usage limits policies.
import { describe, expect } from 'vitest';
import type { ControlPlaneFixture } from '../../test/harness.js';
import { test } from '../../test/harness.js';
import { auditEvents } from '../../test/outbox-rows.js';
import { activeAlerts, insertAlert } from '../alerts/alerts.test-support.js';
import { tenant, userKey } from '../api-keys/api-keys.test-support.js';
import { createPolicy, createWorkspace, rateBody, usageBody } from './policies.test-support.js';

const SCOPES = ['rate_limits_policies.read'];

async function entities(cp: ControlPlaneFixture, kind: string, id: string, query = '') {
  const response = await cp.call('get', `/policies/${kind}/${id}/entities${query}`);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body as { object: string; data: { object: string; id: string }[]; total: number };
}

const ids = (body: { data: { id: string }[] }) => body.data.map((e) => e.id);

describe('policy entities', () => {
  test('workspaces, API keys and users are matched on their own attributes', async ({ cp, pg }) => {
    const t = await tenant(cp, pg.pool);
    const a = await createWorkspace(cp, 'ent-a');
    const b = await createWorkspace(cp, 'ent-b');
    await cp.call('put', `/workspaces/${a.id}`, { body: { default_metadata: { team: 'search' } } });
    const uA = await t.user('member');
    const uB = await t.user('member');
    await t.member(a.id, uA, 'member');
    await t.member(b.id, uB, 'member');
    const kA1 = await cp.call('post', '/api-keys/workspace/service', {
      body: { name: 'kA1', workspace_id: a.id, scopes: SCOPES, defaults: { metadata: { team: 'search' } } },
    });
    const kA2 = await userKey(cp, a.id, uA, { scopes: SCOPES });
    const kB = await cp.call('post', '/api-keys/workspace/service', {
      body: { name: 'kB', workspace_id: b.id, scopes: SCOPES },
    });
    const uBEmail = `${uB}@example.com`;

    const inA = await createPolicy(cp, 'rate-limits', rateBody({ workspace_id: a.id }));
    const listed = await entities(cp, 'rate-limits', inA);
    expect(listed.object).toBe('list');
    expect(listed.data).toEqual([
      { object: 'workspace', id: a.id, name: 'ent-a', slug: 'ent-a' },
      {
        object: 'api-key',
        id: kA1.body.id,
        name: 'kA1',
        type: 'service',
        workspace_id: a.id,
        user_id: null,
      },
      { object: 'api-key', id: kA2.id, name: 'user key', type: 'workspace', workspace_id: a.id, user_id: uA },
      {
        object: 'user',
        id: uA,
        email: `${uA}@example.com`,
        first_name: '',
        last_name: '',
      },
    ]);
    expect(listed.total).toBe(4);
    const page = await entities(cp, 'rate-limits', inA, '?page_size=2&current_page=1');
    expect(ids(page)).toEqual([kA2.id, uA]);
    expect(page.total).toBe(4);

    const byKey = await createPolicy(
      cp,
      'rate-limits',
      rateBody({ conditions: [{ key: 'api_key', value: kA2.id }] }),
    );
    expect(ids(await entities(cp, 'rate-limits', byKey))).toEqual([a.id, kA2.id, uA]);

    const byMetadata = await createPolicy(
      cp,
      'usage-limits',
      usageBody({ conditions: [{ key: 'metadata.team', value: 'search' }] }),
    );
    expect(ids(await entities(cp, 'usage-limits', byMetadata))).toEqual([a.id, kA1.body.id]);

    const byUser = await createPolicy(
      cp,
      'rate-limits',
      rateBody({ conditions: [{ key: 'metadata._user', value: uBEmail }] }),
    );
    expect(ids(await entities(cp, 'rate-limits', byUser))).toEqual([uB]);

    const byWorkspace = await createPolicy(
      cp,
      'rate-limits',
      rateBody({
        conditions: [
          { key: 'workspace_id', value: b.slug },
          { key: 'model', value: 'gpt-4o' },
        ],
      }),
    );
    expect(ids(await entities(cp, 'rate-limits', byWorkspace))).toEqual([b.id, kB.body.id, uB]);

    const everything = await createPolicy(cp, 'rate-limits', rateBody());
    const all = await entities(cp, 'rate-limits', everything, '?page_size=500');
    expect(ids(all)).toEqual(expect.arrayContaining([a.id, b.id, kA1.body.id, kA2.id, kB.body.id, uA, uB]));
    expect(all.total).toBe(all.data.length);

    const archivedKey = await cp.call('delete', `/api-keys/${kA1.body.id}`);
    expect(archivedKey.status).toBe(200);
    expect(ids(await entities(cp, 'usage-limits', byMetadata))).toEqual([a.id]);

    const missing = await cp.call(
      'get',
      '/policies/rate-limits/00000000-0000-4000-8000-000000000000/entities',
    );
    expect(missing.body.error).toMatchObject({ code: 'AB08', message: 'Policy not found' });
    expect((await cp.call('get', `/policies/usage-limits/${inA}/entities`)).status).toBe(404);
  });

  test('usage reset of one attached entity: stored, alerts of its groups cleared, audited', async ({
    cp,
    pg,
  }) => {
    const t = await tenant(cp, pg.pool);
    const a = await createWorkspace(cp, 'reset-a');
    const b = await createWorkspace(cp, 'reset-b');
    const user = await t.user('member');
    await t.member(a.id, user, 'member');
    const k1 = await userKey(cp, a.id, user, { scopes: SCOPES });
    const k2 = await userKey(cp, a.id, user, { scopes: SCOPES, name: 'second' });
    const kB = await cp.call('post', '/api-keys/workspace/service', {
      body: { name: 'kB', workspace_id: b.id, scopes: SCOPES },
    });
    const id = await createPolicy(
      cp,
      'usage-limits',
      usageBody({ conditions: [{ key: 'workspace_id', value: a.id }], group_by: [{ key: 'api_key' }] }),
    );
    const org = (await cp.call('get', '/organisation')).body.id as string;
    for (const key of [k1.id, k2.id])
      for (const kind of ['threshold', 'exhausted'] as const)
        await insertAlert(pg.pool, {
          organisationId: org,
          subjectKind: 'usage_limit_policy',
          subjectId: id,
          kind,
          group: { api_key: key },
        });

    const reset = await cp.call('post', `/policies/usage-limits/${id}/entities/${k1.id}/reset`);
    expect(reset.status, JSON.stringify(reset.body)).toBe(200);
    expect(reset.body).toEqual({
      object: 'policy_usage_reset',
      policy_id: id,
      entity: { object: 'api-key', id: k1.id },
      group_by_key: 'api_key',
      group_values: [k1.id],
      reset_at: expect.any(String),
    });
    const subject = { kind: 'usage_limit_policy', id };
    const state = {
      [k1.id]: await activeAlerts(pg.pool, subject, { api_key: k1.id }),
      [k2.id]: await activeAlerts(pg.pool, subject, { api_key: k2.id }),
    };
    expect(state).toEqual({ [k1.id]: [false, false], [k2.id]: [true, true] });

    const again = await cp.call('post', `/policies/usage-limits/${id}/entities/${k1.id}/reset`, { body: {} });
    expect(again.status).toBe(200);
    const stored = await pg.pool.query(
      'select group_key, group_value, entity_kind, entity_id, reset_at from control.policy_usage_resets where policy_id = $1',
      [id],
    );
    expect(stored.rows).toHaveLength(1);
    expect(stored.rows[0]).toMatchObject({
      group_key: 'api_key',
      group_value: k1.id,
      entity_kind: 'api_key',
    });
    expect(stored.rows[0].reset_at.toISOString()).toBe(again.body.reset_at);
    const audits = (await auditEvents(pg.pool)).filter(
      (e) => e.action === 'usage_limits_policies.reset_usage',
    );
    expect(audits.map((e) => e.resourceId)).toEqual([id, id]);

    const notGrouped = await cp.call('post', `/policies/usage-limits/${id}/entities/${a.id}/reset`);
    expect(notGrouped.status).toBe(409);
    expect(notGrouped.body.error.code).toBe('AB07');
    const notAttached = await cp.call('post', `/policies/usage-limits/${id}/entities/${kB.body.id}/reset`);
    expect(notAttached.status).toBe(404);
    expect(notAttached.body.error.code).toBe('AB08');
    const withBody = await cp.call('post', `/policies/usage-limits/${id}/entities/${k1.id}/reset`, {
      body: { x: 1 },
    });
    expect(withBody.status).toBe(400);

    const perUser = await createPolicy(
      cp,
      'usage-limits',
      usageBody({ workspace_id: a.id, group_by: [{ key: 'metadata._user' }] }),
    );
    const userReset = await cp.call('post', `/policies/usage-limits/${perUser}/entities/${user}/reset`);
    expect(userReset.body).toMatchObject({
      entity: { object: 'user', id: user },
      group_by_key: 'metadata._user',
      group_values: [user, `${user}@example.com`],
    });

    await cp.call('delete', `/policies/usage-limits/${perUser}`);
    expect((await cp.call('post', `/policies/usage-limits/${perUser}/entities/${user}/reset`)).status).toBe(
      409,
    );
    const rate = await createPolicy(cp, 'rate-limits', rateBody());
    expect((await cp.call('post', `/policies/rate-limits/${rate}/entities/${k1.id}/reset`)).status).toBe(404);
  });
});
