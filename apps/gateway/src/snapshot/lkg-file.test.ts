import { mkdtemp, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EntityKind } from '@aigw/proto';
import { describe, expect, it } from 'vitest';
import { apiKey, provider, tombstone } from './entities.test-support.js';
import { readLastKnownGood, writeLastKnownGood } from './lkg-file.js';
import { Snapshot } from './snapshot.js';
import { SnapshotLoadError } from './snapshot-frames.js';

const sealed = Buffer.from('sealed-envelope-bytes-\u0000\u00ff');
const snapshot = Snapshot.of(
  [apiKey('k1', 3, 'h1'), provider('p1', 2, 'openai-prod', sealed), tombstone(EntityKind.API_KEY, 'k0', 9)],
  77,
);

async function dir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'aigw-lkg-'));
}

describe('last-known-good file', () => {
  it('round-trips entities, tombstones, sealed credentials, revision and sync time', async () => {
    const path = join(await dir(), 'nested', 'snapshot-v1.lkg');
    await writeLastKnownGood(path, snapshot, 1_234);
    const lkg = await readLastKnownGood(path);
    expect(lkg?.syncedAtMs).toBe(1_234);
    expect(lkg?.snapshot.revision).toBe(77);
    expect(lkg?.snapshot.checksum()).toBe(snapshot.checksum());
    expect(lkg?.snapshot.apiKeyByHash('h1')?.version).toBe(3);
    expect(lkg?.snapshot.get(EntityKind.API_KEY, 'k0')?.tombstone).toBe(true);
    const p = lkg?.snapshot.find(EntityKind.PROVIDER, 'provider', 'p1');
    expect(Buffer.from(p?.body.value.encryptedCredentials ?? []).equals(sealed)).toBe(true);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
  });

  it('replaces the file whole and leaves no temporary file behind', async () => {
    const d = await dir();
    const path = join(d, 'snapshot-v1.lkg');
    await writeLastKnownGood(path, snapshot, 1);
    await writeLastKnownGood(path, Snapshot.of([apiKey('k9', 1)], 78), 2);
    expect((await readLastKnownGood(path))?.snapshot.revision).toBe(78);
    expect(await readdir(d)).toEqual(['snapshot-v1.lkg']);
  });

  it('answers undefined when there is no file', async () => {
    expect(await readLastKnownGood(join(await dir(), 'absent.lkg'))).toBeUndefined();
  });

  it('refuses a truncated or foreign file', async () => {
    const path = join(await dir(), 'snapshot-v1.lkg');
    await writeLastKnownGood(path, snapshot, 1);
    const bytes = await readFile(path);
    await writeFile(path, bytes.subarray(0, bytes.length - 10));
    await expect(readLastKnownGood(path)).rejects.toBeInstanceOf(SnapshotLoadError);
    await writeFile(path, '{"not":"a snapshot"}');
    await expect(readLastKnownGood(path)).rejects.toThrow(/not a last-known-good/);
  });
});
