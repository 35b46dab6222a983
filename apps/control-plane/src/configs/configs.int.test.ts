// Config routes end to end: create/list/filter/get/update/delete, versions, validation with the
// gateway's schema (AB01 + JSON path), change events at the latest version, audit and snapshot.
import { AuditOutcome, EntityKind, EntityStatus } from '@aigw/proto';
import { describe, expect } from 'vitest';
import { test } from '../../test/harness.js';
import { auditEvents, changeEvents } from '../../test/outbox-rows.js';
import { readSnapshot, snapshotEntities } from '../../test/snapshot-client.js';
import { entityChanges } from '../integrations/integrations.test-support.js';
import {
  CONFIG_SCOPES,
  expectError,
  lastChange,
  type provider,
  serviceKey,
  workspace,
} from './configs.test-support.js';

const FALLBACK = {
  strategy: { mode: 'fallback', on_status_codes: [429, 503] },
  targets: [
    { provider: 'openai' },
    { provider: 'anthropic', override_params: { model: 'claude-sonnet-4-5' } },
  ],
  _note: 'comments are kept',
};

async function create(cp: Parameters<typeof provider>[0], body: Record<string, unknown>) {
  const res = await cp.call('post', '/configs', { body: { name: 'Config', config: FALLBACK, ...body } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

describe('configs', () => {
  test('create: 201 at version 1, stored as sent, a change event and an audit record', async ({ cp, pg }) => {
    const ws = await workspace(cp, 'Configs');
    const created = await cp.call('post', '/configs', {
      body: { name: 'Prod fallback', workspace_id: ws.slug, config: FALLBACK },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({
      object: 'config',
      workspace_id: ws.id,
      name: 'Prod fallback',
      slug: 'prod-fallback',
      status: 'active',
      version: 1,
      config: FALLBACK,
      created_by_user_id: null,
    });
    expect(Object.keys(created.body.config)).toEqual(Object.keys(FALLBACK));

    expect(await lastChange(pg.pool, created.body.id, EntityKind.CONFIG)).toMatchObject({
      version: 1,
      tombstone: false,
      organisationId: created.body.organisation_id,
      workspaceId: ws.id,
      body: {
        $case: 'config',
        value: {
          name: 'Prod fallback',
          slug: 'prod-fallback',
          version: 1,
          bodyJson: JSON.stringify(FALLBACK),
          status: EntityStatus.ACTIVE,
        },
      },
    });
    const audit = (await auditEvents(pg.pool)).find(
      (a) => a.action === 'configs.create' && a.resourceId === created.body.id,
    );
    expect(audit).toMatchObject({
      resourceType: 'config',
      workspaceId: ws.id,
      outcome: AuditOutcome.SUCCESS,
      statusCode: 201,
    });

    // Workspace keys create in their own workspace; organisation callers must name one.
    const key = await serviceKey(cp, ws.id, CONFIG_SCOPES);
    const own = await cp.call('post', '/configs', { key, body: { name: 'Own', config: FALLBACK } });
    expect(own.body.workspace_id).toBe(ws.id);
    expectError(
      await cp.call('post', '/configs', { body: { name: 'Nowhere', config: FALLBACK } }),
      400,
      'AB01',
      'body.workspace_id',
    );
  });

  test('validation: the config schema issues as 400 AB01 with the JSON path in param', async ({ cp }) => {
    const ws = await workspace(cp, 'Validation');
    const bad = (config: unknown) =>
      cp.call('post', '/configs', { body: { name: 'Bad', workspace_id: ws.id, config } });

    const weight = await bad({
      strategy: { mode: 'loadbalance' },
      targets: [{ provider: 'openai', weight: -1 }],
    });
    expectError(weight, 400, 'AB01', 'config.targets[0].weight');
    expect(weight.body.error.message).toMatch(/^Invalid config: config\.targets\[0\]\.weight: /);

    const many = await bad({
      retry: { attempts: 99 },
      cache: { mode: 'fuzzy' },
      overrideParams: {},
      targets: 1,
    });
    expectError(many, 400, 'AB01', 'config.cache.mode');
    expect(many.body.error.message).toMatch(/; .*; .* \(and 1 more\)$/);
    expect(many.body.error.message).toContain('did you mean "override_params"?');

    expectError(await bad({}), 400, 'AB01', 'config');
    expectError(
      await bad({ provider: 'openai', api_key: 'sk-live-secret-1234' }),
      400,
      'AB01',
      'config.api_key',
    );
    expectError(await bad([1]), 400, 'AB01', 'body.config');
    expectError(
      await cp.call('post', '/configs', { body: { name: 'No config', workspace_id: ws.id } }),
      400,
      'AB01',
      'body.config',
    );
    expectError(
      await cp.call('post', '/configs', {
        body: { name: 'x', workspace_id: ws.id, config: FALLBACK, slug: 'Bad Slug' },
      }),
      400,
      'AB01',
      'body.slug',
    );

    const ok = await create(cp, { workspace_id: ws.id });
    expectError(
      await cp.call('put', `/configs/${ok.id}`, { body: { config: { strategy: { mode: 'single' } } } }),
      400,
      'AB01',
      'config.strategy',
    );
    expect((await cp.call('get', `/configs/${ok.id}`)).body.version).toBe(1);
  });

  test('hostile config shapes are 400 AB01 naming the field, with nothing published', async ({ cp, pg }) => {
    const ws = await workspace(cp, 'Hostile configs');
    const ok = await create(cp, { workspace_id: ws.id });
    const changesBefore = (await changeEvents(pg.pool)).length;
    const cases: [config: unknown, param: string][] = [
      [
        { strategy: { mode: 'fallback' }, targets: Array.from({ length: 100_000 }, () => ({})) },
        'config.targets',
      ],
      [
        { strategy: { mode: 'loadbalance' }, targets: [{ provider: 'openai', weight: '1' }] },
        'config.targets[0].weight',
      ],
      [{ provider: 'openai', retry: { attempts: -1 } }, 'config.retry.attempts'],
      [{ provider: 'openai', request_timeout: 1e300 }, 'config.request_timeout'],
      [{ provider: 'x'.repeat(512 * 1024) }, 'config.provider'],
      [
        { provider: 'openai', forward_headers: Array.from({ length: 20_000 }, (_, i) => `x-h${i}`) },
        'config.forward_headers',
      ],
      [{ provider: 'openai', constructor: { prototype: { polluted: true } } }, 'config.constructor'],
    ];
    for (const [config, param] of cases) {
      for (const response of [
        await cp.call('post', '/configs', { body: { name: 'Hostile', workspace_id: ws.id, config } }),
        await cp.call('put', `/configs/${ok.id}`, { body: { config } }),
      ]) {
        expectError(response, 400, 'AB01', param);
      }
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((await changeEvents(pg.pool)).length).toBe(changesBefore);
    expect((await cp.call('get', `/configs/${ok.id}`)).body.version).toBe(1);
  });

  test('concurrent updates of one config: each its own version, published in version order, the last one wins', async ({
    cp,
    pg,
  }) => {
    const ws = await workspace(cp, 'Concurrent');
    const target = await create(cp, { workspace_id: ws.id });
    const updates = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        cp.call('put', `/configs/${target.id}`, {
          body: { config: { provider: 'openai', retry: { attempts: i + 1 } } },
        }),
      ),
    );
    // Without If-Match, writes to one row are serialised by its lock, so all succeed, each as a new
    // version (with the same If-Match, one wins and the rest are 409: http/conditional.int.test.ts).
    expect(updates.map((u) => u.status)).toEqual(updates.map(() => 200));
    expect(updates.map((u) => u.body.version).sort((a, b) => a - b)).toEqual([2, 3, 4, 5, 6, 7, 8, 9]);
    const published = (await entityChanges(pg.pool, target.id, EntityKind.CONFIG)).map((e) => e.version);
    expect(published).toEqual([...published].sort((a, b) => a - b));
    expect(new Set(published).size).toBe(published.length);
    const newest = updates.find((u) => u.body.version === 9)?.body;
    const stored = (await cp.call('get', `/configs/${target.id}`)).body;
    expect(stored.config).toMatchObject({ provider: 'openai' });
    expect([stored.version, stored.config]).toEqual([9, newest?.config]);
  });

  test('update: a changed config is a new version; name and same text are not; versions are readable', async ({
    cp,
    pg,
  }) => {
    const ws = await workspace(cp, 'Versions');
    const created = await create(cp, { name: 'Versioned', workspace_id: ws.id });
    const v2Config = { provider: 'openai', retry: { attempts: 3 } };

    const v2 = await cp.call('put', `/configs/${created.id}`, { body: { config: v2Config } });
    expect(v2.status, JSON.stringify(v2.body)).toBe(200);
    expect(v2.body).toMatchObject({ version: 2, config: v2Config });
    const renamed = await cp.call('put', `/configs/versioned?workspace_id=${ws.id}`, {
      body: { name: 'Renamed', config: v2Config },
    });
    expect(renamed.body).toMatchObject({ name: 'Renamed', slug: 'versioned', version: 2 });

    expect(await lastChange(pg.pool, created.id, EntityKind.CONFIG)).toMatchObject({
      version: 3,
      body: { value: { name: 'Renamed', version: 2, bodyJson: JSON.stringify(v2Config) } },
    });

    const versions = await cp.call('get', `/configs/${created.id}/versions`);
    expect(versions.body).toMatchObject({ object: 'list', total: 2 });
    expect(versions.body.data.map((v: { version: number }) => v.version)).toEqual([2, 1]);
    expect(versions.body.data[0]).not.toHaveProperty('config');
    const first = await cp.call('get', `/configs/${created.id}/versions/1`);
    expect(first.body).toMatchObject({
      object: 'config_version',
      config_id: created.id,
      version: 1,
      config: FALLBACK,
    });
    expect(
      (await cp.call('get', `/configs/versioned/versions/2?workspace_id=${ws.slug}`)).body.config,
    ).toEqual(v2Config);
    expectError(await cp.call('get', `/configs/${created.id}/versions/3`), 404, 'AB08');
    expectError(await cp.call('get', `/configs/${created.id}/versions/0`), 400, 'AB01', 'path.version');
    expectError(await cp.call('put', `/configs/${created.id}`, { body: {} }), 400, 'AB01');
    expectError(await cp.call('put', `/configs/${created.id}`, { body: { slug: 'new' } }), 400, 'AB01');

    const audits = (await auditEvents(pg.pool)).filter(
      (a) => a.action === 'configs.update' && a.resourceId === created.id,
    );
    expect(audits.map((a) => a.outcome)).toEqual([
      AuditOutcome.SUCCESS,
      AuditOutcome.SUCCESS,
      AuditOutcome.FAILURE,
      AuditOutcome.FAILURE,
    ]);
  });

  test('get by id or slug; slugs are per workspace, so organisation callers may need workspace_id', async ({
    cp,
  }) => {
    const a = await workspace(cp, 'Slug A');
    const b = await workspace(cp, 'Slug B');
    const inA = await create(cp, { name: 'Shared', workspace_id: a.id });
    const twin = await create(cp, { name: 'Shared', workspace_id: a.id });
    expect(twin.slug).toBe('shared-2');
    const inB = await create(cp, { name: 'Shared', workspace_id: b.id, slug: 'shared' });
    expectError(await create409(cp, a.id, 'shared'), 409, 'AB07', 'body.slug');

    expect((await cp.call('get', `/configs/${inA.id.toUpperCase()}`)).body.id).toBe(inA.id);
    expectError(await cp.call('get', '/configs/shared'), 400, 'AB01', 'query.workspace_id');
    expect((await cp.call('get', `/configs/shared?workspace_id=${b.slug}`)).body.id).toBe(inB.id);
    const key = await serviceKey(cp, a.id, CONFIG_SCOPES);
    expect((await cp.call('get', '/configs/shared', { key })).body.id).toBe(inA.id);
    expectError(await cp.call('get', '/configs/no-such-config'), 404, 'AB08');
  });

  test('list: filters by workspace, status and name, paginated, without the config objects', async ({
    cp,
  }) => {
    const ws = await workspace(cp, 'Listing');
    const other = await workspace(cp, 'Listing other');
    const one = await create(cp, { name: 'Listed', workspace_id: ws.id });
    const two = await create(cp, { name: 'Listed', workspace_id: ws.id });
    const elsewhere = await create(cp, { name: 'Listed', workspace_id: other.id });
    const archived = await create(cp, { name: 'Listed', workspace_id: ws.id });
    expect(
      (await cp.call('put', `/configs/${archived.id}`, { body: { status: 'archived' } })).body.status,
    ).toBe('archived');

    const list = async (query: string) => (await cp.call('get', `/configs?name=Listed&${query}`)).body;
    const ids = async (query: string) => (await list(query)).data.map((c: { id: string }) => c.id).sort();
    expect(await ids(`workspace_id=${ws.slug}`)).toEqual([one.id, two.id].sort());
    expect(await ids('')).toEqual([one.id, two.id, elsewhere.id].sort());
    expect(await ids(`workspace_id=${ws.id}&status=archived`)).toEqual([archived.id]);
    expect(await ids('status=active,archived')).toHaveLength(4);
    const page = await list('page_size=2&current_page=1');
    expect(page.total).toBe(3);
    expect(page.data).toHaveLength(1);
    expect(page.data[0]).not.toHaveProperty('config');
    expect((await cp.call('get', '/configs?name=listed')).body).toEqual({
      object: 'list',
      data: [],
      total: 0,
    });
    expectError(await cp.call('get', '/configs?status=gone'), 400, 'AB01', 'query.status.0');
    expectError(await cp.call('get', '/configs?page_size=-1'), 400, 'AB01', 'query.page_size');
    expectError(await cp.call('get', '/configs?workspace_id=unknown-ws'), 404, 'AB08');
  });

  test('delete: 200 {}, versions gone, a tombstone for gateways, the slug free again; audited', async ({
    cp,
    pg,
  }) => {
    const ws = await workspace(cp, 'Deletes');
    const created = await create(cp, { name: 'Doomed', workspace_id: ws.id });
    await cp.call('put', `/configs/${created.id}`, { body: { config: { provider: 'openai' } } });
    const deleted = await cp.call('delete', `/configs/doomed?workspace_id=${ws.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({});
    expect(await lastChange(pg.pool, created.id, EntityKind.CONFIG)).toMatchObject({
      version: 3,
      tombstone: true,
      workspaceId: ws.id,
    });
    expectError(await cp.call('get', `/configs/${created.id}`), 404, 'AB08');
    expectError(await cp.call('get', `/configs/${created.id}/versions/1`), 404, 'AB08');
    const versions = await pg.pool.query('select 1 from control.config_versions where config_id = $1', [
      created.id,
    ]);
    expect(versions.rowCount).toBe(0);
    expect((await create(cp, { name: 'Doomed', workspace_id: ws.id })).slug).toBe('doomed');
    const audit = (await auditEvents(pg.pool)).find(
      (a) => a.action === 'configs.delete' && a.resourceId === created.id,
    );
    expect(audit).toMatchObject({ outcome: AuditOutcome.SUCCESS, statusCode: 200, workspaceId: ws.id });
  });

  test('snapshot: every config at its latest version, archived ones with their status, tombstones', async ({
    cp,
  }) => {
    const ws = await workspace(cp, 'Snapshot');
    const kept = await create(cp, { name: 'Kept', workspace_id: ws.id });
    await cp.call('put', `/configs/${kept.id}`, { body: { config: { provider: 'anthropic' } } });
    const archived = await create(cp, { name: 'Shelved', workspace_id: ws.id });
    await cp.call('put', `/configs/${archived.id}`, { body: { status: 'archived' } });
    const gone = await create(cp, { name: 'Gone', workspace_id: ws.id });
    await cp.call('delete', `/configs/${gone.id}`);

    const entities = snapshotEntities(await readSnapshot(cp.app.ports.grpc)).filter(
      (e) => e.kind === EntityKind.CONFIG,
    );
    expect(entities.find((e) => e.id === kept.id)).toMatchObject({
      version: 2,
      body: { value: { version: 2, bodyJson: JSON.stringify({ provider: 'anthropic' }) } },
    });
    expect(entities.find((e) => e.id === archived.id)).toMatchObject({
      version: 2,
      body: { value: { status: EntityStatus.ARCHIVED } },
    });
    expect(entities.find((e) => e.id === gone.id)).toMatchObject({ version: 2, tombstone: true });
  });
});

function create409(cp: Parameters<typeof provider>[0], workspaceId: string, slug: string) {
  return cp.call('post', '/configs', {
    body: { name: 'Clash', workspace_id: workspaceId, slug, config: FALLBACK },
  });
}
