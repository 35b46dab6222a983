import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { isAlive, waitForExit } from '../../test/liveness.js';
import { startLocalRedis } from './redis.js';

const childScript = fileURLToPath(new URL('../../test/fixtures/start-redis.ts', import.meta.url));
const packageDir = fileURLToPath(new URL('../..', import.meta.url));

/** Runs the fixture in a fresh Node (through tsx) and returns it with the redis it reported. */
async function startChild(mode: 'hold' | 'exit') {
  const child = spawn(process.execPath, ['--import', 'tsx', childScript, mode], {
    cwd: packageDir,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const report = await new Promise<{ pid: number; url: string }>((resolve, reject) => {
    let buffered = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const newline = buffered.indexOf('\n');
      if (newline >= 0) resolve(JSON.parse(buffered.slice(0, newline)));
    });
    child.once('exit', (code) => reject(new Error(`fixture exited (${code}) before reporting: ${stderr}`)));
  });
  return { child, exited, report };
}

async function ping(url: string): Promise<string> {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await client.connect();
  try {
    return await client.ping();
  } finally {
    client.disconnect();
  }
}

async function configDir(url: string): Promise<string> {
  const client = new Redis(url);
  try {
    const [, dir] = (await client.config('GET', 'dir')) as [string, string];
    return dir;
  } finally {
    await client.quit();
  }
}

async function waitFor(condition: () => boolean, deadlineMs = 20_000): Promise<boolean> {
  const deadline = Date.now() + deadlineMs;
  while (!condition() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  return condition();
}

describe('servers never outlive the process that started them', () => {
  it('a SIGKILLed parent takes its redis-server with it', async () => {
    const { child, exited, report } = await startChild('hold');
    expect(isAlive(report.pid)).toBe(true);
    expect(await ping(report.url)).toBe('PONG');
    const runDir = await configDir(report.url);
    expect(existsSync(runDir)).toBe(true);

    child.kill('SIGKILL');
    await exited;
    expect(await waitForExit(report.pid)).toBe(true);
    // The reaper removes the temporary directory after the server, then exits itself.
    expect(await waitFor(() => !existsSync(runDir))).toBe(true);
  });

  it('a parent that exits without stopping its servers takes them with it', async () => {
    const { exited, report } = await startChild('exit');
    await exited;
    expect(await waitForExit(report.pid)).toBe(true);
  });

  it('stop() ends the server and removes its temporary directory', async () => {
    const redis = await startLocalRedis();
    const runDir = await configDir(redis.url);
    expect(existsSync(runDir)).toBe(true);
    await redis.stop();
    expect(isAlive(redis.pid)).toBe(false);
    expect(existsSync(runDir)).toBe(false);
    await redis.stop();
  });
});
