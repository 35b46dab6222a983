// Workspace routes end to end: CRUD, slugs, archive, settings, visibility, filters and pagination.
import { AuditOutcome, EntityKind, EntityStatus } from '@aigw/proto';
import { describe, expect } from 'vitest';
import { test } from '../../test/harness.js';
import { auditEvents, changeEvents } from '../../test/outbox-rows.js';
import { insertWorkspaceKey, organisationId } from './workspaces.test-support.js';

const ACCESS_DEFAULTS = {
  membersViewAllData: true,
  managersViewAllData: true,
  membersViewAnalytics: true,
  managersViewAnalytics: true,
  membersViewPrompts: true,
  managersViewPrompts: true,
  membersWritePrompts: false,
  managersWritePrompts: true,
};

describe('workspaces', () => {
  test('create returns 201 with defaults, a generated slug, a change event and an audit record', async ({
    cp,
    pg,
  }) => {
    const created = await cp.call('post', '/workspaces', {
      body: { name: 'Research & Development', description: 'R&D', default_metadata: { team: 'rd' } },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      object: 'workspace',
      organisation_id: await organisationId(pg.pool),
      name: 'Research & Development',
      slug: 'research-development',
      description: 'R&D',
      status: 'active',
      default_metadata: { team: 'rd' },
      settings: {
        ...ACCESS_DEFAULTS,
        max_api_keys_per_user: 0,
        api_key_default_expiry_days: null,
        api_key_max_expiry_days: null,
        disable_body_logging: false,
      },
      settings_overrides: {},
      usage_limits: [],
      rate_limits: [],
    });
    expect(created.body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(Date.parse(created.body.created_at)).not.toBeNaN();

    const change = (await changeEvents(pg.pool)).find((c) => c.entity?.id === created.body.id);
    expect(change?.entity).toMatchObject({
      kind: EntityKind.WORKSPACE,
      version: 1,
      tombstone: false,
      organisationId: created.body.organisation_id,
      workspaceId: created.body.id,
      body: {
        $case: 'workspace',
        value: {
          name: 'Research & Development',
          slug: 'research-development',
          status: EntityStatus.ACTIVE,
          defaultMetadata: { team: 'rd' },
          settings: { maxApiKeysPerUser: 0, disableBodyLogging: false },
          rateLimits: [],
          usageLimits: [],
        },
      },
    });
    const audit = (await auditEvents(pg.pool)).find((a) => a.action === 'workspaces.create');
    expect(audit).toMatchObject({
      resourceType: 'workspace',
      resourceId: created.body.id,
      workspaceId: created.body.id,
      outcome: AuditOutcome.SUCCESS,
      statusCode: 201,
    });
  });

  test('slugs: generated ones get a numeric suffix, a given clash is 409 AB07, bad slugs are 400', async ({
    cp,
  }) => {
    const first = await cp.call('post', '/workspaces', { body: { name: 'Twin' } });
    const second = await cp.call('post', '/workspaces', { body: { name: 'twin!' } });
    expect([first.body.slug, second.body.slug]).toEqual(['twin', 'twin-2']);

    const clash = await cp.call('post', '/workspaces', { body: { name: 'Other', slug: 'twin' } });
    expect(clash.status).toBe(409);
    expect(clash.body.error).toMatchObject({ code: 'AB07', type: 'conflict_error', param: 'body.slug' });

    const onlySymbols = await cp.call('post', '/workspaces', { body: { name: '***' } });
    expect(onlySymbols.body.slug).toBe('workspace');

    for (const slug of [
      'Upper',
      '-lead',
      'a'.repeat(64),
      'with space',
      '0b1e7a4e-8c1b-4d5e-9f00-123456789abc',
    ]) {
      const bad = await cp.call('post', '/workspaces', { body: { name: 'Bad', slug } });
      expect(bad.status, slug).toBe(400);
      expect(bad.body.error).toMatchObject({ code: 'AB01', param: 'body.slug' });
    }

    const renameClash = await cp.call('put', `/workspaces/${second.body.id}`, { body: { slug: 'twin' } });
    expect(renameClash.status).toBe(409);
    expect(renameClash.body.error.code).toBe('AB07');
  });

  test('get by id or slug; unknown is 404 AB08, a malformed id is 400', async ({ cp }) => {
    const created = await cp.call('post', '/workspaces', { body: { name: 'Lookup', slug: 'lookup' } });
    expect((await cp.call('get', `/workspaces/${created.body.id}`)).body.slug).toBe('lookup');
    expect((await cp.call('get', `/workspaces/${created.body.id.toUpperCase()}`)).body.id).toBe(
      created.body.id,
    );
    expect((await cp.call('get', '/workspaces/lookup')).body.id).toBe(created.body.id);
    const unknown = await cp.call('get', '/workspaces/no-such-workspace');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({ code: 'AB08', type: 'not_found_error' });
    expect((await cp.call('get', '/workspaces/00000000-0000-4000-8000-000000000000')).status).toBe(404);
    const odd = await cp.call('get', `/workspaces/${encodeURIComponent("x' or '1'='1")}`);
    expect(odd.status).toBe(400);
  });

  test('update changes fields, bumps the version and emits the new state', async ({ cp, pg }) => {
    const created = await cp.call('post', '/workspaces', { body: { name: 'Before' } });
    const updated = await cp.call('put', `/workspaces/${created.body.id}`, {
      body: { name: 'After', description: 'new', default_metadata: { env: 'prod' }, slug: 'after' },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({
      name: 'After',
      slug: 'after',
      description: 'new',
      default_metadata: { env: 'prod' },
    });
    const kept = await cp.call('put', '/workspaces/after', { body: { description: 'newer' } });
    expect(kept.body).toMatchObject({
      name: 'After',
      description: 'newer',
      default_metadata: { env: 'prod' },
    });

    const versions = (await changeEvents(pg.pool))
      .filter((c) => c.entity?.id === created.body.id)
      .map((c) => c.entity?.version);
    expect(versions).toEqual([1, 2, 3]);

    const empty = await cp.call('put', `/workspaces/${created.body.id}`, { body: {} });
    expect(empty.status).toBe(400);
    const unknownField = await cp.call('put', `/workspaces/${created.body.id}`, { body: { colour: 'red' } });
    expect(unknownField.status).toBe(400);
    expect(unknownField.body.error.message).toContain('colour');
    expect((await cp.call('put', '/workspaces/missing', { body: { name: 'x' } })).status).toBe(404);
  });

  test('settings: overrides over organisation values over spec defaults; null removes an override', async ({
    cp,
  }) => {
    expect(
      (await cp.call('put', '/organisation', { body: { settings: { membersViewAllData: false } } })).status,
    ).toBe(200);
    const created = await cp.call('post', '/workspaces', {
      body: {
        name: 'Settings',
        settings: { membersViewAllData: true, membersWritePrompts: true, max_api_keys_per_user: 5 },
      },
    });
    expect(created.status).toBe(201);
    expect(created.body.settings).toMatchObject({
      membersViewAllData: true,
      membersWritePrompts: true,
      managersViewAnalytics: true,
      max_api_keys_per_user: 5,
    });
    expect(created.body.settings_overrides).toEqual({
      membersViewAllData: true,
      membersWritePrompts: true,
      max_api_keys_per_user: 5,
    });

    const patched = await cp.call('put', `/workspaces/${created.body.id}`, {
      body: {
        settings: {
          membersViewAllData: null,
          api_key_default_expiry_days: 30,
          api_key_max_expiry_days: 90,
          disable_body_logging: true,
        },
      },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.settings).toMatchObject({
      membersViewAllData: false,
      membersWritePrompts: true,
      api_key_default_expiry_days: 30,
      api_key_max_expiry_days: 90,
      disable_body_logging: true,
    });
    expect(patched.body.settings_overrides).toEqual({
      membersWritePrompts: true,
      max_api_keys_per_user: 5,
      api_key_default_expiry_days: 30,
      api_key_max_expiry_days: 90,
      disable_body_logging: true,
    });

    const cleared = await cp.call('put', `/workspaces/${created.body.id}`, {
      body: { settings: { max_api_keys_per_user: null, api_key_max_expiry_days: null } },
    });
    expect(cleared.body.settings).toMatchObject({ max_api_keys_per_user: 0, api_key_max_expiry_days: null });
  });

  test('DELETE archives (idempotent), archived ones leave the default list, PUT status active restores', async ({
    cp,
    pg,
  }) => {
    const created = await cp.call('post', '/workspaces', { body: { name: 'Archive me' } });
    const archived = await cp.call('delete', `/workspaces/${created.body.id}`);
    expect(archived.status).toBe(200);
    expect(archived.body).toMatchObject({ id: created.body.id, status: 'archived' });
    expect((await cp.call('delete', `/workspaces/${created.body.id}`)).body.status).toBe('archived');
    expect((await cp.call('get', `/workspaces/${created.body.id}`)).body.status).toBe('archived');

    const changes = (await changeEvents(pg.pool)).filter((c) => c.entity?.id === created.body.id);
    expect(changes.map((c) => c.entity?.version)).toEqual([1, 2]);
    expect(changes[1]?.entity?.body).toMatchObject({ value: { status: EntityStatus.ARCHIVED } });

    const active = await cp.call('get', '/workspaces?name=Archive%20me');
    expect(active.body).toEqual({ object: 'list', data: [], total: 0 });
    const both = await cp.call('get', '/workspaces?name=Archive%20me&status=active,archived');
    expect(both.body.total).toBe(1);

    const restored = await cp.call('put', `/workspaces/${created.body.id}`, { body: { status: 'active' } });
    expect(restored.body.status).toBe('active');
    expect((await cp.call('get', '/workspaces?name=Archive%20me')).body.total).toBe(1);
  });

  test('the name filter is strict: exact and case-sensitive', async ({ cp }) => {
    await cp.call('post', '/workspaces', { body: { name: 'Strict Name' } });
    await cp.call('post', '/workspaces', { body: { name: 'Strict Name Two' } });
    const exact = await cp.call('get', '/workspaces?name=Strict%20Name');
    expect(exact.body.data.map((w: { name: string }) => w.name)).toEqual(['Strict Name']);
    for (const name of ['strict name', 'Strict', 'Strict%', 'Strict_Name', ' Strict Name']) {
      const miss = await cp.call('get', `/workspaces?name=${encodeURIComponent(name)}`);
      expect(miss.status, name).toBe(200);
      expect(miss.body.total, name).toBe(0);
    }
  });

  test('a workspace-bound caller sees only its own workspace and may not list archived ones', async ({
    cp,
    pg,
  }) => {
    const orgId = await organisationId(pg.pool);
    const mine = await cp.call('post', '/workspaces', { body: { name: 'Mine' } });
    const other = await cp.call('post', '/workspaces', { body: { name: 'Not mine' } });
    const { key } = await insertWorkspaceKey(pg.pool, {
      orgId,
      workspaceId: mine.body.id,
      scopes: ['workspaces.list', 'workspaces.read'],
    });
    const list = await cp.call('get', '/workspaces', { key });
    expect(list.body.data.map((w: { id: string }) => w.id)).toEqual([mine.body.id]);
    expect(list.body.total).toBe(1);
    expect((await cp.call('get', `/workspaces/${mine.body.id}`, { key })).status).toBe(200);
    const hidden = await cp.call('get', `/workspaces/${other.body.id}`, { key });
    expect(hidden.status).toBe(404);
    expect(hidden.body.error.code).toBe('AB08');

    for (const status of ['archived', 'active,archived']) {
      const refused = await cp.call('get', `/workspaces?status=${status}`, { key });
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe('AB03');
    }
    const owner = await cp.call('get', '/workspaces?status=archived');
    expect(owner.status).toBe(200);

    const write = await cp.call('post', '/workspaces', { key, body: { name: 'Sneaky' } });
    expect(write.status).toBe(403);
    expect((await cp.call('put', `/workspaces/${mine.body.id}`, { key, body: { name: 'x' } })).status).toBe(
      403,
    );
    expect((await cp.call('delete', `/workspaces/${mine.body.id}`, { key })).status).toBe(403);

    const noScope = await insertWorkspaceKey(pg.pool, {
      orgId,
      workspaceId: mine.body.id,
      scopes: ['logs.list'],
    });
    expect((await cp.call('get', '/workspaces', { key: noScope.key })).status).toBe(403);
  });

  test('pagination and hostile filters: 400 or empty, never 500', async ({ cp }) => {
    for (const name of ['Page A', 'Page B', 'Page C'])
      await cp.call('post', '/workspaces', { body: { name } });
    const all = await cp.call('get', '/workspaces');
    const total = all.body.total;
    expect(total).toBeGreaterThanOrEqual(3);

    const zero = await cp.call('get', '/workspaces?page_size=0');
    expect(zero.body).toEqual({ object: 'list', data: [], total });
    const pageTwo = await cp.call('get', '/workspaces?page_size=2&current_page=1');
    expect(pageTwo.body.data).toEqual(all.body.data.slice(2, 4));
    const beyond = await cp.call('get', '/workspaces?page_size=2&current_page=1000');
    expect(beyond.body).toEqual({ object: 'list', data: [], total });

    const bad = [
      'page_size=-1',
      'current_page=-1',
      'page_size=abc',
      'current_page=1.5',
      'page_size=501',
      'status=deleted',
      'status=',
      `status=${encodeURIComponent("active' OR '1'='1")}`,
      `page_size=${encodeURIComponent('1; drop table control.workspaces')}`,
      'status=active&status=archived',
    ];
    for (const query of bad) {
      const response = await cp.call('get', `/workspaces?${query}`);
      expect(response.status, query).toBe(400);
      expect(response.body.error.code, query).toBe('AB01');
    }
    for (const name of ["' OR 1=1 --", 'x"; drop table control.workspaces; --', '%', '\\']) {
      const response = await cp.call('get', `/workspaces?name=${encodeURIComponent(name)}`);
      expect(response.status, name).toBe(200);
      expect(response.body.total, name).toBe(0);
    }
    expect((await cp.call('get', '/workspaces')).body.total).toBe(total);
  });
});
