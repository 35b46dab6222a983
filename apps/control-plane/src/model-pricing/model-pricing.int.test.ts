// Organisation price overrides end to end: create, get, update, delete, their change events and
// audit records, conflicts, and the read-only platform rows.
import { AuditOutcome, EntityKind } from '@aigw/proto';
import { describe, expect } from 'vitest';
import { test } from '../../test/harness.js';
import { auditEvents, changeEvents } from '../../test/outbox-rows.js';
import { organisationId } from '../workspaces/workspaces.test-support.js';
import { platformRow } from './model-pricing.test-support.js';

describe('model pricing overrides', () => {
  test('create returns 201 with exact prices, a change event and an audit record; duplicates are 409', async ({
    cp,
    pg,
  }) => {
    const orgId = await organisationId(pg.pool);
    const created = await cp.call('post', '/model-pricing', {
      body: {
        ai_provider: 'anthropic',
        model: 'claude-sonnet-4*',
        input_per_mtok: 2.7,
        output_per_mtok: 13.5,
        cached_input_per_mtok: 0.27,
        per_request: 0.000001,
        extra: { per_image: 0.0048 },
      },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      object: 'model_pricing',
      source: 'organisation',
      organisation_id: orgId,
      ai_provider: 'anthropic',
      model: 'claude-sonnet-4*',
      currency: 'USD',
      input_per_mtok: 2.7,
      output_per_mtok: 13.5,
      cached_input_per_mtok: 0.27,
      // omitted: the input price
      cache_write_per_mtok: 2.7,
      per_request: 0.000001,
      extra: { per_image: 0.0048 },
      overridden: false,
    });
    expect(created.body.id).toMatch(/^[0-9a-f-]{36}$/);

    const change = (await changeEvents(pg.pool)).find((c) => c.entity?.id === created.body.id);
    expect(change?.entity).toMatchObject({
      kind: EntityKind.MODEL_PRICING,
      version: 1,
      tombstone: false,
      organisationId: orgId,
      workspaceId: '',
      body: {
        $case: 'modelPricing',
        value: {
          aiProvider: 'anthropic',
          model: 'claude-sonnet-4*',
          currency: 'USD',
          inputMicrosPerMtok: 2_700_000,
          outputMicrosPerMtok: 13_500_000,
          cachedInputMicrosPerMtok: 270_000,
          cacheWriteMicrosPerMtok: 2_700_000,
          requestMicros: 1,
          extraJson: '{"per_image":4800}',
        },
      },
    });
    const audit = (await auditEvents(pg.pool)).find(
      (a) => a.action === 'model_pricing.create' && a.resourceId === created.body.id,
    );
    expect(audit).toMatchObject({
      organisationId: orgId,
      resourceType: 'model_pricing',
      workspaceId: '',
      outcome: AuditOutcome.SUCCESS,
      statusCode: 201,
    });

    const again = await cp.call('post', '/model-pricing', {
      body: { ai_provider: 'anthropic', model: 'claude-sonnet-4*', input_per_mtok: 1, output_per_mtok: 1 },
    });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'AB07', type: 'conflict_error', param: 'body.model' });
    // the same pattern for another provider is another row
    const bedrock = await cp.call('post', '/model-pricing', {
      body: { ai_provider: 'vertex-ai', model: 'claude-sonnet-4*', input_per_mtok: 1, output_per_mtok: 1 },
    });
    expect(bedrock.status).toBe(201);
  });

  test('get: unknown is 404 AB08, a malformed id is 400 AB01', async ({ cp }) => {
    const unknown = await cp.call('get', '/model-pricing/00000000-0000-4000-8000-000000000000');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({ code: 'AB08', type: 'not_found_error' });
    const odd = await cp.call('get', `/model-pricing/${encodeURIComponent("x' or '1'='1")}`);
    expect(odd.status).toBe(400);
    expect(odd.body.error).toMatchObject({ code: 'AB01', param: 'path.pricingId' });
  });

  test('update changes the given fields, bumps the version, emits and audits; clashes are 409', async ({
    cp,
    pg,
  }) => {
    const created = await cp.call('post', '/model-pricing', {
      body: { ai_provider: 'mistral-ai', model: 'mistral-large*', input_per_mtok: 1.8, output_per_mtok: 5.4 },
    });
    const updated = await cp.call('put', `/model-pricing/${created.body.id}`, {
      body: { output_per_mtok: 5, per_request: 0.01, extra: { per_page: 0.001 } },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({
      id: created.body.id,
      model: 'mistral-large*',
      input_per_mtok: 1.8,
      cached_input_per_mtok: 1.8,
      output_per_mtok: 5,
      per_request: 0.01,
      extra: { per_page: 0.001 },
    });
    const renamed = await cp.call('put', `/model-pricing/${created.body.id}`, {
      body: { model: 'mistral-large-2411' },
    });
    expect(renamed.body).toMatchObject({ model: 'mistral-large-2411', output_per_mtok: 5 });

    const changes = (await changeEvents(pg.pool)).filter((c) => c.entity?.id === created.body.id);
    expect(changes.map((c) => c.entity?.version)).toEqual([1, 2, 3]);
    expect(changes[1]?.entity?.body).toMatchObject({
      value: { outputMicrosPerMtok: 5_000_000, requestMicros: 10_000, extraJson: '{"per_page":1000}' },
    });
    const audits = (await auditEvents(pg.pool)).filter(
      (a) => a.action === 'model_pricing.update' && a.resourceId === created.body.id,
    );
    expect(audits.map((a) => a.statusCode)).toEqual([200, 200]);

    const other = await cp.call('post', '/model-pricing', {
      body: { ai_provider: 'mistral-ai', model: 'mistral-small*', input_per_mtok: 0.1, output_per_mtok: 0.3 },
    });
    const clash = await cp.call('put', `/model-pricing/${other.body.id}`, {
      body: { model: 'mistral-large-2411' },
    });
    expect(clash.status).toBe(409);
    expect(clash.body.error).toMatchObject({ code: 'AB07', param: 'body.model' });
    expect((await cp.call('get', `/model-pricing/${other.body.id}`)).body.model).toBe('mistral-small*');
  });

  test('delete removes the override (tombstone, audit) and the platform price applies again', async ({
    cp,
    pg,
  }) => {
    const platform = await platformRow(cp, 'deepseek', 'deepseek-chat');
    const created = await cp.call('post', '/model-pricing', {
      body: { ai_provider: 'deepseek', model: 'deepseek-chat', input_per_mtok: 0.2, output_per_mtok: 1 },
    });
    const deleted = await cp.call('delete', `/model-pricing/${created.body.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ id: created.body.id, source: 'organisation', input_per_mtok: 0.2 });
    expect((await cp.call('get', `/model-pricing/${created.body.id}`)).status).toBe(404);
    expect((await cp.call('delete', `/model-pricing/${created.body.id}`)).status).toBe(404);

    const effective = await cp.call('get', '/model-pricing?ai_provider=deepseek&model=deepseek-chat');
    expect(effective.body.data.map((r: { id: string }) => r.id)).toEqual([platform.id]);
    expect(effective.body.data[0].overridden).toBe(false);

    const changes = (await changeEvents(pg.pool)).filter((c) => c.entity?.id === created.body.id);
    expect(changes.map((c) => [c.entity?.version, c.entity?.tombstone])).toEqual([
      [1, false],
      [2, true],
    ]);
    const audit = (await auditEvents(pg.pool)).find(
      (a) => a.action === 'model_pricing.delete' && a.resourceId === created.body.id && a.statusCode === 200,
    );
    expect(audit).toMatchObject({ resourceType: 'model_pricing', outcome: AuditOutcome.SUCCESS });
  });

  test('platform rows are read-only: update and delete are 403 AB03 and change nothing', async ({ cp }) => {
    const platform = await platformRow(cp, 'cohere', 'command-a*');
    const update = await cp.call('put', `/model-pricing/${platform.id}`, { body: { input_per_mtok: 0 } });
    expect(update.status).toBe(403);
    expect(update.body.error).toMatchObject({ code: 'AB03', type: 'permission_error' });
    const remove = await cp.call('delete', `/model-pricing/${platform.id}`);
    expect(remove.status).toBe(403);
    expect((await cp.call('get', `/model-pricing/${platform.id}`)).body).toEqual(platform);
  });
});
