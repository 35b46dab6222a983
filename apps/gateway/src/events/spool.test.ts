import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '@aigw/runtime';
import { afterEach, describe, expect, it } from 'vitest';
import { Spool, type SpoolOptions } from './spool.js';
import { encodeRecord } from './spool-record.js';

const log = createLogger({ app: 'test', level: 'silent' });
const dirs: string[] = [];

afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function newSpool(options: Partial<SpoolOptions> = {}) {
  const dir = options.dir ?? (await mkdtemp(join(tmpdir(), 'aigw-spool-')));
  dirs.push(dir);
  const counts = { written: 0, failed: 0 };
  const spool = new Spool({
    dir,
    maxBytes: 1024 * 1024,
    segmentBytes: 64 * 1024,
    maxBufferedBytes: 1024 * 1024,
    log,
    onWritten: (records) => {
      counts.written += records;
    },
    onWriteFailed: (records) => {
      counts.failed += records;
    },
    ...options,
  });
  return { spool, dir, counts };
}

async function filesIn(dir: string): Promise<{ names: string[]; bytes: number }> {
  const names = (await readdir(dir)).sort();
  const sizes = await Promise.all(names.map(async (name) => (await stat(join(dir, name))).size));
  return { names, bytes: sizes.reduce((sum, size) => sum + size, 0) };
}

const body = (i: number) => new Uint8Array(Buffer.from(`event body ${i}`.padEnd(100, '.')));

describe('Spool', () => {
  it('writes appended records in batches to segment files and reads them back in order', async () => {
    const { spool, dir, counts } = await newSpool({ segmentBytes: 2_000 });
    for (let i = 0; i < 50; i++) expect(spool.append(`id-${i}`, body(i))).toBe('queued');
    await spool.seal();
    await spool.idle();
    expect(counts).toEqual({ written: 50, failed: 0 });
    const files = await filesIn(dir);
    expect(spool.bytes).toBe(files.bytes);
    expect(files.names.every((name) => /^requests-v1-\d{12}\.spool$/.test(name))).toBe(true);
    const ids: string[] = [];
    for (const segment of spool.sealedSegments()) {
      const decoded = await spool.read(segment);
      expect(decoded.damage).toBeUndefined();
      ids.push(...decoded.records.map((record) => record.msgId));
    }
    expect(ids).toEqual(Array.from({ length: 50 }, (_, i) => `id-${i}`));
  });

  it('seals a segment once it reaches segmentBytes', async () => {
    const frame = encodeRecord('id-0', body(0)).length;
    const { spool } = await newSpool({ segmentBytes: frame * 3 });
    for (let i = 0; i < 3; i++) spool.append(`id-${i}`, body(i));
    await spool.idle();
    expect(spool.sealedSegments()).toHaveLength(1);
    spool.append('id-3', body(3));
    await spool.idle();
    expect(spool.sealedSegments()).toHaveLength(1);
    await spool.seal();
    expect(spool.sealedSegments().map((segment) => segment.bytes)).toEqual([frame * 3, frame]);
  });

  it('refuses records beyond maxBytes, counting what is still waiting to be written', async () => {
    const frame = encodeRecord('id-0', body(0)).length;
    const { spool, dir } = await newSpool({ maxBytes: frame * 10 + frame - 1 });
    const results = Array.from({ length: 20 }, (_, i) => spool.append(`id-${i}`, body(i)));
    expect(results.filter((result) => result === 'queued')).toHaveLength(10);
    expect(results.slice(10).every((result) => result === 'full')).toBe(true);
    await spool.close();
    expect((await filesIn(dir)).bytes).toBe(frame * 10);
    expect(spool.append('late', body(0))).toBe('closed');
  });

  it('bounds the bytes held in memory for the writer separately', async () => {
    const frame = encodeRecord('id-0', body(0)).length;
    const { spool } = await newSpool({ maxBufferedBytes: frame * 2 });
    expect([0, 1, 2].map((i) => spool.append(`id-${i}`, body(i)))).toEqual(['queued', 'queued', 'full']);
    await spool.idle();
    expect(spool.append('id-3', body(3))).toBe('queued');
  });

  it('picks up the segments a previous process left, and new writes go to a later segment', async () => {
    const first = await newSpool();
    for (let i = 0; i < 5; i++) first.spool.append(`old-${i}`, body(i));
    await first.spool.close();
    const second = await newSpool({ dir: first.dir });
    expect(second.spool.bytes).toBe(first.spool.bytes);
    expect(second.spool.hasRecords()).toBe(true);
    second.spool.append('new-0', body(0));
    await second.spool.seal();
    const segments = second.spool.sealedSegments();
    expect(segments.map((segment) => segment.seq)).toEqual([1, 2]);
    const decoded = await Promise.all(segments.map((segment) => second.spool.read(segment)));
    expect(decoded.map((d) => d.records.map((record) => record.msgId))).toEqual([
      ['old-0', 'old-1', 'old-2', 'old-3', 'old-4'],
      ['new-0'],
    ]);
    for (const segment of segments) await second.spool.remove(segment);
    expect(second.spool.bytes).toBe(0);
    expect(second.spool.hasRecords()).toBe(false);
    expect((await filesIn(first.dir)).names).toEqual([]);
  });
});
