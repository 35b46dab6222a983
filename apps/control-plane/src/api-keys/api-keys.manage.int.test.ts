import { EntityStatus } from '@aigw/proto';
import { describe, expect } from 'vitest';
import { test } from '../../test/harness.js';
import { auditEvents } from '../../test/outbox-rows.js';
import { type ApiKeyBody, keyChanges, tenant, userKey } from './api-keys.test-support.js';

const MANAGER_SCOPES = [
  'api_keys.create',
  'api_keys.read',
  'api_keys.list',
  'api_keys.update',
  'api_keys.delete',
  'api_keys.rotate',
  'logs.view',
  'logs.list',
];

describe('listing and reading API keys', () => {
  test('lists never carry a raw key; filters, pagination and visibility per caller', async ({ cp, pg }) => {
    const t = await tenant(cp, pg.pool);
    const wsA = await t.workspace('list-a');
    const wsB = await t.workspace('list-b');
    const manager = await t.user();
    const member = await t.user();
    const userB = await t.user();
    await t.member(wsA, manager, 'manager');
    await t.member(wsA, member, 'member');
    await t.member(wsB, userB, 'member');
    const managerKey = await userKey(cp, wsA, manager, { scopes: MANAGER_SCOPES });
    const memberKey = await userKey(cp, wsA, member, {
      scopes: ['api_keys.list', 'api_keys.read', 'logs.view'],
    });
    const memberSecond = await userKey(cp, wsA, member, { scopes: ['logs.view'] });
    const keyB = await userKey(cp, wsB, userB, { scopes: ['logs.view'] });
    const service = await cp.call('post', '/api-keys/workspace/service', {
      body: { name: 'svc-a', workspace_id: wsA, scopes: ['logs.view'] },
    });
    expect(service.status).toBe(201);

    const all = await cp.call('get', '/api-keys?page_size=500');
    expect(all.status).toBe(200);
    expect(all.body.object).toBe('list');
    expect(all.body.total).toBe(all.body.data.length);
    const raw = JSON.stringify(all.body);
    for (const secret of [cp.adminKey, managerKey.key, memberKey.key, keyB.key, service.body.key]) {
      expect(raw).not.toContain(secret);
    }
    for (const item of all.body.data) {
      expect(item).not.toHaveProperty('key');
      expect(item).not.toHaveProperty('key_hash');
      expect(item.masked_key).toBe(`aigw_...${item.last4}`);
    }
    expect(all.body.data.some((k: ApiKeyBody) => k.type === 'admin')).toBe(true);

    const inA = await cp.call('get', '/api-keys?workspace_id=list-a&type=workspace,service');
    expect(inA.body.data.map((k: ApiKeyBody) => k.id).sort()).toEqual(
      [managerKey.id, memberKey.id, memberSecond.id, service.body.id].sort(),
    );
    const byUser = await cp.call('get', `/api-keys?user_id=${member}`);
    expect(byUser.body.data.map((k: ApiKeyBody) => k.id).sort()).toEqual(
      [memberKey.id, memberSecond.id].sort(),
    );
    const page = await cp.call('get', '/api-keys?workspace_id=list-a&page_size=1&current_page=1');
    expect(page.body.total).toBe(4);
    expect(page.body.data).toHaveLength(1);
    expect((await cp.call('get', '/api-keys?status=expired&workspace_id=list-a')).body).toEqual({
      object: 'list',
      data: [],
      total: 0,
    });

    for (const bad of [
      'type=root',
      'status=gone',
      'user_id=nope',
      'workspace_id=a%20b',
      'page_size=-1',
      'colour=red',
    ]) {
      const response = await cp.call('get', `/api-keys?${bad}`);
      expect(response.status, bad).toBe(400);
      expect(response.body.error.code).toBe('AB01');
    }
    expect((await cp.call('get', '/api-keys?workspace_id=unknown-ws')).status).toBe(404);

    const managerList = await cp.call('get', '/api-keys', { key: managerKey.key });
    expect(managerList.body.data.map((k: ApiKeyBody) => k.id).sort()).toEqual(
      [managerKey.id, memberKey.id, memberSecond.id, service.body.id].sort(),
    );
    expect((await cp.call('get', '/api-keys?workspace_id=list-b', { key: managerKey.key })).status).toBe(404);

    const memberList = await cp.call('get', '/api-keys', { key: memberKey.key });
    expect(memberList.body.data.map((k: ApiKeyBody) => k.id).sort()).toEqual(
      [memberKey.id, memberSecond.id].sort(),
    );
    expect((await cp.call('get', `/api-keys?user_id=${manager}`, { key: memberKey.key })).body.total).toBe(0);
    expect((await cp.call('get', `/api-keys/${managerKey.id}`, { key: memberKey.key })).status).toBe(404);
    expect((await cp.call('get', `/api-keys/${memberSecond.id}`, { key: memberKey.key })).status).toBe(200);

    expect((await cp.call('get', '/api-keys/not-a-uuid')).status).toBe(400);
    expect((await cp.call('get', '/api-keys/00000000-0000-4000-8000-000000000000')).status).toBe(404);
  });

  test('a workspace-A key gets 404 for every workspace-B and admin key', async ({ cp, pg }) => {
    const t = await tenant(cp, pg.pool);
    const wsA = await t.workspace('iso-a');
    const wsB = await t.workspace('iso-b');
    const managerA = await t.user();
    const userB = await t.user();
    await t.member(wsA, managerA, 'manager');
    await t.member(wsB, userB, 'member');
    const keyA = await userKey(cp, wsA, managerA, { scopes: MANAGER_SCOPES });
    const keyB = await userKey(cp, wsB, userB, { scopes: ['logs.view'] });
    const admin = await cp.call('post', '/api-keys/organisation/service', {
      body: { name: 'adm', scopes: ['logs.view'] },
    });

    for (const target of [keyB.id, admin.body.id]) {
      const calls: [string, string, unknown][] = [
        ['get', `/api-keys/${target}`, undefined],
        ['put', `/api-keys/${target}`, { name: 'stolen' }],
        ['post', `/api-keys/${target}/rotate`, undefined],
        ['delete', `/api-keys/${target}`, undefined],
      ];
      for (const [method, path, body] of calls) {
        const response = await cp.call(method, path, { key: keyA.key, ...(body ? { body } : {}) });
        expect(response.status, `${method} ${path}`).toBe(404);
        expect(response.body.error.code).toBe('AB08');
      }
    }
    expect((await cp.call('get', `/api-keys/${keyB.id}`)).body.name).toBe('user key');
    expect((await cp.call('get', '/organisation', { key: keyB.key })).status).toBe(403);
  });
});

