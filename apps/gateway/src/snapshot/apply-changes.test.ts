import { ChangeEvent, type Entity, EntityKind } from '@aigw/proto';
import { describe, expect, it } from 'vitest';
import { applyChanges } from './apply-changes.js';
import { apiKey, tombstone } from './entities.test-support.js';
import { Snapshot } from './snapshot.js';
import { SnapshotStore } from './snapshot-store.js';

const change = (entity: Entity, revision: number) =>
  ChangeEvent.fromPartial({ schemaVersion: 1, eventId: revision, revision, entity });

describe('applyChanges', () => {
  const base = Snapshot.of([apiKey('k1', 2, 'h1')], 10);

  it('applies a newer version and raises the revision', () => {
    const { snapshot, applied, ignored } = applyChanges(base, [change(apiKey('k1', 3, 'h1b'), 11)]);
    expect([applied, ignored]).toEqual([1, 0]);
    expect(snapshot.revision).toBe(11);
    expect(snapshot.apiKeyByHash('h1b')?.version).toBe(3);
    expect(snapshot.apiKeyByHash('h1')).toBeUndefined();
    expect(base.apiKeyByHash('h1')?.version).toBe(2);
  });

  it('ignores older and duplicate versions, in any order', () => {
    const events = [
      change(apiKey('k1', 4, 'new'), 12),
      change(apiKey('k1', 3, 'mid'), 11),
      change(apiKey('k1', 2, 'h1'), 9),
    ];
    const { snapshot, applied, ignored } = applyChanges(base, events);
    expect([applied, ignored]).toEqual([1, 2]);
    expect(snapshot.get(EntityKind.API_KEY, 'k1')?.version).toBe(4);
    expect(snapshot.apiKeyByHash('mid')).toBeUndefined();
  });

  it('keeps a tombstone against a delayed older change', () => {
    const deleted = applyChanges(base, [change(tombstone(EntityKind.API_KEY, 'k1', 5), 13)]).snapshot;
    expect(deleted.apiKeyByHash('h1')).toBeUndefined();
    expect(deleted.get(EntityKind.API_KEY, 'k1')?.tombstone).toBe(true);
    const late = applyChanges(deleted, [change(apiKey('k1', 4, 'h1'), 12)]);
    expect(late.applied).toBe(0);
    expect(late.snapshot).toBe(deleted);
    expect(late.snapshot.apiKeyByHash('h1')).toBeUndefined();
  });

  it('returns the same snapshot when nothing changed', () => {
    expect(applyChanges(base, [change(apiKey('k1', 2, 'h1'), 3)]).snapshot).toBe(base);
  });
});

describe('SnapshotStore', () => {
  it('serves an empty snapshot until the first replace, then the new one', () => {
    const store = new SnapshotStore();
    const first = store.current();
    expect(store.loaded).toBe(false);
    expect(first.size).toBe(0);
    store.replace(base());
    expect(store.loaded).toBe(true);
    expect(store.current()).not.toBe(first);
    expect(first.size).toBe(0);
  });
});

function base(): Snapshot {
  return Snapshot.of([apiKey('k1', 1)], 1);
}
