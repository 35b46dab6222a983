// References from configs: `@slug` providers and legacy virtual keys of the workspace, saved
// guardrails of the workspace or organisation. Dangling ones are 404 AB02 at their JSON path, and a
// referenced guardrail cannot be deleted, archived or renamed from under a config.
import { EntityKind } from '@aigw/proto';
import { describe, expect } from 'vitest';
import { test } from '../../test/harness.js';
import { expectError, guardrail, lastChange, provider, workspace } from './configs.test-support.js';

describe('config references', () => {
  test('providers by @slug or virtual_key must exist in the config workspace', async ({ cp }) => {
    const ws = await workspace(cp, 'Refs providers');
    const other = await workspace(cp, 'Refs elsewhere');
    await provider(cp, ws, 'openai-prod');
    await provider(cp, other, 'openai-other');
    const post = (config: unknown) =>
      cp.call('post', '/configs', { body: { name: 'Refs', workspace_id: ws.id, config } });

    expect((await post({ provider: '@openai-prod' })).status).toBe(201);
    const both = await post({
      strategy: { mode: 'fallback' },
      targets: [{ provider: '@openai-prod' }, { virtual_key: 'openai-prod' }],
    });
    expect(both.status, JSON.stringify(both.body)).toBe(201);

    const missing = await post({ provider: '@nope' });
    expectError(missing, 404, 'AB02', 'config.provider');
    expect(missing.body.error.message).toContain('"nope"');
    expectError(await post({ provider: '@openai-other' }), 404, 'AB02', 'config.provider');
    expectError(
      await post({
        strategy: { mode: 'fallback' },
        targets: [{ provider: 'openai' }, { virtual_key: 'gone-vk' }],
      }),
      404,
      'AB02',
      'config.targets[1].virtual_key',
    );

    // Updates are checked the same way, and a refused update leaves the config as it was.
    const created = await post({ provider: '@openai-prod' });
    expectError(
      await cp.call('put', `/configs/${created.body.id}`, { body: { config: { provider: '@missing' } } }),
      404,
      'AB02',
      'config.provider',
    );
    expect((await cp.call('get', `/configs/${created.body.id}`)).body).toMatchObject({
      version: 1,
      config: { provider: '@openai-prod' },
    });
  });

  test('guardrails by id or slug: the workspace own or the organisation ones, active only', async ({
    cp,
  }) => {
    const ws = await workspace(cp, 'Refs guardrails');
    const other = await workspace(cp, 'Refs guardrails other');
    const own = await guardrail(cp, { name: 'Own guard', workspace_id: ws.id });
    const org = await guardrail(cp, { name: 'Org guard' });
    const foreign = await guardrail(cp, { name: 'Foreign guard', workspace_id: other.id });
    const shelved = await guardrail(cp, { name: 'Shelved guard', workspace_id: ws.id });
    await cp.call('put', `/guardrails/${shelved.id}`, { body: { status: 'archived' } });
    const post = (config: unknown) =>
      cp.call('post', '/configs', { body: { name: 'Guarded', workspace_id: ws.id, config } });

    const ok = await post({
      provider: 'openai',
      input_guardrails: [own.slug, org.id.toUpperCase(), { checks: [{ id: 'valid_json' }] }],
      output_guardrails: [org.slug],
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);

    expectError(
      await post({ provider: 'openai', input_guardrails: [own.slug, foreign.id] }),
      404,
      'AB02',
      'config.input_guardrails[1]',
    );
    expectError(
      await post({ provider: 'openai', targets: [{ output_guardrails: [foreign.slug] }] }),
      404,
      'AB02',
      'config.targets[0].output_guardrails[0]',
    );
    expectError(
      await post({ provider: 'openai', input_guardrails: [shelved.slug] }),
      404,
      'AB02',
      'config.input_guardrails[0]',
    );
  });

  test('a referenced guardrail cannot be deleted, archived or renamed until no config uses it', async ({
    cp,
    pg,
  }) => {
    const ws = await workspace(cp, 'Refs lock');
    const guard = await guardrail(cp, { name: 'Locked guard', workspace_id: ws.id });
    const config = await cp.call('post', '/configs', {
      body: {
        name: 'Uses guard',
        workspace_id: ws.id,
        config: { provider: 'openai', input_guardrails: [guard.slug] },
      },
    });
    expect(config.status).toBe(201);

    const refused = await cp.call('delete', `/guardrails/${guard.id}`);
    expectError(refused, 409, 'AB07');
    expect(refused.body.error.message).toContain('uses-guard');
    expectError(
      await cp.call('put', `/guardrails/${guard.id}`, { body: { status: 'archived' } }),
      409,
      'AB07',
    );
    expectError(await cp.call('put', `/guardrails/${guard.id}`, { body: { slug: 'renamed' } }), 409, 'AB07');
    expect((await cp.call('put', `/guardrails/${guard.id}`, { body: { name: 'Still fine' } })).status).toBe(
      200,
    );
    expect((await lastChange(pg.pool, guard.id, EntityKind.GUARDRAIL))?.tombstone).toBe(false);

    // Archiving the config keeps the reference; a new version without it releases the guardrail.
    await cp.call('put', `/configs/${config.body.id}`, { body: { status: 'archived' } });
    expectError(await cp.call('delete', `/guardrails/${guard.id}`), 409, 'AB07');
    const v2 = await cp.call('put', `/configs/${config.body.id}`, {
      body: { config: { provider: 'openai' } },
    });
    expect(v2.body.version).toBe(2);
    expect((await cp.call('delete', `/guardrails/${guard.id}`)).status).toBe(200);
  });

  test('restoring an archived config checks its references again', async ({ cp }) => {
    const ws = await workspace(cp, 'Refs restore');
    const config = await cp.call('post', '/configs', {
      body: { name: 'Restorable', workspace_id: ws.id, config: { provider: '@restore-me' } },
    });
    expectError(config, 404, 'AB02', 'config.provider');
    const providerId = await provider(cp, ws, 'restore-me');
    const saved = await cp.call('post', '/configs', {
      body: { name: 'Restorable', workspace_id: ws.id, config: { provider: '@restore-me' } },
    });
    expect(saved.status).toBe(201);
    await cp.call('put', `/configs/${saved.body.id}`, { body: { status: 'archived' } });
    expect((await cp.call('delete', `/providers/${providerId}`)).status).toBe(200);
    expectError(
      await cp.call('put', `/configs/${saved.body.id}`, { body: { status: 'active' } }),
      404,
      'AB02',
      'config.provider',
    );
    expect((await cp.call('get', `/configs/${saved.body.id}`)).body.status).toBe('archived');
  });
});
