// Workspace member routes end to end: CRUD, audit, visibility, and key disabling on removal.
import { randomUUID } from 'node:crypto';
import { AuditOutcome, EntityKind, EntityStatus } from '@aigw/proto';
import { describe, expect } from 'vitest';
import { type ControlPlaneFixture, test } from '../../test/harness.js';
import { auditEvents, changeEvents } from '../../test/outbox-rows.js';
import { insertUser, insertWorkspaceKey, organisationId } from '../workspaces/workspaces.test-support.js';

async function workspace(cp: ControlPlaneFixture, name: string): Promise<string> {
  const created = await cp.call('post', '/workspaces', { body: { name } });
  expect(created.status).toBe(201);
  return created.body.id;
}

describe('workspace members', () => {
  test('add, list, get, change role and remove; every change is audited', async ({ cp, pg }) => {
    const orgId = await organisationId(pg.pool);
    const wsId = await workspace(cp, 'Members');
    const manager = await insertUser(pg.pool, orgId);
    const member = await insertUser(pg.pool, orgId, { role: 'admin' });

    const added = await cp.call('post', `/workspaces/${wsId}/members`, {
      body: {
        users: [
          { id: manager, role: 'manager' },
          { id: member, role: 'member' },
        ],
      },
    });
    expect(added.status).toBe(201);
    expect(added.body.total).toBe(2);
    expect(added.body.data).toContainEqual(
      expect.objectContaining({
        id: manager,
        object: 'workspace_member',
        user_id: manager,
        workspace_id: wsId,
        role: 'manager',
        email: `u-${manager}@example.com`,
        organisation_role: 'member',
        user_status: 'active',
      }),
    );

    const list = await cp.call('get', '/workspaces/members/members');
    expect(list.status).toBe(200);
    expect(list.body.data.map((m: { user_id: string }) => m.user_id).sort()).toEqual(
      [manager, member].sort(),
    );
    const managers = await cp.call('get', '/workspaces/members/members?role=manager');
    expect(managers.body.data.map((m: { user_id: string }) => m.user_id)).toEqual([manager]);
    expect((await cp.call('get', `/workspaces/${wsId}/members/${member}`)).body.organisation_role).toBe(
      'admin',
    );

    const changed = await cp.call('put', `/workspaces/${wsId}/members/${member}`, {
      body: { role: 'manager' },
    });
    expect(changed.status).toBe(200);
    expect(changed.body.role).toBe('manager');
    expect(
      (await cp.call('put', `/workspaces/${wsId}/members/${member}`, { body: { role: 'owner' } })).status,
    ).toBe(400);

    const removed = await cp.call('delete', `/workspaces/${wsId}/members/${member}`);
    expect(removed.status).toBe(200);
    expect(removed.body).toMatchObject({ user_id: member, role: 'manager' });
    const gone = await cp.call('get', `/workspaces/${wsId}/members/${member}`);
    expect(gone.status).toBe(404);
    expect(gone.body.error.code).toBe('AB08');
    expect((await cp.call('delete', `/workspaces/${wsId}/members/${member}`)).status).toBe(404);
    expect(
      (await cp.call('put', `/workspaces/${wsId}/members/${member}`, { body: { role: 'member' } })).status,
    ).toBe(404);
    expect((await cp.call('get', `/workspaces/${wsId}/members`)).body.total).toBe(1);

    const audits = (await auditEvents(pg.pool)).filter((a) => a.resourceType === 'workspace_member');
    const successes = audits.filter((a) => a.outcome === AuditOutcome.SUCCESS);
    expect(successes.map((a) => [a.action, a.resourceId, a.workspaceId])).toEqual([
      ['workspace_members.create', '', wsId],
      ['workspace_members.update', member, wsId],
      ['workspace_members.delete', member, wsId],
    ]);
    expect(JSON.parse(successes[0]?.requestDetailsJson ?? '{}').body.users).toHaveLength(2);
    expect(audits.filter((a) => a.outcome === AuditOutcome.FAILURE).length).toBeGreaterThanOrEqual(3);
  });

  test('adding: users must be active in the organisation (AB02), once (AB07), all or nothing', async ({
    cp,
    pg,
  }) => {
    const orgId = await organisationId(pg.pool);
    const wsId = await workspace(cp, 'Adding');
    const user = await insertUser(pg.pool, orgId);
    const removedUser = await insertUser(pg.pool, orgId, { status: 'removed' });
    const otherOrg = randomUUID();
    await pg.pool.query("insert into control.organisations (id, name, slug) values ($1, 'Other', 'other')", [
      otherOrg,
    ]);
    const stranger = await insertUser(pg.pool, otherOrg);

    for (const id of [randomUUID(), removedUser, stranger]) {
      const refused = await cp.call('post', `/workspaces/${wsId}/members`, {
        body: {
          users: [
            { id: user, role: 'member' },
            { id, role: 'member' },
          ],
        },
      });
      expect(refused.status).toBe(404);
      expect(refused.body.error).toMatchObject({ code: 'AB02', param: 'body.users.1.id' });
    }
    expect((await cp.call('get', `/workspaces/${wsId}/members`)).body.total).toBe(0);

    expect(
      (
        await cp.call('post', `/workspaces/${wsId}/members`, {
          body: { users: [{ id: user, role: 'member' }] },
        })
      ).status,
    ).toBe(201);
    const again = await cp.call('post', `/workspaces/${wsId}/members`, {
      body: { users: [{ id: user, role: 'manager' }] },
    });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'AB07', param: 'body.users.0.id' });

    const invalidBodies = [
      { users: [] },
      { users: [{ id: user, role: 'owner' }] },
      { users: [{ id: 'not-a-uuid', role: 'member' }] },
      {
        users: [
          { id: user, role: 'member' },
          { id: user, role: 'manager' },
        ],
      },
      { user_id: user, role: 'member' },
      { users: [{ id: user, role: 'member', extra: 1 }] },
    ];
    for (const body of invalidBodies) {
      const response = await cp.call('post', `/workspaces/${wsId}/members`, { body });
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.error.code).toBe('AB01');
    }

    const unknownWs = await cp.call('post', '/workspaces/nowhere/members', {
      body: { users: [{ id: user, role: 'member' }] },
    });
    expect(unknownWs.status).toBe(404);
    expect(unknownWs.body.error.code).toBe('AB08');

    const archivedWs = await workspace(cp, 'Archived members');
    await cp.call('delete', `/workspaces/${archivedWs}`);
    const toArchived = await cp.call('post', `/workspaces/${archivedWs}/members`, {
      body: { users: [{ id: user, role: 'member' }] },
    });
    expect(toArchived.status).toBe(409);
  });

  test('a workspace-bound caller reads its own workspace members only and changes none', async ({
    cp,
    pg,
  }) => {
    const orgId = await organisationId(pg.pool);
    const mine = await workspace(cp, 'Reader');
    const other = await workspace(cp, 'Elsewhere');
    const user = await insertUser(pg.pool, orgId);
    await cp.call('post', `/workspaces/${mine}/members`, { body: { users: [{ id: user, role: 'member' }] } });
    const { key } = await insertWorkspaceKey(pg.pool, {
      orgId,
      workspaceId: mine,
      scopes: ['workspace_members.list', 'workspace_members.read'],
    });
    const list = await cp.call('get', `/workspaces/${mine}/members`, { key });
    expect(list.status).toBe(200);
    expect(list.body.data.map((m: { user_id: string }) => m.user_id)).toEqual([user]);
    expect((await cp.call('get', `/workspaces/${mine}/members/${user}`, { key })).status).toBe(200);
    const hidden = await cp.call('get', `/workspaces/${other}/members`, { key });
    expect(hidden.status).toBe(404);
    expect(hidden.body.error.code).toBe('AB08');

    const writes = [
      cp.call('post', `/workspaces/${mine}/members`, {
        key,
        body: { users: [{ id: user, role: 'manager' }] },
      }),
      cp.call('put', `/workspaces/${mine}/members/${user}`, { key, body: { role: 'manager' } }),
      cp.call('delete', `/workspaces/${mine}/members/${user}`, { key }),
    ];
    for (const response of await Promise.all(writes)) {
      expect(response.status).toBe(403);
      expect(response.body.error.code).toBe('AB03');
    }
    expect((await cp.call('get', `/workspaces/${mine}/members/${user}`)).body.role).toBe('member');
  });

  test("removing a member disables that user's keys in the workspace and tells gateways", async ({
    cp,
    pg,
  }) => {
    const orgId = await organisationId(pg.pool);
    const wsId = await workspace(cp, 'Keys');
    const otherWs = await workspace(cp, 'Keys elsewhere');
    const user = await insertUser(pg.pool, orgId);
    for (const id of [wsId, otherWs])
      await cp.call('post', `/workspaces/${id}/members`, {
        body: { users: [{ id: user, role: 'manager' }] },
      });
    const scopes = ['workspace_members.list'];
    const key = await insertWorkspaceKey(pg.pool, { orgId, workspaceId: wsId, userId: user, scopes });
    const keptKey = await insertWorkspaceKey(pg.pool, { orgId, workspaceId: otherWs, userId: user, scopes });
    const serviceKey = await insertWorkspaceKey(pg.pool, { orgId, workspaceId: wsId, scopes });
    expect((await cp.call('get', `/workspaces/${wsId}/members`, { key: key.key })).status).toBe(200);

    expect((await cp.call('delete', `/workspaces/${wsId}/members/${user}`)).status).toBe(200);

    const refused = await cp.call('get', `/workspaces/${wsId}/members`, { key: key.key });
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('AB05');
    const { rows } = await pg.pool.query<{ id: string; status: string; version: string }>(
      'select id, status, version from control.api_keys where id = any($1)',
      [[key.id, keptKey.id, serviceKey.id]],
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    expect(byId.get(key.id)).toMatchObject({ status: 'disabled', version: '2' });
    expect(byId.get(keptKey.id)).toMatchObject({ status: 'active', version: '1' });
    expect(byId.get(serviceKey.id)).toMatchObject({ status: 'active', version: '1' });
    expect((await cp.call('get', `/workspaces/${otherWs}/members`, { key: keptKey.key })).status).toBe(200);

    const testKeys = [key.id, keptKey.id, serviceKey.id];
    const keyChanges = (await changeEvents(pg.pool)).filter(
      (c) => c.entity?.kind === EntityKind.API_KEY && testKeys.includes(c.entity.id),
    );
    expect(keyChanges.map((c) => c.entity?.id)).toEqual([key.id]);
    expect(keyChanges[0]?.entity).toMatchObject({
      version: 2,
      workspaceId: wsId,
      body: { $case: 'apiKey', value: { status: EntityStatus.DISABLED, userId: user } },
    });
  });

  test('member lists: pagination and hostile filters give 400 or empty, never 500', async ({ cp, pg }) => {
    const orgId = await organisationId(pg.pool);
    const wsId = await workspace(cp, 'Paging');
    const users = [
      await insertUser(pg.pool, orgId),
      await insertUser(pg.pool, orgId),
      await insertUser(pg.pool, orgId),
    ];
    await cp.call('post', `/workspaces/${wsId}/members`, {
      body: { users: users.map((id) => ({ id, role: 'member' })) },
    });
    const all = await cp.call('get', `/workspaces/${wsId}/members`);
    expect(all.body.total).toBe(3);
    expect((await cp.call('get', `/workspaces/${wsId}/members?page_size=0`)).body).toEqual({
      object: 'list',
      data: [],
      total: 3,
    });
    const second = await cp.call('get', `/workspaces/${wsId}/members?page_size=2&current_page=1`);
    expect(second.body.data).toEqual(all.body.data.slice(2));
    expect(
      (await cp.call('get', `/workspaces/${wsId}/members?page_size=2&current_page=9`)).body.data,
    ).toEqual([]);
    for (const query of [
      'page_size=-1',
      'current_page=x',
      'role=owner',
      `role=${encodeURIComponent("member' --")}`,
    ]) {
      const response = await cp.call('get', `/workspaces/${wsId}/members?${query}`);
      expect(response.status, query).toBe(400);
      expect(response.body.error.code).toBe('AB01');
    }
    const badUser = await cp.call('get', `/workspaces/${wsId}/members/${encodeURIComponent("1' or '1'='1")}`);
    expect(badUser.status).toBe(400);
    expect((await cp.call('get', `/workspaces/${wsId}/members/${randomUUID()}`)).status).toBe(404);
  });
});
