import { randomUUID } from 'node:crypto';
import { describe, expect } from 'vitest';
import { test } from './users.test-support.js';

describe('users access', () => {
  test('admins remove members but not admins or owners', async ({ org }) => {
    const ownerToken = await org.token('owner', { sub: org.ownerId });
    const gus = await org.join('gus@example.com', { role: 'admin' }, { key: null, token: ownerToken });
    const refused = await org.call('delete', `/users/${gus.id}`);
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toBe('only an owner may remove an admin');
    expect((await org.call('get', `/users/${gus.id}`)).body.status).toBe('active');
    const removed = await org.call('delete', `/users/${gus.id}`, { key: null, token: ownerToken });
    expect(removed.status).toBe(200);
    expect((await org.call('delete', `/users/${randomUUID()}`)).status).toBe(404);
  });

  test('workspace-bound callers get 403 on every users route; other organisations see nothing', async ({
    org,
  }) => {
    const zeta = await org.workspace('u-zeta');
    const hal = await org.join('hal@example.com', { workspaces: [{ id: zeta, role: 'manager' }] });
    const service = await org.apiKey({ type: 'service', workspaceId: zeta });
    const halKey = await org.apiKey({ type: 'workspace', workspaceId: zeta, userId: hal.id });
    const memberToken = await org.token('member', { workspaceId: zeta, sub: hal.id });
    const calls: [string, string, unknown][] = [
      ['get', '/users', undefined],
      ['get', `/users/${hal.id}`, undefined],
      ['put', `/users/${hal.id}`, { first_name: 'Hacked' }],
      ['delete', `/users/${hal.id}`, undefined],
    ];
    for (const [method, path, body] of calls) {
      for (const credentials of [
        { key: service.key },
        { key: halKey.key },
        { key: null, token: memberToken },
      ]) {
        const response = await org.call(method, path, { ...credentials, body });
        expect([method, path, response.status, response.body.error?.code]).toEqual([
          method,
          path,
          403,
          'AB03',
        ]);
      }
    }
    const unchanged = await org.call('get', `/users/${hal.id}`);
    expect(unchanged.body).toMatchObject({ first_name: '', status: 'active' });

    const elsewhere = randomUUID();
    await org.pool.query(
      "insert into control.organisations (id, name, slug) values ($1, 'Other', 'other-org')",
      [elsewhere],
    );
    const foreign = await org.token('owner', { organisationId: elsewhere });
    expect((await org.call('get', `/users/${hal.id}`, { key: null, token: foreign })).status).toBe(404);
    expect(
      (await org.call('put', `/users/${hal.id}`, { key: null, token: foreign, body: { first_name: 'X' } }))
        .status,
    ).toBe(404);
    expect((await org.call('delete', `/users/${hal.id}`, { key: null, token: foreign })).status).toBe(404);
    expect((await org.call('get', '/users', { key: null, token: foreign })).body).toEqual({
      object: 'list',
      data: [],
      total: 0,
    });
    expect((await org.call('get', '/user-invites', { key: null, token: foreign })).body.total).toBe(0);

    const scoped = await org.token('admin', { scopes: ['users.read'] });
    expect((await org.call('get', `/users/${hal.id}`, { key: null, token: scoped })).status).toBe(200);
    const noScope = await org.call('get', '/users', { key: null, token: scoped });
    expect(noScope.status).toBe(403);
    expect(noScope.body.error.message).toBe('missing scope users.list');
  });
});
