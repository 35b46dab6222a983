import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { expect, it } from 'vitest';
import { startLocalRedis } from './redis.js';

it('a redis data directory keeps keys across restarts (append-only file)', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'testkit-redis-keep-'));
  try {
    const first = await startLocalRedis({ dataDir });
    const writer = new Redis(first.url);
    expect(await writer.config('GET', 'appendonly')).toEqual(['appendonly', 'yes']);
    await writer.set('kept', 'survives');
    await writer.quit();
    await first.stop();

    const second = await startLocalRedis({ dataDir });
    const reader = new Redis(second.url);
    try {
      expect(await reader.get('kept')).toBe('survives');
    } finally {
      await reader.quit();
      await second.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

it('a temporary redis writes nothing to disk', async () => {
  const server = await startLocalRedis();
  const client = new Redis(server.url);
  try {
    expect(await client.config('GET', 'appendonly')).toEqual(['appendonly', 'no']);
    expect(await client.config('GET', 'save')).toEqual(['save', '']);
  } finally {
    await client.quit();
    await server.stop();
  }
});
