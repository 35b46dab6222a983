import { AuditOutcome } from '@aigw/proto';
import { describe, expect } from 'vitest';
import { auditEvents } from '../../test/outbox-rows.js';
import { test } from '../users/users.test-support.js';

describe('user invite access and validation', () => {
  test('only owners invite admins; admins invite members', async ({ org }) => {
    const byAdminKey = await org.call('post', '/user-invites', {
      body: { email: 'root@example.com', role: 'admin' },
    });
    expect(byAdminKey.status).toBe(403);
    expect(byAdminKey.body.error).toMatchObject({
      code: 'AB03',
      message: 'only an owner may invite an admin',
    });
    const adminToken = await org.token('admin');
    const byAdminToken = await org.call('post', '/user-invites', {
      key: null,
      token: adminToken,
      body: { email: 'root@example.com', role: 'admin' },
    });
    expect(byAdminToken.status).toBe(403);
    const asMember = await org.call('post', '/user-invites', {
      key: null,
      token: adminToken,
      body: { email: 'plain@example.com', role: 'member' },
    });
    expect(asMember.status).toBe(201);

    const ownerToken = await org.token('owner', { sub: org.ownerId });
    const byOwner = await org.call('post', '/user-invites', {
      key: null,
      token: ownerToken,
      body: { email: 'root@example.com', role: 'admin', expires_in_days: 30 },
    });
    expect(byOwner.status).toBe(201);
    expect(byOwner.body).toMatchObject({
      role: 'admin',
      invited_by_user_id: org.ownerId,
      invited_by_api_key_id: null,
    });
    expect((await org.call('post', `/user-invites/${byOwner.body.id}/resend`)).status).toBe(403);
    const joined = await org.call('post', '/user-invites/accept', {
      key: null,
      body: { token: byOwner.body.accept_token },
    });
    expect(joined.body.role).toBe('admin');

    const refused = (await auditEvents(org.pool)).filter(
      (a) =>
        a.action === 'user_invites.create' &&
        a.outcome === AuditOutcome.FAILURE &&
        a.requestDetailsJson.includes('root@example.com'),
    );
    expect(refused.map((a) => a.statusCode)).toEqual([403, 403]);
  });

  test('bad input is 400, unknown references 404, and odd values never reach SQL', async ({ org }) => {
    await org.workspace('gamma');
    await org.workspace('archived-ws', 'archived');
    const cases: [unknown, number, string][] = [
      [{ email: 'not-an-email', role: 'member' }, 400, 'AB01'],
      [{ email: "x'--@example.com; drop table users", role: 'member' }, 400, 'AB01'],
      [{ email: 'a@example.com', role: 'owner' }, 400, 'AB01'],
      [{ email: 'a@example.com' }, 400, 'AB01'],
      [{ email: 'a@example.com', role: 'member', expires_in_days: 0 }, 400, 'AB01'],
      [{ email: 'a@example.com', role: 'member', expires_in_days: 31 }, 400, 'AB01'],
      [{ email: 'a@example.com', role: 'member', colour: 'red' }, 400, 'AB01'],
      [
        { email: 'a@example.com', role: 'member', workspaces: [{ id: "gamma' or 1=1", role: 'member' }] },
        400,
        'AB01',
      ],
      [{ email: 'a@example.com', role: 'member', workspaces: [{ id: 'gamma', role: 'admin' }] }, 400, 'AB01'],
      [
        {
          email: 'a@example.com',
          role: 'member',
          workspaces: [
            { id: 'gamma', role: 'member' },
            { id: 'gamma', role: 'manager' },
          ],
        },
        400,
        'AB01',
      ],
      [
        { email: 'a@example.com', role: 'member', workspaces: [{ id: 'nowhere', role: 'member' }] },
        404,
        'AB02',
      ],
      [
        { email: 'a@example.com', role: 'member', workspaces: [{ id: 'archived-ws', role: 'member' }] },
        409,
        'AB07',
      ],
    ];
    for (const [body, status, code] of cases) {
      const response = await org.call('post', '/user-invites', { body });
      expect([JSON.stringify(body), response.status, response.body.error?.code]).toEqual([
        JSON.stringify(body),
        status,
        code,
      ]);
    }
    expect((await org.call('get', '/user-invites?email=a@example.com')).body.total).toBe(0);

    for (const query of [
      'status=bogus',
      "status=pending'--",
      'status=',
      'page_size=-1',
      'page_size=abc',
      'status=a&status=b',
    ]) {
      const response = await org.call('get', `/user-invites?${query}`);
      expect([query, response.status]).toEqual([query, 400]);
    }
    const injected = await org.call('get', `/user-invites?email=${encodeURIComponent("x' OR '1'='1")}`);
    expect(injected.status).toBe(200);
    expect(injected.body).toEqual({ object: 'list', data: [], total: 0 });

    expect((await org.call('get', '/user-invites/not-a-uuid')).status).toBe(400);
    const unknown = await org.call('get', '/user-invites/00000000-0000-4000-8000-000000000000');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('AB08');
    expect((await org.call('delete', '/user-invites/00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await org.call('post', '/user-invites/00000000-0000-4000-8000-000000000000/resend')).status).toBe(
      404,
    );

    for (const body of [{}, { token: '' }, { token: 'x', role: 'owner' }, { token: 42 }]) {
      const response = await org.call('post', '/user-invites/accept', { key: null, body });
      expect([JSON.stringify(body), response.status]).toEqual([JSON.stringify(body), 400]);
    }
    for (const token of ["' or 1=1 --", 'aigw_invite_unknown', 'x'.repeat(512)]) {
      const response = await org.call('post', '/user-invites/accept', { key: null, body: { token } });
      expect(response.status).toBe(404);
    }
  });

  test('workspace-bound callers get 403 on every invite route; accepting needs no credentials', async ({
    org,
  }) => {
    const delta = await org.workspace('delta');
    const service = await org.apiKey({ type: 'service', workspaceId: delta });
    const managerToken = await org.token('manager', { workspaceId: delta });
    const invite = await org.call('post', '/user-invites', {
      body: { email: 'dee@example.com', role: 'member' },
    });
    const id = invite.body.id;
    const calls: [string, string, unknown][] = [
      ['post', '/user-invites', { email: 'eve@example.com', role: 'member' }],
      ['get', '/user-invites', undefined],
      ['get', `/user-invites/${id}`, undefined],
      ['delete', `/user-invites/${id}`, undefined],
      ['post', `/user-invites/${id}/resend`, {}],
    ];
    for (const [method, path, body] of calls) {
      for (const credentials of [{ key: service.key }, { key: null, token: managerToken }]) {
        const response = await org.call(method, path, { ...credentials, body });
        expect([method, path, response.status, response.body.error?.code]).toEqual([
          method,
          path,
          403,
          'AB03',
        ]);
      }
    }
    expect((await org.call('get', `/user-invites/${id}`)).body.status).toBe('pending');

    const openapi = await org.call('get', '/openapi.json', { key: null });
    expect(openapi.body.paths['/user-invites/accept'].post.security).toEqual([]);
    expect(openapi.body.paths['/user-invites'].post['x-required-scope']).toBe('user_invites.create');
    // A key is ignored by the public route: the token alone decides.
    const accepted = await org.call('post', '/user-invites/accept', {
      key: service.key,
      body: { token: invite.body.accept_token },
    });
    expect(accepted.status).toBe(201);
  });
});
