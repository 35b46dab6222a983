// Who may touch model pricing, and what a bad request gets: scopes (model_pricing.*), organisation-
// level callers only, tenant isolation (another organisation's override is 404) and AB01 errors.
import { AuditOutcome } from '@aigw/proto';
import { describe, expect } from 'vitest';
import { test } from '../../test/harness.js';
import { auditEvents } from '../../test/outbox-rows.js';
import {
  adminKeyWith,
  otherOrganisationKey,
  PRICING_SCOPES,
  workspaceKey,
} from './model-pricing.test-support.js';

const body = { ai_provider: 'openai', model: 'gpt-4o*', input_per_mtok: 2, output_per_mtok: 8 };

describe('model pricing access', () => {
  test('each route needs its own scope (403 AB03), and the refusal is audited', async ({ cp, pg }) => {
    const created = await cp.call('post', '/model-pricing', { body });
    expect(created.status).toBe(201);
    const id = created.body.id;
    const routes: [string, string, string, unknown?][] = [
      ['model_pricing.create', 'post', '/model-pricing', { ...body, model: 'gpt-4o-x' }],
      ['model_pricing.list', 'get', '/model-pricing'],
      ['model_pricing.read', 'get', `/model-pricing/${id}`],
      ['model_pricing.read', 'get', '/model-pricing/resolve?ai_provider=openai&model=gpt-4o'],
      ['model_pricing.update', 'put', `/model-pricing/${id}`, { output_per_mtok: 7 }],
      ['model_pricing.delete', 'delete', `/model-pricing/${id}`],
    ];
    const none = await adminKeyWith(cp, ['workspaces.list']);
    for (const [scope, method, path, payload] of routes) {
      const refused = await cp.call(method, path, { key: none, body: payload });
      expect(refused.status, `${method} ${path}`).toBe(403);
      expect(refused.body.error).toMatchObject({ code: 'AB03', message: `missing scope ${scope}` });
      const allowed = await adminKeyWith(cp, [scope]);
      const ok = await cp.call(method, path, { key: allowed, body: payload });
      expect(ok.status, `${method} ${path} with ${scope}`).toBeLessThan(300);
    }
    const refusals = (await auditEvents(pg.pool)).filter(
      (a) => a.action.startsWith('model_pricing.') && a.outcome !== AuditOutcome.SUCCESS,
    );
    expect(refusals.map((a) => [a.action, a.statusCode])).toEqual([
      ['model_pricing.create', 403],
      ['model_pricing.update', 403],
      ['model_pricing.delete', 403],
    ]);
  });

  test('workspace-bound callers are refused with 403 AB03, even holding the scopes', async ({ cp, pg }) => {
    const key = await workspaceKey(pg.pool, PRICING_SCOPES);
    for (const [method, path, payload] of [
      ['get', '/model-pricing'],
      ['post', '/model-pricing', body],
    ] as const) {
      const refused = await cp.call(method, path, { key, body: payload });
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe('AB03');
      expect(refused.body.error.message).toContain('organisation-level caller');
    }
  });

  test("another organisation's override is invisible (404), and each sees its own", async ({ cp, pg }) => {
    const ours = await cp.call('post', '/model-pricing', { body });
    const other = await otherOrganisationKey(pg.pool, PRICING_SCOPES);

    expect((await cp.call('get', `/model-pricing/${ours.body.id}`, { key: other })).status).toBe(404);
    const update = await cp.call('put', `/model-pricing/${ours.body.id}`, {
      key: other,
      body: { input_per_mtok: 0 },
    });
    expect(update.status).toBe(404);
    expect(update.body.error.code).toBe('AB08');
    expect((await cp.call('delete', `/model-pricing/${ours.body.id}`, { key: other })).status).toBe(404);

    const theirList = await cp.call('get', '/model-pricing?ai_provider=openai&model=gpt-4o*', { key: other });
    expect(theirList.body.data).toHaveLength(1);
    expect(theirList.body.data[0]).toMatchObject({
      source: 'platform',
      overridden: false,
      input_per_mtok: 2.5,
    });
    const theirs = await cp.call('post', '/model-pricing', {
      key: other,
      body: { ...body, input_per_mtok: 1 },
    });
    expect(theirs.status).toBe(201);
    const resolved = await cp.call('get', '/model-pricing/resolve?ai_provider=openai&model=gpt-4o', {
      key: other,
    });
    expect(resolved.body.id).toBe(theirs.body.id);
    expect((await cp.call('get', `/model-pricing/${ours.body.id}`)).body.input_per_mtok).toBe(2);
  });

  test('validation errors are 400 AB01 naming the field', async ({ cp }) => {
    const cases: [Record<string, unknown>, string][] = [
      [{ ...body, ai_provider: 'openai2' }, 'body.ai_provider'],
      [{ ...body, model: '' }, 'body.model'],
      [{ ...body, model: 'gpt*4o' }, 'body.model'],
      [{ ...body, model: 'gpt 4o' }, 'body.model'],
      [{ ...body, model: 'x'.repeat(256) }, 'body.model'],
      [{ ...body, input_per_mtok: -0.5 }, 'body.input_per_mtok'],
      [{ ...body, output_per_mtok: 1_000_001 }, 'body.output_per_mtok'],
      [{ ...body, cached_input_per_mtok: 0.0000001 }, 'body.cached_input_per_mtok'],
      [{ ...body, cache_write_per_mtok: '3' }, 'body.cache_write_per_mtok'],
      [{ ...body, per_request: null }, 'body.per_request'],
      [{ ...body, currency: 'EUR' }, 'body.currency'],
      [{ ...body, extra: { PerImage: 1 } }, 'body.extra.PerImage'],
      [{ ...body, extra: { per_image: -1 } }, 'body.extra.per_image'],
      [{ ai_provider: 'openai', model: 'x', output_per_mtok: 1 }, 'body.input_per_mtok'],
      [{ ...body, surprise: true }, 'body'],
    ];
    for (const [payload, param] of cases) {
      const bad = await cp.call('post', '/model-pricing', { body: payload });
      expect(bad.status, JSON.stringify(payload).slice(0, 80)).toBe(400);
      expect(bad.body.error).toMatchObject({ code: 'AB01', type: 'invalid_request_error', param });
    }
    const raw = await cp.call('post', '/model-pricing', {
      raw: '{"ai_provider": "openai", "input_per_mtok": 1e999}',
    });
    expect(raw.status).toBe(400);

    const created = await cp.call('post', '/model-pricing', { body: { ...body, model: 'validation-only' } });
    expect(created.status).toBe(201);
    const empty = await cp.call('put', `/model-pricing/${created.body.id}`, { body: {} });
    expect(empty.status).toBe(400);
    expect(empty.body.error.code).toBe('AB01');
    const badUpdate = await cp.call('put', `/model-pricing/${created.body.id}`, {
      body: { input_per_mtok: 'free' },
    });
    expect(badUpdate.body.error).toMatchObject({ code: 'AB01', param: 'body.input_per_mtok' });
    const resolve = await cp.call('get', '/model-pricing/resolve?ai_provider=openai');
    expect(resolve.body.error).toMatchObject({ code: 'AB01', param: 'query.model' });
  });
});
