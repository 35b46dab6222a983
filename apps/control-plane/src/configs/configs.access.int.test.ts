// Who may touch configs: tenant isolation between workspaces (404, never 403), one configs.* scope
// per route, and the manager role for writes.
import { EntityKind } from '@aigw/proto';
import { describe, expect } from 'vitest';
import { test } from '../../test/harness.js';
import {
  adminKeyWithout,
  CONFIG_SCOPES,
  expectError,
  lastChange,
  memberKey,
  serviceKey,
  workspace,
} from './configs.test-support.js';

const CONFIG = { provider: 'openai', retry: { attempts: 1 } };

describe('configs access', () => {
  test('a workspace key never sees or changes another workspace config: 404 AB08', async ({ cp, pg }) => {
    const a = await workspace(cp, 'Iso A');
    const b = await workspace(cp, 'Iso B');
    const theirs = await cp.call('post', '/configs', {
      body: { name: 'Theirs', slug: 'theirs', workspace_id: b.id, config: CONFIG },
    });
    expect(theirs.status).toBe(201);
    const id = theirs.body.id;
    const key = await serviceKey(cp, a.id, CONFIG_SCOPES);

    for (const ref of [id, 'theirs']) {
      expectError(await cp.call('get', `/configs/${ref}`, { key }), 404, 'AB08');
      expectError(await cp.call('get', `/configs/${ref}/versions`, { key }), 404, 'AB08');
      expectError(await cp.call('get', `/configs/${ref}/versions/1`, { key }), 404, 'AB08');
      expectError(await cp.call('put', `/configs/${ref}`, { key, body: { name: 'x' } }), 404, 'AB08');
      expectError(await cp.call('delete', `/configs/${ref}`, { key }), 404, 'AB08');
    }
    expectError(await cp.call('get', `/configs/${id}?workspace_id=${b.slug}`, { key }), 404, 'AB08');
    expectError(await cp.call('get', `/configs?workspace_id=${b.id}`, { key }), 404, 'AB08');
    expectError(
      await cp.call('post', '/configs', { key, body: { name: 'x', workspace_id: b.slug, config: CONFIG } }),
      404,
      'AB08',
    );
    const listed = await cp.call('get', '/configs?page_size=500&status=active,archived', { key });
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((c: { id: string }) => c.id)).not.toContain(id);

    expect((await lastChange(pg.pool, id, EntityKind.CONFIG))?.version).toBe(1);
    expect((await cp.call('get', `/configs/${id}`)).body.name).toBe('Theirs');
  });

  test('each route needs its configs.* scope: 403 AB03', async ({ cp }) => {
    const ws = await workspace(cp, 'Scopes');
    const target = await cp.call('post', '/configs', {
      body: { name: 'Scoped', workspace_id: ws.id, config: CONFIG },
    });
    const id = target.body.id;
    const calls: [string, string, string, unknown?][] = [
      ['configs.create', 'post', '/configs', { name: 'x', workspace_id: ws.id, config: CONFIG }],
      ['configs.list', 'get', '/configs'],
      ['configs.read', 'get', `/configs/${id}`],
      ['configs.read', 'get', `/configs/${id}/versions`],
      ['configs.read', 'get', `/configs/${id}/versions/1`],
      ['configs.update', 'put', `/configs/${id}`, { name: 'x' }],
      ['configs.delete', 'delete', `/configs/${id}`],
    ];
    for (const [scope, method, path, body] of calls) {
      const key = await adminKeyWithout(cp, [scope]);
      const res = await cp.call(method, path, { key, ...(body !== undefined ? { body } : {}) });
      expectError(res, 403, 'AB03');
      expect(res.body.error.message).toContain(scope);
    }
    expect((await cp.call('get', `/configs/${id}`)).body.name).toBe('Scoped');
  });

  test('workspace members read configs but only managers write them', async ({ cp, pg }) => {
    const ws = await workspace(cp, 'Roles');
    const target = await cp.call('post', '/configs', {
      body: { name: 'Roles', workspace_id: ws.id, config: CONFIG },
    });
    const member = await memberKey(pg.pool, ws.id, CONFIG_SCOPES);
    expect((await cp.call('get', `/configs/${target.body.id}`, { key: member })).status).toBe(200);
    expect((await cp.call('get', '/configs', { key: member })).body.total).toBe(1);
    expectError(
      await cp.call('post', '/configs', { key: member, body: { name: 'x', config: CONFIG } }),
      403,
      'AB03',
    );
    expectError(
      await cp.call('put', `/configs/${target.body.id}`, {
        key: member,
        body: { config: { provider: 'anthropic' } },
      }),
      403,
      'AB03',
    );
    expectError(await cp.call('delete', `/configs/${target.body.id}`, { key: member }), 403, 'AB03');
    expect((await cp.call('get', `/configs/${target.body.id}`)).body.version).toBe(1);
  });
});
