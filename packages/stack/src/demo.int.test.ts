// `pnpm start` as a new user meets it: its own Postgres, Redis and NATS in a data directory, the
// demo provider, the banner's curl and OpenAI SDK line answered and counted; Ctrl-C (SIGINT to the
// whole process group) stops the apps with a drain, then the servers; a restart reuses the demo.
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@aigw/testkit/services';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { DEMO_KEY_NAME } from './demo.js';
import { accepts, type RunningStack, root, runStack, waitForLine } from './stack-run.test-support.js';

const PROMPT = 'Hello from the aigw quick start';

interface Started {
  readonly stack: RunningStack;
  /** The banner's curl command, as printed. */
  readonly curl: string;
  /** The banner's OpenAI SDK line, as printed. */
  readonly sdk: string;
  /** Ports of the local Postgres, Redis and NATS this start chose, and of the demo provider. */
  readonly servicePorts: number[];
}

async function start(env: Record<string, string>): Promise<Started> {
  const stack = runStack(env);
  // The banner ends with the SDK line: once it is there, everything is ready.
  await waitForLine(stack.output, /^\[stack\] {3}new OpenAI\(.*$/m, stack.child);
  const lines = stack.output().trimEnd().split('\n');
  const curl = /^\[stack\] {3}(curl .*)$/.exec(lines.at(-2) ?? '')?.[1];
  const sdk = /^\[stack\] {3}(new OpenAI\(.*\))$/.exec(lines.at(-1) ?? '')?.[1];
  if (curl === undefined || sdk === undefined)
    throw new Error(`the banner does not end as it should:\n${stack.output()}`);
  const servicePorts = ['postgres', 'redis', 'nats'].map((name) =>
    Number(new RegExp(`^\\[stack\\] ${name}: local at \\w+://[^\\s]*:(\\d+)`, 'm').exec(stack.output())?.[1]),
  );
  // The demo provider goes with them.
  servicePorts.push(Number(/demo provider {2}http:\/\/127\.0\.0\.1:(\d+)/.exec(stack.output())?.[1]));
  return { stack, curl, sdk, servicePorts };
}

/** Runs the banner's curl command in a shell, as a user pasting it would, and reads the status too. */
function runCurl(curl: string): {
  status: number;
  body: { choices: Array<{ message: { content: string } }> };
} {
  const result = spawnSync('bash', ['-c', `${curl} -w '\\n%{http_code}'`], { cwd: root, encoding: 'utf8' });
  expect(result.status, result.stderr).toBe(0);
  const lines = result.stdout.trimEnd().split('\n');
  const status = Number(lines.pop());
  return { status, body: JSON.parse(lines.join('\n')) };
}

async function admin(controlPlane: string, key: string, path: string) {
  const res = await fetch(`${controlPlane}${path}`, {
    headers: { 'x-service-api-key': key },
    signal: AbortSignal.timeout(10_000),
  });
  // biome-ignore lint/suspicious/noExplicitAny: admin API JSON, read field by field
  return { status: res.status, body: (await res.json()) as any };
}

/** Polls until `check` holds (the logger ingests about a second behind the gateway); bounded. */
async function eventually<T>(read: () => Promise<T>, check: (value: T) => boolean, what: string): Promise<T> {
  let last: T | undefined;
  for (let i = 0; i < 150; i++) {
    last = await read();
    if (check(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${what}: still ${JSON.stringify(last)}`);
}

async function stopWithCtrlC(started: Started): Promise<void> {
  const { child, output } = started.stack;
  // Ctrl-C in a terminal: SIGINT to every process of the foreground group.
  process.kill(-(child.pid as number), 'SIGINT');
  const [code] = await once(child, 'exit');
  expect(code, output()).toBe(0);
  // Each app drained and exited 0 on its own (the stack would SIGKILL one that did not within 10 s),
  // and only then were the servers stopped.
  const text = output();
  const appsStopped = text.indexOf('[stack] apps stopped: {"gateway":0,"logger":0,"control-plane":0}');
  const serversStopped = text.indexOf('[stack] postgres, redis and nats stopped');
  expect(appsStopped, text).toBeGreaterThan(0);
  expect(serversStopped).toBeGreaterThan(appsStopped);
  expect(started.servicePorts.every((port) => port > 0)).toBe(true);
  for (const port of started.servicePorts)
    expect([port, await accepts('127.0.0.1', port)]).toEqual([port, false]);
}

describe('pnpm start with the demo provider', () => {
  it('answers the banner curl and SDK line through @demo, logs and counts them, stops on Ctrl-C after draining, and reuses the demo on restart', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'aigw-demo-'));
    chmodSync(dataDir, 0o711); // Postgres runs as its own user when the tests run as root
    const ports = {
      GATEWAY_PORT: String(await freePort()),
      CONTROL_PLANE_PORT: String(await freePort()),
      CONTROL_PLANE_GRPC_PORT: String(await freePort()),
      LOGGER_PORT: String(await freePort()),
      LOGGER_GRPC_PORT: String(await freePort()),
      DEMO_PROVIDER_PORT: String(await freePort()),
    };
    const env = {
      ...ports,
      AIGW_DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      // Local servers in the data directory, as for a new user with none of these set.
      DATABASE_URL: '',
      REDIS_URL: '',
      NATS_URL: '',
      AIGW_DEMO: '',
    };
    const controlPlane = `http://127.0.0.1:${ports.CONTROL_PLANE_PORT}/v1`;

    const first = await start(env);
    let adminKey: string;
    let demoKey: string;
    try {
      const output = first.stack.output();
      expect(output).toMatch(/\[stack\] postgres: local at /);
      expect(output).toContain(
        `demo provider  http://127.0.0.1:${ports.DEMO_PROVIDER_PORT}  (the mock provider: simulated answers, no real AI; AIGW_DEMO=0 turns it off)`,
      );
      expect(output).toMatch(
        /\[stack\] demo: created workspace "Default workspace", integration and @demo provider, workspace key/,
      );
      demoKey = (await readFile(join(dataDir, 'demo.key'), 'utf8')).trim();
      adminKey = readFileSync(join(dataDir, 'admin.key'), 'utf8').trim();
      expect(demoKey).toMatch(/^aigw_/);
      expect(statSync(join(dataDir, 'demo.key')).mode & 0o777).toBe(0o600);
      expect(output).not.toContain(demoKey);
      expect(first.curl).toContain(`$(cat ${join(dataDir, 'demo.key')})`);

      // The banner's curl, pasted into a shell.
      const answer = runCurl(first.curl);
      expect(answer.status).toBe(200);
      expect(answer.body.choices[0]?.message.content).toBe(PROMPT);

      // The banner's OpenAI SDK line, evaluated as written.
      const client = new Function('OpenAI', 'readFileSync', `return ${first.sdk};`)(
        OpenAI,
        readFileSync,
      ) as OpenAI;
      const sdkAnswer = await client.chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'and from the SDK' }],
      });
      expect(sdkAnswer.choices[0]?.message.content).toBe('and from the SDK');

      // Both calls are in /v1/logs (read with the demo key itself, as the banner's logs line does)...
      const logs = await eventually(
        () => admin(controlPlane, demoKey, '/logs?provider=demo&include_total=true'),
        (reply) => reply.status === 200 && reply.body.total === 2,
        'demo calls in /logs',
      );
      const workspaces = await admin(controlPlane, adminKey, '/workspaces');
      expect(workspaces.body.data.map((w: { name: string }) => w.name)).toEqual(['Default workspace']);
      for (const log of logs.body.data) {
        expect(log).toMatchObject({
          provider: 'demo',
          ai_service: 'openai',
          model: 'gpt-4o-mini',
          status_code: 200,
          workspace_id: workspaces.body.data[0].id,
        });
        expect(log.tokens.total).toBeGreaterThan(0);
      }
      // ...and counted by analytics.
      const summary = await eventually(
        () => admin(controlPlane, adminKey, '/analytics/summary?provider=demo'),
        (reply) => reply.status === 200 && reply.body.requests === 2,
        'demo calls in /analytics/summary',
      );
      expect(summary.body.tokens.total).toBe(
        logs.body.data.reduce((sum: number, log: { tokens: { total: number } }) => sum + log.tokens.total, 0),
      );
      expect(summary.body.success_rate).toBe(1);
    } finally {
      if (first.stack.child.exitCode === null) await stopWithCtrlC(first);
    }

    // A restart on the same data directory reuses the demo: nothing created twice, the same key.
    const second = await start(env);
    try {
      expect(second.stack.output()).toContain(
        '[stack] demo: reusing the @demo provider and key of an earlier start',
      );
      expect(readFileSync(join(dataDir, 'demo.key'), 'utf8').trim()).toBe(demoKey);
      expect(second.curl).toBe(first.curl);
      const integrations = await admin(controlPlane, adminKey, '/integrations');
      expect(integrations.body.data.map((i: { slug: string }) => i.slug)).toEqual(['demo']);
      const providers = await admin(controlPlane, adminKey, '/providers');
      expect(providers.body.data.map((p: { slug: string }) => p.slug)).toEqual(['demo']);
      const keys = await admin(controlPlane, adminKey, '/api-keys?type=service');
      expect(keys.body.data.map((k: { name: string }) => k.name)).toEqual([DEMO_KEY_NAME]);
      expect((await admin(controlPlane, adminKey, '/workspaces')).body.total).toBe(1);

      expect(runCurl(second.curl).status).toBe(200);
      await eventually(
        () => admin(controlPlane, adminKey, '/analytics/summary?provider=demo'),
        (reply) => reply.status === 200 && reply.body.requests === 3,
        'the third demo call in /analytics/summary',
      );
    } finally {
      if (second.stack.child.exitCode === null) await stopWithCtrlC(second);
    }
  }, 240_000);
});
