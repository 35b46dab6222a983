// Who may touch guardrails: tenant isolation between workspaces (404, never 403), one scope per
// route, and the manager role for writes.
import { EntityKind } from '@aigw/proto';
import { describe, expect } from 'vitest';
import { test } from '../../test/harness.js';
import {
  adminKeyWithout,
  expectError,
  GUARDRAIL_SCOPES,
  guardrail,
  lastChange,
  memberKey,
  serviceKey,
  workspace,
} from '../configs/configs.test-support.js';

const CHECKS = [{ id: 'valid_json' }];

describe('guardrails access', () => {
  test('a workspace key never sees or changes another workspace guardrail: 404 AB08', async ({ cp, pg }) => {
    const a = await workspace(cp, 'Iso A');
    const b = await workspace(cp, 'Iso B');
    const theirs = await guardrail(cp, { name: 'Theirs', slug: 'theirs', workspace_id: b.id });
    const key = await serviceKey(cp, a.id, GUARDRAIL_SCOPES);

    for (const ref of [theirs.id, 'theirs']) {
      expectError(await cp.call('get', `/guardrails/${ref}`, { key }), 404, 'AB08');
      expectError(await cp.call('put', `/guardrails/${ref}`, { key, body: { name: 'x' } }), 404, 'AB08');
      expectError(await cp.call('delete', `/guardrails/${ref}`, { key }), 404, 'AB08');
    }
    expectError(await cp.call('get', `/guardrails/${theirs.id}?workspace_id=${b.id}`, { key }), 404, 'AB08');
    expectError(await cp.call('get', `/guardrails?workspace_id=${b.slug}`, { key }), 404, 'AB08');
    expectError(
      await cp.call('post', '/guardrails', { key, body: { name: 'x', workspace_id: b.id, checks: CHECKS } }),
      404,
      'AB08',
    );
    const listed = await cp.call('get', '/guardrails?page_size=500', { key });
    expect(listed.body.data.map((g: { id: string }) => g.id)).not.toContain(theirs.id);

    // Untouched by the refused writes.
    expect((await lastChange(pg.pool, theirs.id, EntityKind.GUARDRAIL))?.version).toBe(1);
    expect((await cp.call('get', `/guardrails/${theirs.id}`)).body.name).toBe('Theirs');
  });

  test('each route needs its guardrails.* scope: 403 AB03', async ({ cp }) => {
    const ws = await workspace(cp, 'Scopes');
    const target = await guardrail(cp, { name: 'Scoped', workspace_id: ws.id });
    const calls: [string, string, string, unknown?][] = [
      ['guardrails.create', 'post', '/guardrails', { name: 'x', workspace_id: ws.id, checks: CHECKS }],
      ['guardrails.list', 'get', '/guardrails'],
      ['guardrails.read', 'get', `/guardrails/${target.id}`],
      ['guardrails.update', 'put', `/guardrails/${target.id}`, { name: 'x' }],
      ['guardrails.delete', 'delete', `/guardrails/${target.id}`],
    ];
    for (const [scope, method, path, body] of calls) {
      const key = await adminKeyWithout(cp, [scope]);
      const res = await cp.call(method, path, { key, ...(body !== undefined ? { body } : {}) });
      expectError(res, 403, 'AB03');
      expect(res.body.error.message).toContain(scope);
    }
    expect((await cp.call('get', `/guardrails/${target.id}`)).body.name).toBe('Scoped');
  });

  test('workspace members read guardrails but only managers write them', async ({ cp, pg }) => {
    const ws = await workspace(cp, 'Roles');
    const target = await guardrail(cp, { name: 'Roles', workspace_id: ws.id });
    const member = await memberKey(pg.pool, ws.id, GUARDRAIL_SCOPES);
    expect((await cp.call('get', `/guardrails/${target.id}`, { key: member })).status).toBe(200);
    expectError(
      await cp.call('post', '/guardrails', { key: member, body: { name: 'x', checks: CHECKS } }),
      403,
      'AB03',
    );
    expectError(
      await cp.call('put', `/guardrails/${target.id}`, { key: member, body: { name: 'x' } }),
      403,
      'AB03',
    );
    expectError(await cp.call('delete', `/guardrails/${target.id}`, { key: member }), 403, 'AB03');
    const manager = await serviceKey(cp, ws.id, GUARDRAIL_SCOPES);
    expect(
      (await cp.call('put', `/guardrails/${target.id}`, { key: manager, body: { name: 'y' } })).status,
    ).toBe(200);
  });
});
