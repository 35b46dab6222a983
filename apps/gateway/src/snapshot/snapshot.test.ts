import { type Entity, EntityKind, snapshotChecksum } from '@aigw/proto';
import { describe, expect, it } from 'vitest';
import { apiKey, provider, tombstone } from './entities.test-support.js';
import { Snapshot } from './snapshot.js';

/** Deterministic pseudo-random numbers (mulberry32), so a failure replays. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function withOrg(entity: Entity, organisationId: string): Entity {
  return { ...entity, organisationId };
}

/** Every lookup answers the same on both snapshots. */
function expectSame(actual: Snapshot, expected: Snapshot, ids: number): void {
  expect(actual.size).toBe(expected.size);
  expect(actual.checksum()).toBe(expected.checksum());
  for (let i = 0; i < ids; i++) {
    expect(actual.get(EntityKind.API_KEY, `k${i}`)).toBe(expected.get(EntityKind.API_KEY, `k${i}`));
    expect(actual.apiKeyByHash(`h${i}`)).toBe(expected.apiKeyByHash(`h${i}`));
    expect(actual.apiKeyByHash(`h${i}-b`)).toBe(expected.apiKeyByHash(`h${i}-b`));
    expect(actual.bySlug(EntityKind.PROVIDER, 'ws-1', `s${i}`)).toBe(
      expected.bySlug(EntityKind.PROVIDER, 'ws-1', `s${i}`),
    );
  }
  for (const entity of expected.entities()) {
    if (entity.body?.$case !== 'provider') continue;
    const slug = entity.body.value.slug;
    expect(actual.bySlug(EntityKind.PROVIDER, 'ws-1', slug)).toBe(
      expected.bySlug(EntityKind.PROVIDER, 'ws-1', slug),
    );
  }
  for (const org of ['org-a', 'org-b', 'org-c']) {
    const ids = (s: Snapshot) =>
      s
        .ofOrganisation(EntityKind.PROVIDER, org)
        .map((e) => e.id)
        .sort();
    expect(ids(actual)).toEqual(ids(expected));
  }
}

describe('Snapshot', () => {
  it('indexes live entities by key hash, slug and organisation, and hides tombstones', () => {
    const s = Snapshot.of(
      [apiKey('k1', 1, 'h1'), provider('p1', 1, 'openai'), tombstone(EntityKind.API_KEY, 'k2', 3)],
      5,
    );
    expect(s.size).toBe(3);
    expect(s.apiKeyByHash('h1')?.id).toBe('k1');
    expect(s.bySlug(EntityKind.PROVIDER, 'ws-1', 'openai')?.id).toBe('p1');
    expect(s.ofOrganisation(EntityKind.PROVIDER, 'org-1').map((e) => e.id)).toEqual(['p1']);
    expect(s.find(EntityKind.API_KEY, 'apiKey', 'k2')).toBeUndefined();
    expect(s.get(EntityKind.API_KEY, 'k2')?.tombstone).toBe(true);
    expect(s.checksum()).toBe(snapshotChecksum([...s.entities()]));
  });

  it('answers every lookup like a snapshot rebuilt from scratch, across many changes and folds', () => {
    const next = random(7);
    const N = 400;
    const model = new Map<string, Entity>();
    const put = (e: Entity) => model.set(`${e.kind}:${e.id}`, e);
    for (let i = 0; i < N; i++) {
      put(withOrg(apiKey(`k${i}`, 1, `h${i}`), 'org-a'));
      put(withOrg(provider(`p${i}`, 1, `s${i}`), i % 2 ? 'org-a' : 'org-b'));
    }
    let snapshot = Snapshot.of(model.values(), 1);
    const original = snapshot;
    for (let step = 0; step < 1500; step++) {
      const i = Math.floor(next() * N);
      const roll = next();
      const heldKey = model.get(`${EntityKind.API_KEY}:k${i}`) as Entity;
      const heldProvider = model.get(`${EntityKind.PROVIDER}:p${i}`) as Entity;
      let change: Entity;
      if (roll < 0.3) change = apiKey(`k${i}`, heldKey.version + 1, next() < 0.5 ? `h${i}-b` : `h${i}`);
      else if (roll < 0.4) change = tombstone(EntityKind.API_KEY, `k${i}`, heldKey.version + 1);
      else if (roll < 0.7)
        change = provider(
          `p${i}`,
          heldProvider.version + 1,
          next() < 0.5 ? `s${i}-${heldProvider.version + 1}` : `s${i}`,
        );
      else if (roll < 0.8) change = tombstone(EntityKind.PROVIDER, `p${i}`, heldProvider.version + 1);
      else
        change = withOrg(
          provider(`p${i}`, heldProvider.version + 1, `s${i}`),
          ['org-a', 'org-b', 'org-c'][step % 3] as string,
        );
      if (roll >= 0.4 && roll < 0.8) change = withOrg(change, heldProvider.organisationId);
      const stale = { ...change, version: change.version - 1 };
      put(change);
      snapshot = snapshot.withChanges([change, stale], step + 2);
      if (step % 97 === 0) expectSame(snapshot, Snapshot.of(model.values(), step + 2), N);
    }
    expectSame(snapshot, Snapshot.of(model.values(), 1501), N);
    expect(snapshot.revision).toBe(1501);
    expect(original.size).toBe(2 * N);
    expect(original.apiKeyByHash('h1')?.version).toBe(1);
  });
});
