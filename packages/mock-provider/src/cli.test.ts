import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { json } from '../test/helpers.js';
import { parseCliArgs } from './cli-options.js';
import { DEFAULT_KNOBS } from './knobs.js';

const packageDir = fileURLToPath(new URL('..', import.meta.url));

function runCli(args: string[]): ChildProcess {
  // tsx runs the TypeScript entry directly, so the test needs no build step.
  return spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], {
    cwd: packageDir,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

async function firstLine(child: ChildProcess): Promise<string> {
  let out = '';
  for await (const chunk of child.stdout!) {
    out += String(chunk);
    const newline = out.indexOf('\n');
    if (newline >= 0) return out.slice(0, newline);
  }
  throw new Error(`CLI exited before printing its URL: ${out}`);
}

describe('parseCliArgs', () => {
  it('maps flags to options and knobs', () => {
    const command = parseCliArgs([
      '--port',
      '8080',
      '--host',
      '0.0.0.0',
      '--latency-ms',
      '10',
      '--status',
      '503',
      '--fail-first',
      '2',
      '--fail-status',
      '429',
      '--retry-after',
      '1.5',
      '--chunk-delay-ms',
      '5',
      '--stall-after-chunks',
      '3',
      '--cut-after-chunks',
      '4',
      '--chunks',
      '6',
      '--api-key',
      'a',
      '--api-key',
      'b',
      '--aws-access-key-id',
      'AK',
      '--aws-secret-access-key',
      'SK',
      '--aws-session-token',
      'ST',
    ]);
    expect(command).toEqual({
      help: false,
      options: {
        port: 8080,
        host: '0.0.0.0',
        latencyMs: 10,
        status: 503,
        failFirst: 2,
        failStatus: 429,
        retryAfter: 1.5,
        chunkDelayMs: 5,
        stallAfterChunks: 3,
        cutAfterChunks: 4,
        chunks: 6,
        apiKeys: ['a', 'b'],
        aws: { accessKeyId: 'AK', secretAccessKey: 'SK', sessionToken: 'ST' },
      },
    });
  });

  it('rejects unknown flags, non-numbers and half of the AWS pair', () => {
    expect(parseCliArgs(['--help'])).toEqual({ help: true });
    expect(() => parseCliArgs(['--nope'])).toThrow();
    expect(() => parseCliArgs(['--latency-ms', 'soon'])).toThrow(/--latency-ms expects a number/);
    expect(() => parseCliArgs(['--aws-access-key-id', 'AK'])).toThrow(/go together/);
  });
});

describe('aigw-mock-provider CLI', () => {
  it('prints its URL, serves /_mock/health with the flags applied, and exits 0 on SIGTERM', async () => {
    const child = runCli(['--port', '0', '--chunks', '3', '--fail-status', '502']);
    try {
      const url = await firstLine(child);
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(await json(await fetch(`${url}/_mock/health`))).toEqual({ status: 'ok' });
      expect(await json(await fetch(`${url}/_mock/config`))).toEqual({
        ...DEFAULT_KNOBS,
        chunks: 3,
        failStatus: 502,
      });
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const [code] = await exited;
      expect(code).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });

  it('exits 0 on SIGINT too, and 2 with usage on a bad flag', async () => {
    const child = runCli([]);
    await firstLine(child);
    const exited = once(child, 'exit');
    child.kill('SIGINT');
    const sigint = await exited;
    expect(sigint).toEqual([0, null]);

    const bad = runCli(['--bogus']);
    let stderr = '';
    bad.stderr!.on('data', (c) => {
      stderr += String(c);
    });
    const [code] = await once(bad, 'exit');
    expect(code).toBe(2);
    expect(stderr).toContain('Usage: aigw-mock-provider');
  });
});