describe('changing API keys', () => {
  test('updates fields and scopes within the caller, never type or workspace', async ({ cp, pg }) => {
    const t = await tenant(cp, pg.pool);
    const ws = await t.workspace('upd');
    const manager = await t.user();
    const member = await t.user();
    await t.member(ws, manager, 'manager');
    await t.member(ws, member, 'member');
    const managerKey = await userKey(cp, ws, manager, { scopes: MANAGER_SCOPES });
    const target = await userKey(cp, ws, member, {
      scopes: ['logs.view', 'api_keys.read'],
      as: managerKey.key,
    });

    const updated = await cp.call('put', `/api-keys/${target.id}`, {
      key: managerKey.key,
      body: {
        name: 'renamed',
        description: 'desc',
        scopes: ['logs.view', 'logs.list'],
        rate_limits: [{ type: 'tokens', unit: 'rph', value: 1000 }],
        usage_limits: [{ type: 'tokens', credit_limit: 5000 }],
        defaults: { metadata: { env: 'prod' } },
      },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({
      name: 'renamed',
      description: 'desc',
      scopes: ['logs.view', 'logs.list'],
      rate_limits: [{ type: 'tokens', unit: 'rph', value: 1000 }],
      usage_limits: [{ type: 'tokens', credit_limit: 5000, current_usage: 0 }],
      defaults: { metadata: { env: 'prod' }, config_id: null, allow_config_override: true },
      type: 'workspace',
      workspace_id: ws,
    });
    expect(updated.body).not.toHaveProperty('key');
    const cleared = await cp.call('put', `/api-keys/${target.id}`, {
      body: { rate_limits: null, usage_limits: null },
    });
    expect(cleared.body).toMatchObject({ rate_limits: [], usage_limits: [], name: 'renamed' });

    const changes = await keyChanges(pg.pool, target.id);
    expect(changes.map((c) => c.entity?.version)).toEqual([1, 2, 3]);

    const escalate = await cp.call('put', `/api-keys/${target.id}`, {
      key: managerKey.key,
      body: { scopes: ['logs.view', 'logs.export'] },
    });
    expect(escalate.status).toBe(403);
    const orgScope = await cp.call('put', `/api-keys/${target.id}`, { body: { scopes: ['users.list'] } });
    expect(orgScope.status).toBe(400);
    for (const body of [
      { type: 'admin' },
      { workspace_id: 'other' },
      { user_id: manager },
      { status: 'expired' },
      { key_hash: 'x' },
    ]) {
      const response = await cp.call('put', `/api-keys/${target.id}`, { body });
      expect(response.status, JSON.stringify(body)).toBe(400);
    }
    expect((await keyChanges(pg.pool, target.id)).length).toBe(3);

    const byMember = await cp.call('put', `/api-keys/${target.id}`, {
      key: target.key,
      body: { name: 'mine' },
    });
    expect(byMember.status).toBe(403);
    const audit = (await auditEvents(pg.pool)).filter(
      (a) => a.action === 'api_keys.update' && a.resourceId === target.id,
    );
    expect(audit.map((a) => a.statusCode)).toEqual(expect.arrayContaining([200, 403, 400]));
  });

  test('disabling stops the key, enabling restores it; a key cannot disable or delete itself', async ({
    cp,
    pg,
  }) => {
    const created = await cp.call('post', '/api-keys/organisation/service', {
      body: {
        name: 'toggle',
        scopes: ['organisation.read', 'api_keys.update', 'api_keys.delete', 'api_keys.read'],
      },
    });
    const { id, key } = created.body;
    expect((await cp.call('put', `/api-keys/${id}`, { key, body: { status: 'disabled' } })).status).toBe(409);
    expect((await cp.call('delete', `/api-keys/${id}`, { key })).status).toBe(409);
    const renamed = await cp.call('put', `/api-keys/${id}`, { key, body: { name: 'self-renamed' } });
    expect(renamed.status).toBe(200);

    expect((await cp.call('put', `/api-keys/${id}`, { body: { status: 'disabled' } })).body.status).toBe(
      'disabled',
    );
    const refused = await cp.call('get', '/organisation', { key });
    expect(refused.status).toBe(401);
    const changes = await keyChanges(pg.pool, id);
    expect(changes.at(-1)?.entity?.body).toMatchObject({ value: { status: EntityStatus.DISABLED } });
    expect((await cp.call('put', `/api-keys/${id}`, { body: { status: 'active' } })).status).toBe(200);
    expect((await cp.call('get', '/organisation', { key })).status).toBe(200);

    // An expired key comes back only with a future expiry.
    await pg.pool.query(
      "update control.api_keys set status = 'expired', expires_at = now() - interval '1 minute' where id = $1",
      [id],
    );
    const stale = await cp.call('put', `/api-keys/${id}`, { body: { status: 'active' } });
    expect(stale.status).toBe(400);
    const revived = await cp.call('put', `/api-keys/${id}`, {
      body: { status: 'active', expires_at: new Date(Date.now() + 3_600_000).toISOString() },
    });
    expect(revived.status).toBe(200);
    expect(revived.body.status).toBe('active');
    expect((await cp.call('get', '/organisation', { key })).status).toBe(200);
  });

  test('rotation replaces the secret at once and is refused to narrower callers', async ({ cp, pg }) => {
    const t = await tenant(cp, pg.pool);
    const ws = await t.workspace('rot');
    const manager = await t.user();
    await t.member(ws, manager, 'manager');
    const managerKey = await userKey(cp, ws, manager, { scopes: MANAGER_SCOPES });
    const target = await userKey(cp, ws, manager, { scopes: ['api_keys.read', 'logs.view'] });
    const before = (await keyChanges(pg.pool, target.id)).at(-1);

    const rotated = await cp.call('post', `/api-keys/${target.id}/rotate`, { key: managerKey.key });
    expect(rotated.status).toBe(200);
    expect(rotated.body).toMatchObject({
      id: target.id,
      object: 'api-key',
      last4: rotated.body.key.slice(-4),
    });
    expect(rotated.body.key).not.toBe(target.key);
    expect(rotated.body.rotated_at).not.toBeNull();
    expect((await cp.call('get', `/api-keys/${target.id}`, { key: target.key })).status).toBe(401);
    expect((await cp.call('get', `/api-keys/${target.id}`, { key: rotated.body.key })).status).toBe(200);
    expect((await cp.call('get', `/api-keys/${target.id}`)).body).not.toHaveProperty('key');

    const after = (await keyChanges(pg.pool, target.id)).at(-1);
    expect(after?.entity?.version).toBe((before?.entity?.version ?? 0) + 1);
    const hashes = [before, after].map((c) =>
      c?.entity?.body?.$case === 'apiKey' ? c.entity.body.value.keyHash : '',
    );
    expect(hashes[0]).not.toBe(hashes[1]);

    // A narrower key may not obtain the secret of a broader one; rotating itself is fine.
    const narrow = await userKey(cp, ws, manager, { scopes: ['api_keys.rotate', 'api_keys.read'] });
    const refused = await cp.call('post', `/api-keys/${managerKey.id}/rotate`, { key: narrow.key });
    expect(refused.status).toBe(403);
    const self = await cp.call('post', `/api-keys/${narrow.id}/rotate`, { key: narrow.key });
    expect(self.status).toBe(200);
    expect((await cp.call('get', `/api-keys/${narrow.id}`, { key: self.body.key })).status).toBe(200);
    const audit = (await auditEvents(pg.pool)).filter((a) => a.action === 'api_keys.rotate');
    expect(audit.map((a) => a.statusCode)).toEqual(expect.arrayContaining([200, 403]));
    for (const event of audit) expect(event.requestDetailsJson).not.toContain(self.body.key);
  });

  test('deletion removes the key, emits a tombstone and is refused to members', async ({ cp, pg }) => {
    const t = await tenant(cp, pg.pool);
    const ws = await t.workspace('del');
    const manager = await t.user();
    const member = await t.user();
    await t.member(ws, manager, 'manager');
    await t.member(ws, member, 'member');
    const managerKey = await userKey(cp, ws, manager, { scopes: MANAGER_SCOPES });
    const target = await userKey(cp, ws, member, { scopes: ['api_keys.delete', 'api_keys.read'] });

    expect((await cp.call('delete', `/api-keys/${managerKey.id}`, { key: target.key })).status).toBe(403);
    const deleted = await cp.call('delete', `/api-keys/${target.id}`, { key: managerKey.key });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({});
    expect((await cp.call('get', `/api-keys/${target.id}`)).status).toBe(404);
    expect((await cp.call('get', `/api-keys/${target.id}`, { key: target.key })).status).toBe(401);
    expect((await cp.call('delete', `/api-keys/${target.id}`)).status).toBe(404);

    const last = (await keyChanges(pg.pool, target.id)).at(-1);
    expect(last?.entity).toMatchObject({ tombstone: true, version: 2, workspaceId: ws });
    const tombstone = await pg.pool.query('select version from control.tombstones where id = $1', [
      target.id,
    ]);
    expect(tombstone.rows[0].version).toBe('2');
  });
});
