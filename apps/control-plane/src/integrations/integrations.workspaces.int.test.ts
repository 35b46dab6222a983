// Integration workspaces: access and per-workspace limits, default providers on create and on bulk
// update, and which workspaces may then create providers of the integration.
import { randomUUID } from 'node:crypto';
import { AuditOutcome, EntityKind } from '@aigw/proto';
import { describe, expect } from 'vitest';
import { test } from '../../test/harness.js';
import { auditEvents } from '../../test/outbox-rows.js';
import {
  createIntegration,
  entityChanges,
  expectError,
  serviceKey,
  workspace,
} from './integrations.test-support.js';

async function providersOf(cp: Parameters<typeof workspace>[0], integrationId: string) {
  const res = await cp.call('get', `/providers?integration_id=${integrationId}`);
  expect(res.status).toBe(200);
  return (res.body.data as { workspace_id: string; slug: string; name: string }[])
    .map((p) => ({ workspace_id: p.workspace_id, slug: p.slug, name: p.name }))
    .sort((x, y) => x.workspace_id.localeCompare(y.workspace_id));
}

const byWorkspace = <T extends { workspace_id: string }>(list: T[]) =>
  [...list].sort((x, y) => x.workspace_id.localeCompare(y.workspace_id));

describe('integration workspaces', () => {
  test('create with workspaces: limits per workspace and a default provider in each enabled one', async ({
    cp,
    pg,
  }) => {
    const a = await workspace(cp, 'Alpha');
    const b = await workspace(cp, 'Beta');
    const c = await workspace(cp, 'Gamma');
    const created = await createIntegration(cp, {
      name: 'Shared OpenAI',
      workspaces: [
        { id: a.slug, rate_limits: [{ type: 'requests', unit: 'rpm', value: 10 }] },
        { id: b.id, usage_limits: { credit_limit: 5 } },
        { id: c.id, enabled: false },
      ],
    });
    expect(created.workspaces).toEqual([
      {
        id: a.id,
        object: 'integration-workspace',
        enabled: true,
        rate_limits: [{ type: 'requests', unit: 'rpm', value: 10 }],
        usage_limits: [],
      },
      {
        id: b.id,
        object: 'integration-workspace',
        enabled: true,
        rate_limits: [],
        usage_limits: [{ type: 'cost', credit_limit: 5, current_usage: 0 }],
      },
      { id: c.id, object: 'integration-workspace', enabled: false, rate_limits: [], usage_limits: [] },
    ]);
    expect(await providersOf(cp, created.id)).toEqual(
      byWorkspace([
        { workspace_id: a.id, slug: 'shared-openai', name: 'Shared OpenAI' },
        { workspace_id: b.id, slug: 'shared-openai', name: 'Shared OpenAI' },
      ]),
    );
    const entity = (await entityChanges(pg.pool, created.id, EntityKind.INTEGRATION))[0];
    const body = entity?.body?.$case === 'integration' ? entity.body.value : undefined;
    expect(
      body?.workspaces.map((w) => [w.workspaceId, w.enabled, w.rateLimits.length, w.usageLimits.length]),
    ).toEqual([
      [a.id, true, 1, 0],
      [b.id, true, 0, 1],
      [c.id, false, 0, 0],
    ]);

    const named = await createIntegration(cp, {
      name: 'Named default',
      workspaces: [{ id: a.id }],
      default_provider_slug: 'gpt',
    });
    expect(await providersOf(cp, named.id)).toEqual([
      { workspace_id: a.id, slug: 'gpt', name: 'Named default' },
    ]);
    const none = await createIntegration(cp, {
      name: 'No default',
      workspaces: [{ id: a.id }],
      create_default_provider: false,
    });
    expect(await providersOf(cp, none.id)).toEqual([]);
    const listed = await cp.call('get', `/integrations/${created.id}/workspaces`);
    expect(listed.body).toMatchObject({ object: 'list', total: 3 });
    expect(listed.body.data).toEqual(created.workspaces);
  });

  test('workspace entries are validated: unknown 404 AB02, archived 409, repeated 400, limits by path', async ({
    cp,
  }) => {
    const a = await workspace(cp, 'Valid');
    const archived = await workspace(cp, 'Old');
    expect((await cp.call('delete', `/workspaces/${archived.id}`)).status).toBe(200);
    const cases: [unknown[], number, string, string][] = [
      [[{ id: randomUUID() }], 404, 'AB02', 'body.workspaces.0.id'],
      [[{ id: a.id }, { id: 'no-such-workspace' }], 404, 'AB02', 'body.workspaces.1.id'],
      [[{ id: archived.id }], 409, 'AB07', 'body.workspaces.0.id'],
      [[{ id: a.id }, { id: a.slug }], 400, 'AB01', 'body.workspaces.1.id'],
      [
        [{ id: a.id, rate_limits: [{ type: 'requests', unit: 'rpm', value: 0 }] }],
        400,
        'AB01',
        'body.workspaces.0.rate_limits.0.value',
      ],
      [
        [{ id: a.id, usage_limits: [{ credit_limit: 1, periodic_reset: 'daily' }] }],
        400,
        'AB01',
        'body.workspaces.0.usage_limits.0.periodic_reset',
      ],
    ];
    for (const [workspaces, status, code, param] of cases) {
      expectError(
        await cp.call('post', '/integrations', {
          body: { name: 'Bad ws', ai_provider: 'ollama', workspaces },
        }),
        status,
        code,
        param,
      );
    }
    const target = await createIntegration(cp, { name: 'Target' });
    for (const [workspaces, status, code, param] of cases) {
      expectError(
        await cp.call('put', `/integrations/${target.id}/workspaces`, { body: { workspaces } }),
        status,
        code,
        param,
      );
    }
    expectError(
      await cp.call('put', `/integrations/${target.id}/workspaces`, { body: {} }),
      400,
      'AB01',
      'body.workspaces',
    );
    expectError(
      await cp.call('put', `/integrations/${randomUUID()}/workspaces`, { body: { workspaces: [] } }),
      404,
      'AB08',
    );
    expect((await cp.call('get', `/integrations/${target.id}/workspaces`)).body.total).toBe(0);
  });

  test('bulk update upserts the named entries and creates missing default providers only', async ({
    cp,
    pg,
  }) => {
    const a = await workspace(cp, 'Bulk A');
    const b = await workspace(cp, 'Bulk B');
    const c = await workspace(cp, 'Bulk C');
    const created = await createIntegration(cp, {
      name: 'Bulk',
      workspaces: [{ id: a.id, rate_limits: [{ type: 'tokens', unit: 'rpd', value: 1000 }] }],
    });
    const updated = await cp.call('put', `/integrations/${created.id}/workspaces`, {
      body: {
        workspaces: [
          { id: a.id, usage_limits: { credit_limit: 9 } },
          { id: b.slug },
          { id: c.id, enabled: false },
        ],
      },
    });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expect(updated.body.data).toEqual([
      {
        id: a.id,
        object: 'integration-workspace',
        enabled: true,
        rate_limits: [{ type: 'tokens', unit: 'rpd', value: 1000 }],
        usage_limits: [{ type: 'cost', credit_limit: 9, current_usage: 0 }],
      },
      { id: b.id, object: 'integration-workspace', enabled: true, rate_limits: [], usage_limits: [] },
      { id: c.id, object: 'integration-workspace', enabled: false, rate_limits: [], usage_limits: [] },
    ]);
    expect((await providersOf(cp, created.id)).map((p) => p.workspace_id).sort()).toEqual(
      [a.id, b.id].sort(),
    );

    // Enabling C with its own default slug; A and B already have one and get nothing new.
    const again = await cp.call('put', `/integrations/${created.id}/workspaces`, {
      body: {
        workspaces: [{ id: a.id }, { id: b.id }, { id: c.id, enabled: true, rate_limits: null }],
        default_provider_slug: 'bulk-c',
      },
    });
    expect(again.status).toBe(200);
    expect(await providersOf(cp, created.id)).toEqual(
      byWorkspace([
        { workspace_id: a.id, slug: 'bulk', name: 'Bulk' },
        { workspace_id: b.id, slug: 'bulk', name: 'Bulk' },
        { workspace_id: c.id, slug: 'bulk-c', name: 'Bulk' },
      ]),
    );
    expect(again.body.data[0].usage_limits).toEqual([{ type: 'cost', credit_limit: 9, current_usage: 0 }]);

    // A clash with another provider's slug refuses the whole update.
    const d = await workspace(cp, 'Bulk D');
    const other = await createIntegration(cp, {
      name: 'Bulk',
      slug: 'other-bulk',
      workspaces: [{ id: d.id }],
      default_provider_slug: 'bulk',
    });
    expect((await providersOf(cp, other.id)).length).toBe(1);
    const before = await entityChanges(pg.pool, created.id, EntityKind.INTEGRATION);
    const clash = await cp.call('put', `/integrations/${created.id}/workspaces`, {
      body: { workspaces: [{ id: d.id }] },
    });
    expectError(clash, 409, 'AB07', 'body.default_provider_slug');
    expect((await cp.call('get', `/integrations/${created.id}/workspaces`)).body.total).toBe(3);
    expect(await entityChanges(pg.pool, created.id, EntityKind.INTEGRATION)).toHaveLength(before.length);
    const skipped = await cp.call('put', `/integrations/${created.id}/workspaces`, {
      body: { workspaces: [{ id: d.id }], create_default_provider: false },
    });
    expect(skipped.body.total).toBe(4);
    const audits = (await auditEvents(pg.pool)).filter(
      (e) => e.action === 'integrations.workspaces.update' && e.resourceId === created.id,
    );
    expect(audits.map((e) => [e.resourceId, e.outcome])).toEqual([
      [created.id, AuditOutcome.SUCCESS],
      [created.id, AuditOutcome.SUCCESS],
      [created.id, AuditOutcome.FAILURE],
      [created.id, AuditOutcome.SUCCESS],
    ]);
  });

  test('allow_all_workspaces opens every workspace except one with a disabled entry', async ({ cp }) => {
    const open = await workspace(cp, 'Open');
    const closed = await workspace(cp, 'Closed');
    const created = await createIntegration(cp, {
      name: 'Everyone',
      allow_all_workspaces: true,
      workspaces: [{ id: closed.id, enabled: false }],
    });
    const usable = async (ws: string) =>
      (await cp.call('get', `/integrations?workspace_id=${ws}&page_size=500`)).body.data.some(
        (i: { id: string }) => i.id === created.id,
      );
    expect(await usable(open.id)).toBe(true);
    expect(await usable(closed.id)).toBe(false);
    const openKey = await serviceKey(cp, open.id, ['providers.create']);
    const closedKey = await serviceKey(cp, closed.id, ['providers.create']);
    const made = await cp.call('post', '/providers', {
      key: openKey,
      body: { integration_id: created.slug },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const refused = await cp.call('post', '/providers', {
      key: closedKey,
      body: { integration_id: created.id },
    });
    expectError(refused, 404, 'AB02', 'body.integration_id');

    const shut = await cp.call('put', `/integrations/${created.id}/workspaces`, {
      body: {
        allow_all_workspaces: false,
        workspaces: [{ id: closed.id, enabled: true }],
        create_default_provider: false,
      },
    });
    expect(shut.status).toBe(200);
    expect(await usable(open.id)).toBe(false);
    expect(await usable(closed.id)).toBe(true);
    expect((await cp.call('get', `/integrations/${created.id}`)).body.allow_all_workspaces).toBe(false);
  });
});
