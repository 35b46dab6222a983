// The platform price table as organisations see it: seeded at startup, hidden per organisation by
// overrides, filtered and paginated, resolved for a model, and carried by the snapshot.
import { EntityKind } from '@aigw/proto';
import { describe, expect } from 'vitest';
import { test } from '../../test/harness.js';
import { readSnapshot, snapshotEntities } from '../../test/snapshot-client.js';
import { organisationId } from '../workspaces/workspaces.test-support.js';
import { platformRow } from './model-pricing.test-support.js';

describe('model pricing: platform table, lists and snapshot', () => {
  test('the platform table is seeded at startup and readable by every organisation', async ({ cp }) => {
    const row = await platformRow(cp, 'openai', 'gpt-4o*');
    expect(row).toMatchObject({
      object: 'model_pricing',
      source: 'platform',
      organisation_id: null,
      ai_provider: 'openai',
      model: 'gpt-4o*',
      currency: 'USD',
      input_per_mtok: 2.5,
      cached_input_per_mtok: 1.25,
      cache_write_per_mtok: 2.5,
      output_per_mtok: 10,
      per_request: 0,
      extra: {},
      overridden: false,
    });
    const got = await cp.call('get', `/model-pricing/${row.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(row);

    const ollama = await platformRow(cp, 'ollama', '*');
    expect(ollama).toMatchObject({ input_per_mtok: 0, output_per_mtok: 0, cached_input_per_mtok: 0 });
    const all = await cp.call('get', '/model-pricing?page_size=500');
    const providers = new Set(all.body.data.map((r: { ai_provider: string }) => r.ai_provider));
    for (const provider of [
      'openai',
      'anthropic',
      'azure-openai',
      'bedrock',
      'vertex-ai',
      'groq',
      'mistral-ai',
    ])
      expect(providers.has(provider), provider).toBe(true);
    for (const provider of ['cohere', 'together-ai', 'deepseek', 'fireworks-ai', 'perplexity-ai', 'ollama'])
      expect(providers.has(provider), provider).toBe(true);
    expect(all.body.total).toBe(all.body.data.length);
  });

  test('an override hides the platform row in the list; include_overridden shows both', async ({ cp }) => {
    const platform = await platformRow(cp, 'openai', 'gpt-4.1*');
    const override = await cp.call('post', '/model-pricing', {
      body: { ai_provider: 'openai', model: 'gpt-4.1*', input_per_mtok: 1.6, output_per_mtok: 6.4 },
    });
    expect(override.status).toBe(201);

    const effective = await cp.call('get', '/model-pricing?ai_provider=openai&model=gpt-4.1*');
    expect(effective.body).toMatchObject({ object: 'list', total: 1 });
    expect(effective.body.data.map((r: { id: string }) => r.id)).toEqual([override.body.id]);

    const both = await cp.call(
      'get',
      '/model-pricing?ai_provider=openai&model=gpt-4.1*&include_overridden=true',
    );
    expect(both.body.total).toBe(2);
    expect(both.body.data.map((r: { id: string; overridden: boolean }) => [r.id, r.overridden])).toEqual([
      [override.body.id, false],
      [platform.id, true],
    ]);
    expect((await cp.call('get', `/model-pricing/${platform.id}`)).body.overridden).toBe(true);
  });

  test('filters and pagination; bad filter values are 400', async ({ cp }) => {
    for (const model of ['llama-x-1', 'llama-x-2', 'llama-x-3']) {
      const created = await cp.call('post', '/model-pricing', {
        body: { ai_provider: 'groq', model, input_per_mtok: 0.1, output_per_mtok: 0.2 },
      });
      expect(created.status).toBe(201);
    }
    const prefixed = await cp.call('get', '/model-pricing?model_prefix=llama-x-');
    expect(prefixed.body.data.map((r: { model: string }) => r.model)).toEqual([
      'llama-x-1',
      'llama-x-2',
      'llama-x-3',
    ]);

    const page = await cp.call('get', '/model-pricing?model_prefix=llama-x-&page_size=2&current_page=1');
    expect(page.body.total).toBe(3);
    expect(page.body.data.map((r: { model: string }) => r.model)).toEqual(['llama-x-3']);

    const own = await cp.call('get', '/model-pricing?source=organisation&ai_provider=groq');
    expect(own.body.data.every((r: { source: string }) => r.source === 'organisation')).toBe(true);
    expect(own.body.total).toBe(3);
    const platformGroq = await cp.call('get', '/model-pricing?source=platform&ai_provider=groq');
    expect(platformGroq.body.total).toBeGreaterThan(0);
    expect(platformGroq.body.data.every((r: { source: string }) => r.source === 'platform')).toBe(true);

    const twoProviders = await cp.call(
      'get',
      '/model-pricing?ai_provider=deepseek,perplexity-ai&page_size=500',
    );
    expect(new Set(twoProviders.body.data.map((r: { ai_provider: string }) => r.ai_provider))).toEqual(
      new Set(['deepseek', 'perplexity-ai']),
    );
    expect((await cp.call('get', '/model-pricing?model=no-such-model')).body).toEqual({
      object: 'list',
      data: [],
      total: 0,
    });

    for (const [query, param] of [
      ['ai_provider=nope', 'query.ai_provider.0'],
      ['source=platform,everyone', 'query.source.1'],
      ['page_size=-1', 'query.page_size'],
      ['include_overridden=maybe', 'query.include_overridden'],
      ['model=with%20space', 'query.model'],
    ]) {
      const bad = await cp.call('get', `/model-pricing?${query}`);
      expect(bad.status, query).toBe(400);
      expect(bad.body.error).toMatchObject({ code: 'AB01', param });
    }
  });

  test('resolve applies exact, longest prefix, then organisation over platform', async ({ cp }) => {
    const resolve = (provider: string, model: string) =>
      cp.call('get', `/model-pricing/resolve?ai_provider=${provider}&model=${encodeURIComponent(model)}`);
    expect((await resolve('openai', 'gpt-4o-2024-05-13')).body).toMatchObject({
      model: 'gpt-4o-2024-05-13',
      input_per_mtok: 5,
    });
    expect((await resolve('openai', 'gpt-4o-mini-2024-07-18')).body.model).toBe('gpt-4o-mini*');
    expect((await resolve('openai', 'gpt-4o-2024-11-20')).body.source).toBe('platform');

    const override = await cp.call('post', '/model-pricing', {
      body: { ai_provider: 'openai', model: 'gpt-4o*', input_per_mtok: 2, output_per_mtok: 8 },
    });
    expect((await resolve('openai', 'gpt-4o-2024-11-20')).body.id).toBe(override.body.id);
    // the organisation's broader pattern does not hide the platform's more specific one
    expect((await resolve('openai', 'gpt-4o-mini')).body.source).toBe('platform');

    const none = await resolve('openai', 'davinci-002');
    expect(none.status).toBe(404);
    expect(none.body.error.code).toBe('AB08');
    expect((await resolve('not-a-provider', 'x')).status).toBe(400);
  });

  test('the snapshot carries platform rows (organisation "") and overrides, and tombstones', async ({
    cp,
    pg,
  }) => {
    const orgId = await organisationId(pg.pool);
    const kept = await cp.call('post', '/model-pricing', {
      body: {
        ai_provider: 'together-ai',
        model: 'deepseek-ai/DeepSeek-V3',
        input_per_mtok: 1,
        output_per_mtok: 1,
      },
    });
    const gone = await cp.call('post', '/model-pricing', {
      body: {
        ai_provider: 'together-ai',
        model: 'deepseek-ai/DeepSeek-R1',
        input_per_mtok: 2,
        output_per_mtok: 6,
      },
    });
    await cp.call('delete', `/model-pricing/${gone.body.id}`);

    const pricing = snapshotEntities(await readSnapshot(cp.app.ports.grpc)).filter(
      (e) => e.kind === EntityKind.MODEL_PRICING,
    );
    const platform = pricing.filter((e) => !e.tombstone && e.organisationId === '');
    expect(platform.length).toBeGreaterThan(100);
    expect(
      platform.find((e) => e.body?.$case === 'modelPricing' && e.body.value.aiProvider === 'ollama'),
    ).toMatchObject({
      workspaceId: '',
      body: { value: { model: '*', inputMicrosPerMtok: 0, outputMicrosPerMtok: 0, currency: 'USD' } },
    });
    expect(pricing.find((e) => e.id === kept.body.id)).toMatchObject({
      organisationId: orgId,
      tombstone: false,
      body: {
        value: { aiProvider: 'together-ai', model: 'deepseek-ai/DeepSeek-V3', inputMicrosPerMtok: 1_000_000 },
      },
    });
    expect(pricing.find((e) => e.id === gone.body.id)).toMatchObject({
      organisationId: orgId,
      tombstone: true,
      version: 2,
    });
  });
});
