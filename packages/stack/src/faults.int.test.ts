// `pnpm start` under a fault, in the bounded form of the hostile test that found issue 23's items
// 4, 5 and 8: a few hundred requests through the demo provider, the gateway SIGKILLed in the turn
// of its 150th answer (the events of the last answers still waiting for a batch), the stack
// restarting it. While the new gateway starts a valid key is never answered 401, and the control
// plane and logger keep running (items 5, 8). Every request answered 200 before the kill is logged
// once (item 4): a response's completing bytes wait until its event is in the journal.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from '@aigw/testkit';
import { freePort } from '@aigw/testkit/services';
import { describe, expect } from 'vitest';
import { type RunningStack, runStack, waitForLine } from './stack-run.test-support.js';

const REQUESTS = 300;
/** Answered requests after which the gateway is killed (the rest are cut or refused). */
const KILL_AFTER = 150;
const CONCURRENCY = 8;

interface Fixtures {
  readonly pg: { readonly url: string };
  readonly redis: { readonly url: string };
  readonly nats: { readonly url: string };
}

interface Killed {
  /** This start's number in the file: its trace ids are `fault-<run>-<n>`. */
  readonly run: number;
  /** ISO 8601 time before its first request (its logs' start_time). */
  readonly startedAt: string;
  /** Trace ids of the requests answered 200 before the kill. */
  readonly answered: string[];
  /** Answers other than 200 before the kill (none expected). */
  readonly otherAnswers: Array<{ traceId: string; status: number }>;
  /** Answers while the restarted gateway came back, until its first 200 (none may be a 401). */
  readonly whileStarting: Array<{ status: number; retryAfter: string | null; code?: string }>;
  readonly served: boolean;
  readonly ports: Record<string, string>;
  readonly adminKey: string;
  readonly controlPlane: string;
  readonly stack: RunningStack;
}

let shared: { ports: Record<string, string>; dataDir: string } | undefined;
let runs = 0;

async function sharedStackFiles(): Promise<{ ports: Record<string, string>; dataDir: string }> {
  return {
    ports: {
      GATEWAY_PORT: String(await freePort()),
      CONTROL_PLANE_PORT: String(await freePort()),
      CONTROL_PLANE_GRPC_PORT: String(await freePort()),
      LOGGER_PORT: String(await freePort()),
      LOGGER_GRPC_PORT: String(await freePort()),
      DEMO_PROVIDER_PORT: String(await freePort()),
    },
    dataDir: mkdtempSync(join(tmpdir(), 'aigw-faults-')),
  };
}

