// Deployment routes end to end: create/list (type filter)/get/update/delete, the config a deployment
// runs (same workspace, active; cannot be deleted under it), change events, audit and snapshot, and
// who may touch them: tenant isolation (404), one deployments.* scope per route (403), managers write.
import { AuditOutcome, DeploymentType, EntityKind, EntityStatus } from '@aigw/proto';
import { describe, expect } from 'vitest';
import { test } from '../../test/harness.js';
import { auditEvents } from '../../test/outbox-rows.js';
import { readSnapshot, snapshotEntities } from '../../test/snapshot-client.js';
import {
  adminKeyWithout,
  expectError,
  lastChange,
  memberKey,
  type Ref,
  serviceKey,
  workspace,
} from '../configs/configs.test-support.js';

type Cp = Parameters<typeof workspace>[0];

const SCOPES = [
  'deployments.create',
  'deployments.read',
  'deployments.list',
  'deployments.update',
  'deployments.delete',
];

async function config(cp: Cp, ws: Ref, slug: string): Promise<string> {
  const res = await cp.call('post', '/configs', {
    body: { name: slug, slug, workspace_id: ws.id, config: { provider: 'openai', retry: { attempts: 1 } } },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id;
}

describe('deployments', () => {
  test('create, list by type, get by slug, move to another config, delete: events, audit, snapshot', async ({
    cp,
    pg,
  }) => {
    const ws = await workspace(cp, 'Deployments');
    const blue = await config(cp, ws, 'blue');
    const green = await config(cp, ws, 'green');

    const created = await cp.call('post', '/deployments', {
      body: { name: 'Prod', workspace_id: ws.slug, type: 'production', config_id: 'blue' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({
      object: 'deployment',
      workspace_id: ws.id,
      name: 'Prod',
      slug: 'prod',
      type: 'production',
      status: 'active',
      config_id: blue,
      description: null,
    });
    const id = created.body.id;
    expect(await lastChange(pg.pool, id, EntityKind.DEPLOYMENT)).toMatchObject({
      version: 1,
      workspaceId: ws.id,
      body: {
        $case: 'deployment',
        value: { slug: 'prod', type: DeploymentType.PRODUCTION, configId: blue, status: EntityStatus.ACTIVE },
      },
    });
    const audit = (await auditEvents(pg.pool)).find(
      (a) => a.action === 'deployments.create' && a.resourceId === id,
    );
    expect(audit).toMatchObject({
      resourceType: 'deployment',
      workspaceId: ws.id,
      outcome: AuditOutcome.SUCCESS,
      statusCode: 201,
    });

    const staging = await cp.call('post', '/deployments', {
      body: { name: 'Staging', workspace_id: ws.id, type: 'non-production', config_id: green },
    });
    expect(staging.status).toBe(201);
    const byType = async (type: string) =>
      (await cp.call('get', `/deployments?workspace_id=${ws.id}&type=${type}`)).body.data.map(
        (d: { slug: string }) => d.slug,
      );
    expect(await byType('production')).toEqual(['prod']);
    expect(await byType('non-production')).toEqual(['staging']);
    expect((await byType('production,non-production')).sort()).toEqual(['prod', 'staging']);
    expectError(await cp.call('get', '/deployments?type=canary'), 400, 'AB01');

    expect((await cp.call('get', `/deployments/prod?workspace_id=${ws.slug}`)).body.id).toBe(id);

    const moved = await cp.call('put', `/deployments/${id}`, { body: { config_id: 'green' } });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect(moved.body.config_id).toBe(green);
    expect(await lastChange(pg.pool, id, EntityKind.DEPLOYMENT)).toMatchObject({
      version: 2,
      body: { value: { configId: green } },
    });
    const entities = snapshotEntities(await readSnapshot(cp.app.ports.grpc)).filter(
      (e) => e.kind === EntityKind.DEPLOYMENT,
    );
    expect(entities.find((e) => e.id === id)).toMatchObject({
      version: 2,
      body: { value: { configId: green } },
    });

    // A config a deployment runs cannot be deleted; once nothing runs it, it can.
    const inUse = await cp.call('delete', `/configs/${green}`);
    expectError(inUse, 409, 'AB07');
    expect(inUse.body.error.message).toContain('prod');
    expect((await cp.call('get', `/configs/${green}`)).status).toBe(200);
    expect((await cp.call('delete', `/configs/${blue}`)).status).toBe(200);

    expect((await cp.call('delete', `/deployments/${id}`)).status).toBe(200);
    expectError(await cp.call('get', `/deployments/${id}`), 404, 'AB08');
    expect(await lastChange(pg.pool, id, EntityKind.DEPLOYMENT)).toMatchObject({ tombstone: true });
  });

  test('the config must be an active saved config of the same workspace: 404 AB02 otherwise', async ({
    cp,
  }) => {
    const a = await workspace(cp, 'Dep A');
    const b = await workspace(cp, 'Dep B');
    const theirs = await config(cp, b, 'theirs');
    for (const ref of [theirs, 'theirs', 'missing']) {
      const res = await cp.call('post', '/deployments', {
        body: { name: 'x', workspace_id: a.id, type: 'production', config_id: ref },
      });
      expectError(res, 404, 'AB02');
      expect(res.body.error.param).toBe('body.config_id');
    }
    const archived = await config(cp, a, 'old');
    expect((await cp.call('put', `/configs/${archived}`, { body: { status: 'archived' } })).status).toBe(200);
    expectError(
      await cp.call('post', '/deployments', {
        body: { name: 'x', workspace_id: a.id, type: 'production', config_id: archived },
      }),
      404,
      'AB02',
    );
    expect((await cp.call('get', `/deployments?workspace_id=${a.id}`)).body.total).toBe(0);
    expectError(
      await cp.call('post', '/deployments', {
        body: { name: 'x', workspace_id: a.id, type: 'canary', config_id: 'old' },
      }),
      400,
      'AB01',
    );
  });

  test('a workspace key never sees or changes another workspace deployment: 404 AB08', async ({ cp }) => {
    const a = await workspace(cp, 'Iso Dep A');
    const b = await workspace(cp, 'Iso Dep B');
    await config(cp, b, 'cfg');
    const theirs = await cp.call('post', '/deployments', {
      body: { name: 'Theirs', slug: 'theirs', workspace_id: b.id, type: 'production', config_id: 'cfg' },
    });
    expect(theirs.status).toBe(201);
    const key = await serviceKey(cp, a.id, SCOPES);
    for (const ref of [theirs.body.id, 'theirs']) {
      expectError(await cp.call('get', `/deployments/${ref}`, { key }), 404, 'AB08');
      expectError(await cp.call('put', `/deployments/${ref}`, { key, body: { name: 'x' } }), 404, 'AB08');
      expectError(await cp.call('delete', `/deployments/${ref}`, { key }), 404, 'AB08');
    }
    expectError(await cp.call('get', `/deployments?workspace_id=${b.id}`, { key }), 404, 'AB08');
    const listed = await cp.call('get', '/deployments', { key });
    expect(listed.status).toBe(200);
    expect(listed.body.data).toEqual([]);
    // Its own workspace's key cannot point it at a config of another workspace either.
    const own = await cp.call('post', '/deployments', {
      key,
      body: { name: 'Mine', type: 'production', config_id: 'cfg' },
    });
    expectError(own, 404, 'AB02');
    expect((await cp.call('get', `/deployments/${theirs.body.id}`)).body.name).toBe('Theirs');
  });

  test('each route needs its deployments.* scope (403 AB03); members read, managers write', async ({
    cp,
    pg,
  }) => {
    const ws = await workspace(cp, 'Dep Scopes');
    await config(cp, ws, 'cfg');
    const target = await cp.call('post', '/deployments', {
      body: { name: 'Scoped', workspace_id: ws.id, type: 'non-production', config_id: 'cfg' },
    });
    const id = target.body.id;
    const calls: [string, string, string, unknown?][] = [
      [
        'deployments.create',
        'post',
        '/deployments',
        { name: 'x', workspace_id: ws.id, type: 'production', config_id: 'cfg' },
      ],
      ['deployments.list', 'get', '/deployments'],
      ['deployments.read', 'get', `/deployments/${id}`],
      ['deployments.update', 'put', `/deployments/${id}`, { name: 'x' }],
      ['deployments.delete', 'delete', `/deployments/${id}`],
    ];
    for (const [scope, method, path, body] of calls) {
      const key = await adminKeyWithout(cp, [scope]);
      const res = await cp.call(method, path, { key, ...(body !== undefined ? { body } : {}) });
      expectError(res, 403, 'AB03');
      expect(res.body.error.message).toContain(scope);
    }
    const member = await memberKey(pg.pool, ws.id, SCOPES);
    expect((await cp.call('get', `/deployments/${id}`, { key: member })).status).toBe(200);
    expectError(
      await cp.call('post', '/deployments', {
        key: member,
        body: { name: 'x', type: 'production', config_id: 'cfg' },
      }),
      403,
      'AB03',
    );
    expectError(
      await cp.call('put', `/deployments/${id}`, { key: member, body: { name: 'y' } }),
      403,
      'AB03',
    );
    expectError(await cp.call('delete', `/deployments/${id}`, { key: member }), 403, 'AB03');
    expect((await cp.call('get', `/deployments/${id}`)).body.name).toBe('Scoped');
  });
});
