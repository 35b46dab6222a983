import { randomUUID } from 'node:crypto';
import { ActorType, AuditOutcome, EntityKind, EntityStatus } from '@aigw/proto';
import { describe, expect } from 'vitest';
import { auditEvents, changeEvents } from '../../test/outbox-rows.js';
import { emailsOf, idsOf, test } from './users.test-support.js';

describe('users', () => {
  test('lists with role, email, status and page filters; gets one with its workspaces', async ({ org }) => {
    const alpha = await org.workspace('u-alpha');
    const ann = await org.join('ann@example.com', { workspaces: [{ id: 'u-alpha', role: 'manager' }] });
    const ben = await org.join('ben@example.com');
    const ownerToken = await org.token('owner', { sub: org.ownerId });
    const cat = await org.join('cat@example.com', { role: 'admin' }, { key: null, token: ownerToken });

    const all = await org.call('get', '/users');
    expect(all.status).toBe(200);
    expect(all.body.object).toBe('list');
    const emails = emailsOf(all.body);
    expect(emails).toEqual(
      expect.arrayContaining(['owner@example.com', 'ann@example.com', 'ben@example.com']),
    );
    expect(all.body.total).toBe(all.body.data.length);

    const admins = await org.call('get', '/users?role=admin');
    expect(idsOf(admins.body)).toEqual([cat.id]);
    const privileged = await org.call('get', '/users?role=owner,admin');
    expect(emailsOf(privileged.body).sort()).toEqual(['cat@example.com', 'owner@example.com']);
    const byEmail = await org.call('get', '/users?email=ANN@Example.com');
    expect(byEmail.body).toMatchObject({ total: 1, data: [{ id: ann.id }] });
    const page = await org.call('get', '/users?page_size=1&current_page=1');
    expect(page.body.data).toHaveLength(1);
    expect(page.body.total).toBe(all.body.total);
    expect(page.body.data[0].id).toBe(all.body.data[1].id);

    const got = await org.call('get', `/users/${ann.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({
      id: ann.id,
      object: 'user',
      email: 'ann@example.com',
      role: 'member',
      status: 'active',
      workspaces: [{ id: alpha, slug: 'u-alpha', role: 'manager' }],
    });
    expect(typeof got.body.created_at).toBe('string');
    expect(typeof got.body.last_updated_at).toBe('string');
    expect((await org.call('get', `/users/${ben.id}`)).body.workspaces).toEqual([]);

    const unknown = await org.call('get', `/users/${randomUUID()}`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('AB08');
    expect((await org.call('get', '/users/not-a-uuid')).status).toBe(400);

    for (const query of [
      'role=owner,root',
      "role=admin'--",
      'status=gone',
      'page_size=501',
      'role=a&role=b',
      'current_page=-1',
    ]) {
      const response = await org.call('get', `/users?${query}`);
      expect([query, response.status, response.body.error?.code]).toEqual([query, 400, 'AB01']);
    }
    for (const email of ["x' OR '1'='1", 'ann@example.com; --', '%', '_nn@example.com']) {
      const response = await org.call('get', `/users?email=${encodeURIComponent(email)}`);
      expect([email, response.status, response.body.total]).toEqual([email, 200, 0]);
    }
  });

  test('updates names and roles within the role rules, auditing each change', async ({ org }) => {
    const dan = await org.join('dan@example.com');
    const eli = await org.join('eli@example.com');
    const ownerToken = await org.token('owner', { sub: org.ownerId });

    const renamed = await org.call('put', `/users/${dan.id}`, {
      body: { first_name: ' Dan ', last_name: 'Brown' },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ first_name: 'Dan', last_name: 'Brown', role: 'member' });
    const version = await org.pool.query('select version from control.users where id = $1', [dan.id]);
    expect(version.rows[0].version).toBe('2');

    const promoteByAdmin = await org.call('put', `/users/${dan.id}`, { body: { role: 'admin' } });
    expect(promoteByAdmin.status).toBe(403);
    expect(promoteByAdmin.body.error).toMatchObject({
      code: 'AB03',
      message: 'only an owner may grant or remove the admin role',
    });
    const sameRole = await org.call('put', `/users/${dan.id}`, { body: { role: 'member' } });
    expect(sameRole.status).toBe(200);

    const promoted = await org.call('put', `/users/${dan.id}`, {
      key: null,
      token: ownerToken,
      body: { role: 'admin' },
    });
    expect(promoted.status).toBe(200);
    expect(promoted.body.role).toBe('admin');
    const adminRename = await org.call('put', `/users/${dan.id}`, { body: { last_name: 'Green' } });
    expect(adminRename.status).toBe(200);
    const demoteByAdmin = await org.call('put', `/users/${dan.id}`, { body: { role: 'member' } });
    expect(demoteByAdmin.status).toBe(403);
    const ownerByAdmin = await org.call('put', `/users/${org.ownerId}`, { body: { first_name: 'Boss' } });
    expect(ownerByAdmin.status).toBe(403);
    expect(ownerByAdmin.body.error.message).toBe('only an owner may change an owner');

    for (const body of [
      {},
      { role: 'owner' },
      { role: 'manager' },
      { email: 'x@example.com' },
      { first_name: 'x'.repeat(256) },
    ]) {
      const response = await org.call('put', `/users/${eli.id}`, { body });
      expect([JSON.stringify(body), response.status]).toEqual([JSON.stringify(body), 400]);
    }
    expect((await org.call('put', `/users/${randomUUID()}`, { body: { first_name: 'x' } })).status).toBe(404);

    const audits = (await auditEvents(org.pool)).filter(
      (a) => a.action === 'users.update' && a.resourceId === dan.id,
    );
    expect(audits.map((a) => [a.outcome, a.statusCode])).toEqual([
      [AuditOutcome.SUCCESS, 200],
      [AuditOutcome.FAILURE, 403],
      [AuditOutcome.SUCCESS, 200],
      [AuditOutcome.SUCCESS, 200],
      [AuditOutcome.SUCCESS, 200],
      [AuditOutcome.FAILURE, 403],
    ]);
    expect(audits[0]?.actor).toMatchObject({ type: ActorType.API_KEY, apiKeyId: org.adminKeyId });
    expect(audits[3]?.actor).toMatchObject({ type: ActorType.USER, userId: org.ownerId });
    expect(JSON.parse(audits[3]?.requestDetailsJson ?? '{}').body).toEqual({ role: 'admin' });
  });

  test('the last owner can never be demoted or removed', async ({ org }) => {
    const ownerToken = await org.token('owner', { sub: org.ownerId });
    const demote = await org.call('put', `/users/${org.ownerId}`, {
      key: null,
      token: ownerToken,
      body: { role: 'admin' },
    });
    expect(demote.status).toBe(409);
    expect(demote.body.error).toMatchObject({
      code: 'AB07',
      message: 'the last owner of the organisation cannot be demoted',
    });
    const remove = await org.call('delete', `/users/${org.ownerId}`, { key: null, token: ownerToken });
    expect(remove.status).toBe(409);
    expect(remove.body.error.code).toBe('AB07');
    const rename = await org.call('put', `/users/${org.ownerId}`, {
      key: null,
      token: ownerToken,
      body: { first_name: 'Olive' },
    });
    expect(rename.status).toBe(200);
    expect((await org.call('delete', `/users/${org.ownerId}`)).status).toBe(403);

    // Owners cannot be made through the API: a second one is inserted, then one of the two may go.
    const second = randomUUID();
    await org.pool.query(
      "insert into control.users (id, organisation_id, email, role) values ($1, $2, 'second-owner@example.com', 'owner')",
      [second, org.organisationId],
    );
    const demoted = await org.call('put', `/users/${second}`, {
      key: null,
      token: ownerToken,
      body: { role: 'member' },
    });
    expect(demoted.status).toBe(200);
    expect(demoted.body.role).toBe('member');
    expect((await org.call('delete', `/users/${org.ownerId}`, { key: null, token: ownerToken })).status).toBe(
      409,
    );
    const owners = await org.pool.query(
      "select id from control.users where role = 'owner' and status = 'active'",
    );
    expect(owners.rows).toEqual([{ id: org.ownerId }]);

    // Two owners demoting each other at once: the owner locks serialise them, one of them stays.
    const third = randomUUID();
    await org.pool.query(
      "insert into control.users (id, organisation_id, email, role) values ($1, $2, 'third-owner@example.com', 'owner')",
      [third, org.organisationId],
    );
    const race = await Promise.all(
      [org.ownerId, third].map((id) =>
        org.call('put', `/users/${id}`, { key: null, token: ownerToken, body: { role: 'admin' } }),
      ),
    );
    expect(race.map((r) => r.status).sort()).toEqual([200, 409]);
    const left = await org.pool.query(
      "select count(*)::int as n from control.users where role = 'owner' and status = 'active'",
    );
    expect(left.rows[0].n).toBe(1);
  });

  test('removing a user disables its API keys, drops its memberships, and can be undone by a new invite', async ({
    org,
  }) => {
    const omega = await org.workspace('u-omega');
    const fay = await org.join('fay@example.com', { workspaces: [{ id: omega, role: 'member' }] });
    const adminKey = await org.apiKey({ type: 'admin', userId: fay.id });
    const workspaceKey = await org.apiKey({ type: 'workspace', workspaceId: omega, userId: fay.id });
    const other = await org.apiKey({ type: 'service', workspaceId: omega });
    expect((await org.call('get', '/organisation', { key: adminKey.key })).status).toBe(200);
    expect((await org.call('get', '/organisation', { key: workspaceKey.key })).status).toBe(403);

    const removed = await org.call('delete', `/users/${fay.id}`);
    expect(removed.status).toBe(200);
    expect(removed.body).toMatchObject({ id: fay.id, object: 'user', status: 'removed', workspaces: [] });

    for (const key of [adminKey, workspaceKey]) {
      const response = await org.call('get', '/organisation', { key: key.key });
      expect(response.status).toBe(401);
      expect(response.body.error.code).toBe('AB05');
    }
    const keys = await org.pool.query(
      'select id, status, version from control.api_keys where user_id = $1 order by id',
      [fay.id],
    );
    expect(keys.rows.map((r) => [r.status, r.version])).toEqual([
      ['disabled', '2'],
      ['disabled', '2'],
    ]);
    const untouched = await org.pool.query('select status, version from control.api_keys where id = $1', [
      other.id,
    ]);
    expect(untouched.rows[0]).toEqual({ status: 'active', version: '1' });
    const changes = (await changeEvents(org.pool)).filter(
      (c) => c.entity?.kind === EntityKind.API_KEY && [adminKey.id, workspaceKey.id].includes(c.entity.id),
    );
    expect(changes).toHaveLength(2);
    for (const change of changes) {
      expect(change.entity?.version).toBe(2);
      expect(change.entity?.body).toMatchObject({
        $case: 'apiKey',
        value: { status: EntityStatus.DISABLED, userId: fay.id },
      });
      expect(change.actor).toMatchObject({ type: ActorType.API_KEY, apiKeyId: org.adminKeyId });
    }
    const members = await org.pool.query(
      'select count(*)::int as n from control.workspace_members where user_id = $1',
      [fay.id],
    );
    expect(members.rows[0].n).toBe(0);

    expect((await org.call('get', `/users/${fay.id}`)).body.status).toBe('removed');
    expect((await org.call('get', '/users?email=fay@example.com')).body.total).toBe(0);
    expect((await org.call('get', '/users?email=fay@example.com&status=removed')).body.total).toBe(1);
    expect((await org.call('put', `/users/${fay.id}`, { body: { first_name: 'F' } })).status).toBe(409);
    expect((await org.call('delete', `/users/${fay.id}`)).status).toBe(409);

    const audit = (await auditEvents(org.pool)).find(
      (a) => a.action === 'users.delete' && a.resourceId === fay.id,
    );
    expect(audit).toMatchObject({
      organisationId: org.organisationId,
      resourceType: 'user',
      outcome: AuditOutcome.SUCCESS,
      actor: { apiKeyId: org.adminKeyId },
    });

    const back = await org.join('fay@example.com', { workspaces: [{ id: omega, role: 'manager' }] });
    expect(back).toMatchObject({
      id: fay.id,
      status: 'active',
      workspaces: [{ id: omega, role: 'manager' }],
    });
    expect((await org.call('get', '/organisation', { key: adminKey.key })).status).toBe(401);
  });
});