/** Starts the stack, loads it, SIGKILLs the gateway mid-load and waits for the restarted one. */
async function killGatewayUnderLoad({ pg, redis, nats }: Fixtures): Promise<Killed> {
  // One data directory and one set of ports for the file: the tests share its database, so a later
  // start must be a restart (the same admin and master keys, the demo reused).
  shared ??= await sharedStackFiles();
  const { ports, dataDir } = shared;
  const run = ++runs;
  const stack = runStack({
    ...ports,
    DATABASE_URL: pg.url,
    REDIS_URL: redis.url,
    NATS_URL: nats.url,
    AIGW_DATA_DIR: dataDir,
    AIGW_DEMO: '',
    LOG_LEVEL: 'warn',
  });
  const { child, output } = stack;
  const gateway = `http://127.0.0.1:${ports.GATEWAY_PORT}/v1`;
  const controlPlane = `http://127.0.0.1:${ports.CONTROL_PLANE_PORT}/v1`;
  try {
    // The banner ends with the SDK line once the demo provider and its key are set up.
    await waitForLine(output, /^\[stack\] {3}new OpenAI\(.*$/m, child);
    const demoKey = readFileSync(join(dataDir, 'demo.key'), 'utf8').trim();
    const adminKey = readFileSync(join(dataDir, 'admin.key'), 'utf8').trim();
    const gatewayPid = Number(/\[stack\] gateway started \(pid (\d+)\)/.exec(output())?.[1]);
    expect(gatewayPid).toBeGreaterThan(0);
    const chat = (traceId: string) =>
      fetch(`${gateway}/chat/completions`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-service-api-key': demoKey,
          'x-service-provider': '@demo',
          'x-service-trace-id': traceId,
        },
        body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: traceId }] }),
        signal: AbortSignal.timeout(20_000),
      });

    const startedAt = new Date(Date.now() - 1_000).toISOString();
    const answered: string[] = [];
    const otherAnswers: Array<{ traceId: string; status: number }> = [];
    let next = 0;
    let killed = false;
    const worker = async () => {
      while (!killed && next < REQUESTS) {
        const traceId = `fault-${run}-${next++}`;
        try {
          const res = await chat(traceId);
          const body = await res.text();
          if (res.status === 200 && body.includes('"choices"')) answered.push(traceId);
          else otherAnswers.push({ traceId, status: res.status });
        } catch {
          // Cut or refused by the kill: not answered, so nothing is owed.
          if (!killed) otherAnswers.push({ traceId, status: 0 });
          continue;
        }
        if (!killed && answered.length >= KILL_AFTER) {
          killed = true;
          process.kill(gatewayPid, 'SIGKILL');
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    expect(killed).toBe(true);

    // The stack restarts the gateway and says so.
    await waitForLine(output, /\[stack\] gateway exited \(SIGKILL\); restarting it in 1 s/, child);
    const whileStarting: Killed['whileStarting'] = [];
    let served = false;
    for (let i = 0; i < 600 && !served; i++) {
      try {
        const res = await chat(`fault-${run}-restart-${i}`);
        const body = (await res.json()) as { error?: { code?: string } };
        if (res.status === 200) served = true;
        else
          whileStarting.push({
            status: res.status,
            retryAfter: res.headers.get('retry-after'),
            code: body.error?.code,
          });
      } catch {
        // Not listening yet.
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
    return {
      run,
      startedAt,
      answered,
      otherAnswers,
      whileStarting,
      served,
      ports,
      adminKey,
      controlPlane,
      stack,
    };
  } catch (err) {
    await stopStack(stack);
    throw err;
  }
}

/** Ctrl-C: SIGINT to the whole group; the stack stops each app with a drain. */
async function stopStack({ child }: RunningStack): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  process.kill(-(child.pid as number), 'SIGINT');
  await exited;
}

describe('pnpm start under a fault', () => {
  test('a SIGKILLed gateway is restarted, never answers a valid key 401 while it loads, and the other apps keep running', {
    timeout: 180_000,
  }, async ({ pg, redis, nats }) => {
    const killed = await killGatewayUnderLoad({ pg, redis, nats });
    try {
      expect(killed.otherAnswers).toEqual([]);
      expect(killed.answered.length).toBeGreaterThanOrEqual(KILL_AFTER);
      expect(killed.served).toBe(true);
      // A refused connection, a 503 with retry-after (snapshot not loaded yet), or the answer.
      for (const answer of killed.whileStarting)
        expect(answer).toEqual({ status: 503, retryAfter: '1', code: 'snapshot_not_loaded' });
      expect(killed.stack.output()).toMatch(/gateway started \(pid \d+\)[\s\S]*gateway started \(pid \d+\)/);
      expect((await fetch(`http://127.0.0.1:${killed.ports.CONTROL_PLANE_PORT}/readyz`)).status).toBe(200);
      expect((await fetch(`http://127.0.0.1:${killed.ports.LOGGER_PORT}/readyz`)).status).toBe(200);
      expect(killed.stack.child.exitCode).toBeNull();
    } finally {
      await stopStack(killed.stack);
    }
  });

  test('every request answered 200 before a SIGKILL is logged, exactly once', {
    timeout: 180_000,
  }, async ({ pg, redis, nats }) => {
    const killed = await killGatewayUnderLoad({ pg, redis, nats });
    try {
      expect(killed.otherAnswers).toEqual([]);
      expect(killed.served).toBe(true);
      // The journal written as each request completed is replayed by the new gateway; the logger
      // stores each event once.
      let logged: string[] = [];
      for (let i = 0; i < 300; i++) {
        const res = await fetch(
          `${killed.controlPlane}/logs?provider=demo&page_size=500&start_time=${killed.startedAt}`,
          {
            headers: { 'x-service-api-key': killed.adminKey },
          },
        );
        expect(res.status).toBe(200);
        const body = (await res.json()) as { data: Array<{ trace_id: string }> };
        logged = body.data
          .map((log) => log.trace_id)
          .filter((id) => new RegExp(`^fault-${killed.run}-\\d+$`).test(id));
        if (killed.answered.every((id) => logged.includes(id))) break;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(killed.answered.filter((id) => !logged.includes(id))).toEqual([]);
      expect(logged.length).toBe(new Set(logged).size);
    } finally {
      await stopStack(killed.stack);
    }
  });
});
