import { describe, expect } from 'vitest';
import { test } from '../../test/harness.js';
import { WORKSPACE_SCOPES } from '../auth/scopes.js';
import { otherOrganisation, tenant, userKey } from './api-keys.test-support.js';

const DAY = 24 * 60 * 60 * 1000;
const inDays = (days: number) => new Date(Date.now() + days * DAY).toISOString();

describe('creating workspace keys', () => {
  test('owners and admins create user keys for members of any workspace; the key works there only', async ({
    cp,
    pg,
  }) => {
    const t = await tenant(cp, pg.pool);
    const ws = await t.workspace('alpha');
    const other = await t.workspace('beta');
    const user = await t.user();
    await t.member(ws, user, 'member');

    const created = await cp.call('post', '/api-keys/workspace/user', {
      body: {
        name: 'alice',
        workspace_id: 'alpha',
        user_id: user,
        scopes: ['api_keys.read', 'logs.view', 'mcp.invoke'],
      },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      type: 'workspace',
      workspace_id: ws,
      user_id: user,
      object: 'api-key',
    });
    const key: string = created.body.key;

    expect((await cp.call('get', `/api-keys/${created.body.id}`, { key })).status).toBe(200);
    expect((await cp.call('get', '/organisation', { key })).status).toBe(403);

    const admin = await t.user('admin');
    const forAdmin = await cp.call('post', '/api-keys/workspace/user', {
      body: { name: 'admin in beta', workspace_id: other, user_id: admin, scopes: ['logs.view'] },
    });
    expect(forAdmin.status).toBe(201);

    const noUser = await cp.call('post', '/api-keys/workspace/user', {
      body: { name: 'x', workspace_id: ws, scopes: ['logs.view'] },
    });
    expect(noUser.status).toBe(400);
    expect(noUser.body.error.param).toBe('body.user_id');

    const orgScope = await cp.call('post', '/api-keys/workspace/user', {
      body: { name: 'x', workspace_id: ws, user_id: user, scopes: ['logs.view', 'workspaces.create'] },
    });
    expect(orgScope.status).toBe(400);
    expect(orgScope.body.error.message).toContain('workspaces.create');

    const notMember = await t.user();
    const outsider = await cp.call('post', '/api-keys/workspace/user', {
      body: { name: 'x', workspace_id: ws, user_id: notMember, scopes: ['logs.view'] },
    });
    expect(outsider.status).toBe(404);
    expect(outsider.body.error.code).toBe('AB02');

    const foreignOrg = await otherOrganisation(pg.pool);
    const foreignUser = await (await tenant(cp, pg.pool, foreignOrg)).user('owner');
    const foreign = await cp.call('post', '/api-keys/workspace/user', {
      body: { name: 'x', workspace_id: ws, user_id: foreignUser, scopes: ['logs.view'] },
    });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('AB02');

    const missingWs = await cp.call('post', '/api-keys/workspace/user', {
      body: { name: 'x', workspace_id: 'no-such-ws', user_id: user, scopes: ['logs.view'] },
    });
    expect(missingWs.status).toBe(404);
    expect(missingWs.body.error.code).toBe('AB08');

    const archived = await t.workspace('gamma', { archived: true });
    await t.member(archived, user, 'member');
    const inArchived = await cp.call('post', '/api-keys/workspace/user', {
      body: { name: 'x', workspace_id: archived, user_id: user, scopes: ['logs.view'] },
    });
    expect(inArchived.status).toBe(409);
  });

  test('managers create keys in their own workspace only, never broader than themselves', async ({
    cp,
    pg,
  }) => {
    const t = await tenant(cp, pg.pool);
    const ws = await t.workspace('mgr-a');
    const wsB = await t.workspace('mgr-b');
    const manager = await t.user();
    const member = await t.user();
    const memberB = await t.user();
    await t.member(ws, manager, 'manager');
    await t.member(ws, member, 'member');
    await t.member(wsB, memberB, 'member');
    const managerScopes = ['api_keys.create', 'api_keys.read', 'logs.view', 'logs.list'];
    const managerKey = await userKey(cp, ws, manager, { scopes: managerScopes });
    const memberKey = await userKey(cp, ws, member, { scopes: WORKSPACE_SCOPES });

    const own = await cp.call('post', '/api-keys/workspace/user', {
      key: managerKey.key,
      body: { name: 'mine', workspace_id: ws, scopes: ['logs.view'] },
    });
    expect(own.status).toBe(201);
    expect(own.body.user_id).toBe(manager);
    expect(own.body.created_by_user_id).toBe(manager);

    const onBehalf = await cp.call('post', '/api-keys/workspace/user', {
      key: managerKey.key,
      body: {
        name: 'for member',
        workspace_id: 'mgr-a',
        user_id: member,
        scopes: ['logs.view', 'logs.list'],
      },
    });
    expect(onBehalf.status).toBe(201);
    expect(onBehalf.body.user_id).toBe(member);

    const escalate = await cp.call('post', '/api-keys/workspace/user', {
      key: managerKey.key,
      body: { name: 'wider', workspace_id: ws, user_id: member, scopes: ['logs.view', 'logs.export'] },
    });
    expect(escalate.status).toBe(403);
    expect(escalate.body.error).toMatchObject({
      code: 'AB03',
      message: expect.stringContaining('logs.export'),
    });

    const otherWs = await cp.call('post', '/api-keys/workspace/user', {
      key: managerKey.key,
      body: { name: 'x', workspace_id: wsB, user_id: memberB, scopes: ['logs.view'] },
    });
    expect(otherWs.status).toBe(404);
    expect(otherWs.body.error.code).toBe('AB08');
    const otherWsService = await cp.call('post', '/api-keys/workspace/service', {
      key: managerKey.key,
      body: { name: 'x', workspace_id: 'mgr-b', scopes: ['logs.view'] },
    });
    expect(otherWsService.status).toBe(404);

    const service = await cp.call('post', '/api-keys/workspace/service', {
      key: managerKey.key,
      body: { name: 'svc', workspace_id: ws, scopes: ['logs.view', 'api_keys.read'] },
    });
    expect(service.status).toBe(201);
    expect(service.body).toMatchObject({ type: 'service', user_id: null, workspace_id: ws });
    expect((await cp.call('get', `/api-keys/${service.body.id}`, { key: service.body.key })).status).toBe(
      200,
    );
    const serviceWithUser = await cp.call('post', '/api-keys/workspace/service', {
      key: managerKey.key,
      body: { name: 'svc', workspace_id: ws, user_id: manager, scopes: ['logs.view'] },
    });
    expect(serviceWithUser.status).toBe(400);

    for (const path of ['/api-keys/workspace/user', '/api-keys/workspace/service']) {
      const byMember = await cp.call('post', path, {
        key: memberKey.key,
        body: { name: 'x', workspace_id: ws, scopes: ['logs.view'] },
      });
      expect(byMember.status, path).toBe(403);
      expect(byMember.body.error.code).toBe('AB03');
    }
  });

  test('the per-user key limit of a workspace is enforced', async ({ cp, pg }) => {
    const t = await tenant(cp, pg.pool);
    const ws = await t.workspace('limited', { settings: { max_api_keys_per_user: 2 } });
    const user = await t.user();
    const second = await t.user();
    await t.member(ws, user, 'member');
    await t.member(ws, second, 'member');
    const first = await userKey(cp, ws, user);
    await userKey(cp, ws, user);
    const third = await cp.call('post', '/api-keys/workspace/user', {
      body: { name: 'third', workspace_id: ws, user_id: user, scopes: ['logs.view'] },
    });
    expect(third.status).toBe(402);
    expect(third.body.error).toMatchObject({ code: 'AB09', message: expect.stringContaining('2') });

    // Other users and service keys are not counted against this user.
    await userKey(cp, ws, second);
    const service = await cp.call('post', '/api-keys/workspace/service', {
      body: { name: 'svc', workspace_id: ws, scopes: ['logs.view'] },
    });
    expect(service.status).toBe(201);

    // A disabled key still counts; a deleted one does not.
    expect((await cp.call('put', `/api-keys/${first.id}`, { body: { status: 'disabled' } })).status).toBe(
      200,
    );
    expect(
      (
        await cp.call('post', '/api-keys/workspace/user', {
          body: { name: 'x', workspace_id: ws, user_id: user, scopes: ['logs.view'] },
        })
      ).status,
    ).toBe(402);
    expect((await cp.call('delete', `/api-keys/${first.id}`)).status).toBe(200);
    await userKey(cp, ws, user);
  });

  test('workspace default and maximum expiry apply to workspace keys', async ({ cp, pg }) => {
    const t = await tenant(cp, pg.pool);
    const ws = await t.workspace('expiring', {
      settings: { api_key_default_expiry_days: 7, api_key_max_expiry_days: 30 },
    });
    const maxOnly = await t.workspace('max-only', { settings: { api_key_max_expiry_days: 10 } });
    const user = await t.user();
    await t.member(ws, user, 'member');
    await t.member(maxOnly, user, 'member');

    const defaulted = await userKey(cp, ws, user);
    const defaultedAt = Date.parse(defaulted.body.expires_at ?? '');
    expect(defaultedAt).toBeGreaterThan(Date.now() + 7 * DAY - 60_000);
    expect(defaultedAt).toBeLessThanOrEqual(Date.now() + 7 * DAY);

    const within = await cp.call('post', '/api-keys/workspace/service', {
      body: { name: 'svc', workspace_id: ws, scopes: ['logs.view'], expires_at: inDays(20) },
    });
    expect(within.status).toBe(201);
    const beyond = await cp.call('post', '/api-keys/workspace/user', {
      body: { name: 'x', workspace_id: ws, user_id: user, scopes: ['logs.view'], expires_at: inDays(31) },
    });
    expect(beyond.status).toBe(400);
    expect(beyond.body.error).toMatchObject({ code: 'AB01', param: 'body.expires_at' });

    const capped = await userKey(cp, maxOnly, user);
    expect(Date.parse(capped.body.expires_at ?? '')).toBeGreaterThan(Date.now() + 10 * DAY - 60_000);

    const never = await cp.call('put', `/api-keys/${defaulted.id}`, { body: { expires_at: null } });
    expect(never.status).toBe(400);
    const tooLate = await cp.call('put', `/api-keys/${defaulted.id}`, { body: { expires_at: inDays(40) } });
    expect(tooLate.status).toBe(400);
    const later = await cp.call('put', `/api-keys/${defaulted.id}`, { body: { expires_at: inDays(25) } });
    expect(later.status).toBe(200);

    // Admin keys are not bound by workspace settings.
    const admin = await cp.call('post', '/api-keys/organisation/service', {
      body: { name: 'long', scopes: ['logs.view'], expires_at: inDays(400) },
    });
    expect(admin.status).toBe(201);
  });
});
