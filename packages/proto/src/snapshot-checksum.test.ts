import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { EntityKind } from './gen/aigw/v1/entities.js';
import { snapshotChecksum } from './snapshot-checksum.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('snapshotChecksum', () => {
  it('hashes `<kind>:<id>:<version>` lines sorted by kind number, then id', () => {
    const refs = [
      { kind: EntityKind.PROVIDER, id: 'b', version: 2 },
      { kind: EntityKind.API_KEY, id: 'z', version: 7 },
      { kind: EntityKind.PROVIDER, id: 'a', version: 1 },
    ];
    expect(snapshotChecksum(refs)).toBe(sha256('3:z:7\n5:a:1\n5:b:2\n'));
  });

  it('does not depend on the order entities arrive in', () => {
    const refs = [
      { kind: EntityKind.CONFIG, id: 'c-1', version: 4 },
      { kind: EntityKind.WORKSPACE, id: 'w-1', version: 1 },
      { kind: EntityKind.CONFIG, id: 'c-0', version: 9 },
    ];
    expect(snapshotChecksum([...refs].reverse())).toBe(snapshotChecksum(refs));
  });

  it('changes when a version, id or kind changes, or an entity is missing', () => {
    const base = [
      { kind: EntityKind.API_KEY, id: 'k-1', version: 1 },
      { kind: EntityKind.API_KEY, id: 'k-2', version: 1 },
    ];
    const reference = snapshotChecksum(base);
    expect(snapshotChecksum([base[0]!, { ...base[1]!, version: 2 }])).not.toBe(reference);
    expect(snapshotChecksum([base[0]!, { ...base[1]!, id: 'k-3' }])).not.toBe(reference);
    expect(snapshotChecksum([base[0]!, { ...base[1]!, kind: EntityKind.PROVIDER }])).not.toBe(reference);
    expect(snapshotChecksum([base[0]!])).not.toBe(reference);
  });

  it('sorts ids by code unit, not locale', () => {
    const refs = [
      { kind: EntityKind.CONFIG, id: 'a', version: 1 },
      { kind: EntityKind.CONFIG, id: 'B', version: 1 },
    ];
    expect(snapshotChecksum(refs)).toBe(sha256('7:B:1\n7:a:1\n'));
  });

  it('is the hash of nothing for an empty snapshot', () => {
    expect(snapshotChecksum([])).toBe(sha256(''));
  });
});
