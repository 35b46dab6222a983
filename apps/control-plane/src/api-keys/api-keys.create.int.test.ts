import { createHash } from 'node:crypto';
import { AuditOutcome, EntityStatus } from '@aigw/proto';
import { describe, expect } from 'vitest';
import { test } from '../../test/harness.js';
import { auditEvents } from '../../test/outbox-rows.js';
import { WORKSPACE_SCOPES } from '../auth/scopes.js';
import { keyChanges, otherOrganisation, tenant, userKey } from './api-keys.test-support.js';

const DAY = 24 * 60 * 60 * 1000;
const inDays = (days: number) => new Date(Date.now() + days * DAY).toISOString();

describe('creating admin API keys', () => {
  test('returns the raw key once, stores only its hash, and the key works', async ({ cp, pg }) => {
    const created = await cp.call('post', '/api-keys/organisation/service', {
      body: { name: 'CI', description: 'deploys', scopes: ['organisation.read', 'logs.view', 'logs.view'] },
    });
    expect(created.status).toBe(201);
    const { id, key } = created.body;
    expect(created.body).toMatchObject({
      object: 'api-key',
      type: 'admin',
      name: 'CI',
      description: 'deploys',
      workspace_id: null,
      user_id: null,
      scopes: ['organisation.read', 'logs.view'],
      status: 'active',
      expires_at: null,
      last4: key.slice(-4),
      masked_key: `aigw_...${key.slice(-4)}`,
    });
    expect(key).toMatch(/^aigw_[A-Za-z0-9_-]{40,}$/);
    expect(created.body).not.toHaveProperty('key_hash');

    const stored = await pg.pool.query('select key_hash from control.api_keys where id = $1', [id]);
    expect(stored.rows[0].key_hash).toBe(createHash('sha256').update(key).digest('hex'));
    expect(JSON.stringify(stored.rows[0])).not.toContain(key);

    expect((await cp.call('get', '/organisation', { key })).status).toBe(200);
    // Held scopes only: the new key has no api_keys.list.
    expect((await cp.call('get', '/api-keys', { key })).status).toBe(403);

    const fetched = await cp.call('get', `/api-keys/${id}`);
    expect(fetched.status).toBe(200);
    expect(fetched.body).not.toHaveProperty('key');
    expect(JSON.stringify(fetched.body)).not.toContain(key);

    const [change] = await keyChanges(pg.pool, id);
    expect(change?.entity).toMatchObject({ version: 1, tombstone: false });
    expect(change?.entity?.body).toMatchObject({
      $case: 'apiKey',
      value: {
        keyHash: stored.rows[0].key_hash,
        status: EntityStatus.ACTIVE,
        scopes: ['organisation.read', 'logs.view'],
      },
    });
    const audit = (await auditEvents(pg.pool)).find(
      (a) => a.action === 'api_keys.create' && a.resourceId === id,
    );
    expect(audit).toMatchObject({ resourceType: 'api_key', outcome: AuditOutcome.SUCCESS, statusCode: 201 });
    expect(audit?.requestDetailsJson).not.toContain(key);
  });

  test('refuses unknown scopes, scopes the creator lacks, and workspace-bound callers', async ({
    cp,
    pg,
  }) => {
    const unknown = await cp.call('post', '/api-keys/organisation/service', {
      body: { name: 'x', scopes: ['logs.view', 'logs.delete_everything'] },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({ code: 'AB01', param: 'body.scopes.1' });
    const empty = await cp.call('post', '/api-keys/organisation/service', {
      body: { name: 'x', scopes: [] },
    });
    expect(empty.status).toBe(400);
    const withWorkspace = await cp.call('post', '/api-keys/organisation/service', {
      body: { name: 'x', scopes: ['logs.view'], workspace_id: 'default' },
    });
    expect(withWorkspace.status).toBe(400);

    const narrow = await cp.call('post', '/api-keys/organisation/service', {
      body: { name: 'narrow', scopes: ['api_keys.create', 'logs.view'] },
    });
    expect(narrow.status).toBe(201);
    const escalate = await cp.call('post', '/api-keys/organisation/service', {
      key: narrow.body.key,
      body: { name: 'wider', scopes: ['logs.view', 'workspaces.create', 'users.delete'] },
    });
    expect(escalate.status).toBe(403);
    expect(escalate.body.error).toMatchObject({ code: 'AB03' });
    expect(escalate.body.error.message).toContain('workspaces.create, users.delete');
    const same = await cp.call('post', '/api-keys/organisation/service', {
      key: narrow.body.key,
      body: { name: 'same', scopes: ['logs.view'] },
    });
    expect(same.status).toBe(201);
    expect(same.body.created_by_api_key_id).toBe(narrow.body.id);

    const t = await tenant(cp, pg.pool);
    const ws = await t.workspace('admins-ws');
    const manager = await t.user();
    await t.member(ws, manager, 'manager');
    const managerKey = await userKey(cp, ws, manager);
    const refused = await cp.call('post', '/api-keys/organisation/service', {
      key: managerKey.key,
      body: { name: 'x', scopes: ['logs.view'] },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('AB03');
    const failures = (await auditEvents(pg.pool)).filter(
      (a) => a.action === 'api_keys.create' && a.outcome === AuditOutcome.FAILURE,
    );
    expect(failures.map((a) => a.statusCode)).toEqual(expect.arrayContaining([400, 403]));
  });

  test('validates rate and usage limits strictly and reports current_usage', async ({ cp }) => {
    const post = (body: Record<string, unknown>) =>
      cp.call('post', '/api-keys/organisation/service', {
        body: { name: 'limits', scopes: ['logs.view'], ...body },
      });

    const ok = await post({
      rate_limits: [{ type: 'requests', unit: 'rpm', value: 60 }],
      usage_limits: { type: 'cost', credit_limit: 12.5, alert_threshold: 10.25, periodic_reset: 'monthly' },
      defaults: { metadata: { team: 'core' }, config_id: 'cfg-main' },
    });
    expect(ok.status).toBe(201);
    expect(ok.body.rate_limits).toEqual([{ type: 'requests', unit: 'rpm', value: 60 }]);
    expect(ok.body.usage_limits).toEqual([
      {
        type: 'cost',
        credit_limit: 12.5,
        alert_threshold: 10.25,
        periodic_reset: 'monthly',
        current_usage: 0,
      },
    ]);
    expect(ok.body.defaults).toEqual({ metadata: { team: 'core' }, config_id: 'cfg-main' });

    const refused: [Record<string, unknown>, string][] = [
      [{ rate_limits: [{ type: 'requests', unit: 'rpm', value: 60, burst: 5 }] }, 'body.rate_limits.0'],
      [{ rate_limits: [{ type: 'requests', unit: 'rps', value: 60 }] }, 'body.rate_limits.0.unit'],
      [{ rate_limits: [{ type: 'requests', unit: 'rpm', value: 1.5 }] }, 'body.rate_limits.0.value'],
      [
        {
          rate_limits: [
            { type: 'requests', unit: 'rpm', value: 1 },
            { type: 'requests', unit: 'rpm', value: 2 },
          ],
        },
        'body.rate_limits',
      ],
      [{ usage_limits: { type: 'tokens', credit_limit: 10.5 } }, 'body.usage_limits'],
      [{ usage_limits: { credit_limit: 10, current_usage: 3 } }, 'body.usage_limits'],
      [{ usage_limits: { credit_limit: 10, alert_threshold: 20 } }, 'body.usage_limits'],
      [{ usage_limits: { credit_limit: -1 } }, 'body.usage_limits'],
      [
        { usage_limits: { credit_limit: 10, periodic_reset: 'weekly', periodic_reset_days: 3 } },
        'body.usage_limits',
      ],
      [{ defaults: { metadata: { team: 'core' }, extra: true } }, 'body.defaults'],
      [{ expires_at: new Date(Date.now() - 60_000).toISOString() }, 'body.expires_at'],
      [{ expires_at: 'tomorrow' }, 'body.expires_at'],
    ];
    for (const [body, param] of refused) {
      const response = await post(body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.error.code).toBe('AB01');
      expect(response.body.error.param, JSON.stringify(body)).toMatch(
        new RegExp(`^${param.replace(/\./g, '\\.')}`),
      );
    }
  });
});

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
    const defaultedAt = Date.parse(defaulted.body.expires_at);
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
    expect(Date.parse(capped.body.expires_at)).toBeGreaterThan(Date.now() + 10 * DAY - 60_000);

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
