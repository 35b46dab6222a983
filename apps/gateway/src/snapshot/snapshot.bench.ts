// What the snapshot sync costs at scale: a change swaps in a new snapshot that shares the bulk of the
// entities (overlay, folded every ~√n changes); the checksum and the LKG encoding cost O(n) and run
// once per load, probe or debounced write.
import { ChangeEvent } from '@aigw/proto';
import { bench, describe } from 'vitest';
import { applyChanges } from './apply-changes.js';
import { apiKey, provider } from './entities.test-support.js';
import { encodeLastKnownGood } from './lkg-file.js';
import { Snapshot } from './snapshot.js';

for (const size of [10_000, 100_000]) {
  const entities = Array.from({ length: size }, (_, i) =>
    i % 2 ? apiKey(`k${i}`, 1, `hash-${i}`) : provider(`p${i}`, 1, `slug-${i}`, Buffer.alloc(96, i)),
  );
  const snapshot = Snapshot.of(entities, size);
  const bytes = encodeLastKnownGood(snapshot, Date.now());
  let current = snapshot;
  let step = 0;
  describe(`${size} entities`, () => {
    bench('apply one change (amortised: overlay swaps and folds)', () => {
      step++;
      const entity = apiKey(`k${((step * 7919) % size) | 1}`, 1 + step, `rotated-${step}`);
      current = applyChanges(current, [
        ChangeEvent.fromPartial({ schemaVersion: 1, revision: size + step, entity }),
      ]).snapshot;
    });
    bench('checksum (once per load or anti-entropy probe)', () => {
      Snapshot.of(entities, size).checksum();
    });
    bench(`encode LKG file (${Math.round(bytes.length / 1024)} KiB)`, () => {
      encodeLastKnownGood(snapshot, Date.now());
    });
  });
}
