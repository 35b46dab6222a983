// Applying the platform price table at startup: idempotent, an upgraded table updates, adds and
// removes platform rows (with change events), and organisation overrides are never touched.
import { EntityKind } from '@aigw/proto';
import { describe, expect } from 'vitest';
import { test } from '../../test/harness.js';
import { changeEvents } from '../../test/outbox-rows.js';
import { PLATFORM_SEED, type PriceSeed } from './model-pricing.seed.js';
import { syncPlatformPricing } from './model-pricing.sync.js';
import { controlDatabase } from './model-pricing.test-support.js';

const isKey = (provider: string, model: string) => (p: { ai_provider: string; model: string }) =>
  p.ai_provider === provider && p.model === model;

/** The shipped table with gpt-4o* repriced, gpt-4 dropped and a new model added. */
const UPGRADED: PriceSeed = {
  asOf: '2099-01-01',
  prices: [
    ...PLATFORM_SEED.prices
      .filter((p) => !isKey('openai', 'gpt-4')(p))
      .map((p) => (isKey('openai', 'gpt-4o*')(p) ? { ...p, input_micros_per_mtok: 3_000_000 } : p)),
    { ...PLATFORM_SEED.prices[0]!, ai_provider: 'openai', model: 'gpt-next*', extra: { per_image: 40_000 } },
  ],
};

async function outboxCount(pool: { query: (q: string) => Promise<{ rows: { n: number }[] }> }) {
  return (await pool.query('select count(*)::int as n from control.outbox')).rows[0]?.n;
}

describe('platform price sync', () => {
  test('an unchanged table changes nothing; an upgrade updates platform rows only', async ({ cp, pg }) => {
    const database = controlDatabase(pg.url);
    try {
      const before = await outboxCount(pg.pool);
      expect(await syncPlatformPricing(database.db)).toEqual({
        asOf: PLATFORM_SEED.asOf,
        inserted: 0,
        updated: 0,
        deleted: 0,
        unchanged: PLATFORM_SEED.prices.length,
      });
      expect(await outboxCount(pg.pool)).toBe(before);

      const list = (query: string) => cp.call('get', `/model-pricing?${query}&include_overridden=true`);
      const override = await cp.call('post', '/model-pricing', {
        body: { ai_provider: 'openai', model: 'gpt-4o*', input_per_mtok: 1, output_per_mtok: 4 },
      });
      expect(override.status).toBe(201);
      const platform4o = (await list('ai_provider=openai&model=gpt-4o*&source=platform')).body.data[0];
      const gpt4 = (await list('ai_provider=openai&model=gpt-4')).body.data[0];
      expect(gpt4.source).toBe('platform');

      expect(await syncPlatformPricing(database.db, UPGRADED)).toEqual({
        asOf: '2099-01-01',
        inserted: 1,
        updated: 1,
        deleted: 1,
        unchanged: PLATFORM_SEED.prices.length - 2,
      });

      const rows = (await list('ai_provider=openai&model=gpt-4o*')).body.data;
      expect(rows.map((r: { id: string; input_per_mtok: number }) => [r.id, r.input_per_mtok])).toEqual([
        [override.body.id, 1],
        [platform4o.id, 3],
      ]);
      expect((await cp.call('get', `/model-pricing/${override.body.id}`)).body).toEqual(override.body);
      expect((await cp.call('get', `/model-pricing/${gpt4.id}`)).status).toBe(404);
      const added = (await list('ai_provider=openai&model=gpt-next*')).body.data[0];
      expect(added).toMatchObject({ source: 'platform', extra: { per_image: 0.04 } });

      const changes = await changeEvents(pg.pool);
      const versions = (id: string) =>
        changes.filter((c) => c.entity?.id === id).map((c) => [c.entity?.version, c.entity?.tombstone]);
      expect(versions(platform4o.id)).toEqual([
        [1, false],
        [2, false],
      ]);
      expect(versions(gpt4.id)).toEqual([
        [1, false],
        [2, true],
      ]);
      expect(versions(override.body.id)).toEqual([[1, false]]);
      expect(changes.find((c) => c.entity?.id === added.id)?.entity).toMatchObject({
        kind: EntityKind.MODEL_PRICING,
        organisationId: '',
        body: { value: { model: 'gpt-next*', extraJson: '{"per_image":40000}' } },
      });

      // Back to the shipped table: the dropped model returns under a new id (its tombstone stays).
      await syncPlatformPricing(database.db);
      const restored = (await list('ai_provider=openai&model=gpt-4')).body.data[0];
      expect(restored.input_per_mtok).toBe(30);
      expect(restored.id).not.toBe(gpt4.id);
    } finally {
      await database.close();
    }
  });

  test('replicas applying the same upgrade at once apply it once', async ({ pg }) => {
    const database = controlDatabase(pg.url);
    try {
      const results = await Promise.all([
        syncPlatformPricing(database.db, UPGRADED),
        syncPlatformPricing(database.db, UPGRADED),
        syncPlatformPricing(database.db, UPGRADED),
      ]);
      expect(results.map((r) => r.updated + r.inserted + r.deleted).sort()).toEqual([0, 0, 3]);
    } finally {
      await syncPlatformPricing(database.db);
      await database.close();
    }
  });
});
