// NATS away under traffic, through the whole stack (reliability checklist row 29; docs/reliability.md,
// "NATS outage under traffic, measured"): the real gateway, control plane and logger on real
// Postgres and a nats-server of this file's own (pinned port, JetStream store kept), the mock
// provider upstream. Requests go through the gateway at OUTAGE_RATE a second (default 20), each
// with a unique `x-service-trace-id`: OUTAGE_LEAD_S seconds (5) with NATS up, OUTAGE_S (30) with
// NATS stopped, OUTAGE_TAIL_S (10) after it is started again on the same port and store. A key
// created while NATS is away checks that the control plane's change reaches the gateway and that
// its outbox is relayed once NATS is back.
// Part of `pnpm bench` (e2e's bench script runs src/*.measure.ts), never of `pnpm test`.
//
// Asserted (correctness only): every request is answered 200 (the gateway serves while NATS is
// down: docs/request-events.md, events go to the spool), every one is in the logger's store exactly
// once (no loss, no duplicate), no event is dropped, every spooled event is replayed, the key
// created during the outage is served, and the control plane's outbox has nothing left unpublished.
// Printed, never asserted: counts per phase, latencies, the spool's peak, the time from NATS back to
// the last event stored and to the last outbox record published, the apps' readiness changes.
// OUTAGE_LOG_LEVEL (default silent) lets the three apps write their own logs to stdout.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PgFixture } from '@aigw/testkit';
import { test } from '@aigw/testkit';
import { freePort, type LocalServiceHandle, startLocalNats } from '@aigw/testkit/services';
import { describe, expect } from 'vitest';
import { chat, percentile } from './enforcement-client.test-support.js';
import {
  chatUntilServed,
  createTenant,
  type LogsStack,
  pollUntil,
  startLogsStack,
} from './logs-stack.test-support.js';
import {
  eventCounters,
  gatewayMetrics,
  metricSum,
  type Phase,
  type SentRequest,
  startTraffic,
  watchStack,
} from './nats-outage.test-support.js';

const RATE = Number(process.env.OUTAGE_RATE ?? 20);
const OUTAGE_S = Number(process.env.OUTAGE_S ?? 30);
const LEAD_S = Number(process.env.OUTAGE_LEAD_S ?? 5);
const TAIL_S = Number(process.env.OUTAGE_TAIL_S ?? 10);
const LOG_LEVEL = process.env.OUTAGE_LOG_LEVEL ?? 'silent';
/** How long the logger may take to store everything once traffic has stopped. */
const SETTLE_MS = 300_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One chat completion with its own trace id; its status (a hang fails after 30 s). */
async function chatTraced(stack: LogsStack, key: string, provider: string, traceId: string): Promise<number> {
  const reply = await chat(stack.gatewayBase, {
    key,
    provider,
    traceId,
    prompt: 'hi',
    maxTokens: 3,
    abortMs: 30_000,
  });
  return reply.status;
}

/** Stored rows per trace id among the trace ids starting with `prefix-`. */
async function storedCounts(pg: PgFixture, prefix: string): Promise<Map<string, number>> {
  const { rows } = await pg.pool.query<{ trace_id: string; n: number }>(
    `select trace_id, count(*)::int as n from logs.request_logs where trace_id like $1 group by trace_id`,
    [`${prefix}-%`],
  );
  return new Map(rows.map((row) => [row.trace_id, row.n]));
}

/** When the last of `traceIds` was stored (the logger's insert time), ms since the epoch. */
async function lastIngested(pg: PgFixture, traceIds: readonly string[]): Promise<number | undefined> {
  const { rows } = await pg.pool.query<{ at: Date | null }>(
    'select max(ingested_at) as at from logs.request_logs where trace_id = any($1)',
    [traceIds],
  );
  return rows[0]?.at?.getTime();
}

function phaseFigures(sent: readonly SentRequest[], phase: Phase) {
  const of = sent.filter((request) => request.phase === phase);
  const latencies = of.flatMap((request) => (request.latencyMs === undefined ? [] : [request.latencyMs]));
  return {
    sent: of.length,
    answered: of.filter((request) => request.status !== undefined).length,
    answered200: of.filter((request) => request.status === 200).length,
    latencyMs: {
      p50: Math.round(percentile(latencies, 50)),
      p99: Math.round(percentile(latencies, 99)),
      max: Math.round(percentile(latencies, 100)),
    },
  };
}

describe('NATS outage under traffic (measurement)', () => {
  test(`${OUTAGE_S} s without NATS at ${RATE} requests/s: every request answered and logged once`, {
    timeout: (LEAD_S + OUTAGE_S + TAIL_S) * 1000 + SETTLE_MS + 180_000,
  }, async ({ pg, nats }) => {
    const dataDir = await mkdtemp(join(tmpdir(), 'aigw-nats-outage-'));
    const port = await freePort();
    let server: LocalServiceHandle | undefined = await startLocalNats({ dataDir, port });
    const logLevel = { LOG_LEVEL };
    // startLogsStack reads only the fixture's url and prefix: its apps use this file's own server.
    const stack = await startLogsStack(
      { pg, nats: { ...nats, url: server.url } },
      logLevel,
      logLevel,
      logLevel,
    );
    try {
      const tenant = await createTenant(stack.admin, stack.mock, 'Outage');
      const { key } = await stack.admin.createKey(tenant.workspaceId, 'outage traffic');
      const run = randomUUID();
      await chatUntilServed(stack, tenant, key, `warm-${run}`);
      const before = await eventCounters(stack.gatewayBase);

      const t0 = performance.now();
      const watch = watchStack(
        {
          gateway: stack.gatewayBase,
          'control plane': stack.controlPlaneBase,
          logger: `http://127.0.0.1:${stack.logger.ports.http}`,
        },
        stack.gatewayBase,
        t0,
      );
      let phase: Phase = 'before';
      const traffic = startTraffic(
        RATE,
        run,
        () => phase,
        (traceId) => chatTraced(stack, key, tenant.provider, traceId),
      );
      await sleep(LEAD_S * 1000);

      phase = 'outage';
      const stopAt = performance.now();
      await server.stop();
      server = undefined;
      const stoppedAt = performance.now();
      // A change made while NATS is away: the control plane keeps it in its outbox.
      const lateKey = await stack.admin.createKey(tenant.workspaceId, 'created during the outage');
      // Tried every 500 ms from now on until the gateway serves it (through NATS once it is back, or
      // the gateway's anti-entropy check over gRPC, every SNAPSHOT_ANTI_ENTROPY_INTERVAL_MS, before).
      let lateKeyServedAt: number | undefined;
      const lateKeyProbe = (async () => {
        for (let n = 0; performance.now() - stopAt < OUTAGE_S * 1000 + SETTLE_MS; n++) {
          const status = await chatTraced(stack, lateKey.key, tenant.provider, `probe-${run}-${n}`).catch(
            () => 0,
          );
          if (status === 200) {
            lateKeyServedAt = performance.now();
            return;
          }
          await sleep(500);
        }
      })();
      await sleep(Math.max(0, OUTAGE_S * 1000 - (performance.now() - stopAt)));
      server = await startLocalNats({ dataDir, port });
      phase = 'after';
      const backAt = performance.now();
      const backWall = Date.now();

      await sleep(TAIL_S * 1000);
      await traffic.stop();
      const trafficEnd = performance.now();
      const sent = traffic.sent;
      const answered = sent.filter((request) => request.status !== undefined);

      // Bounded wait: the gateway's spool empty, nothing in flight, and a row for every answer.
      let stored = new Map<string, number>();
      const deadline = performance.now() + SETTLE_MS;
      for (;;) {
        const metrics = await gatewayMetrics(stack.gatewayBase);
        const spoolBytes = metricSum(metrics, 'gateway_request_events_spool_bytes');
        const inFlight = metricSum(metrics, 'gateway_request_events_in_flight');
        stored = await storedCounts(pg, run);
        if (spoolBytes === 0 && inFlight === 0 && stored.size >= answered.length) break;
        if (performance.now() > deadline) break;
        await sleep(1_000);
      }
      const settledAt = performance.now();
      await lateKeyProbe;
      // The control plane's outbox (changes and audit records written during the outage) relayed.
      const outbox = await pollUntil(
        async () =>
          (
            await pg.pool.query<{ pending: number; last: Date | null }>(
              'select count(*) filter (where published_at is null)::int as pending, max(published_at) as last from control.outbox',
            )
          ).rows[0],
        (row) => row?.pending === 0,
        { boundMs: SETTLE_MS, intervalMs: 1_000, what: 'control-plane outbox relayed' },
      );
      await watch.stop();
      const after = await eventCounters(stack.gatewayBase);
      const delta = Object.fromEntries(
        Object.entries(after).map(([name, value]) => [name, value - before[name as keyof typeof before]]),
      ) as typeof after;

      const outageIds = sent
        .filter((request) => request.phase === 'outage')
        .map((request) => request.traceId);
      const lastOutageEvent = await lastIngested(pg, outageIds);
      const lastEvent = await lastIngested(
        pg,
        sent.map((request) => request.traceId),
      );
      const seconds = (ms: number) => Number((ms / 1000).toFixed(1));
      console.log(
        'NATS outage under traffic:',
        JSON.stringify(
          {
            settings: { rate: RATE, leadS: LEAD_S, outageS: OUTAGE_S, tailS: TAIL_S },
            loadavg1m: Number(loadavg()[0]?.toFixed(2)),
            natsStopTookS: seconds(stoppedAt - stopAt),
            natsDownS: seconds(backAt - stopAt),
            requests: {
              sent: sent.length,
              answered: answered.length,
              answered200: sent.filter((request) => request.status === 200).length,
              notAnswered: sent.filter((request) => request.error !== undefined).length,
              statuses: [...new Set(answered.map((request) => request.status))],
              before: phaseFigures(sent, 'before'),
              outage: phaseFigures(sent, 'outage'),
              after: phaseFigures(sent, 'after'),
            },
            logged: {
              traceIds: stored.size,
              rows: [...stored.values()].reduce((sum, n) => sum + n, 0),
              lastOutageEventAfterNatsBackS:
                lastOutageEvent === undefined ? null : seconds(lastOutageEvent - backWall),
              lastEventAfterNatsBackS: lastEvent === undefined ? null : seconds(lastEvent - backWall),
              allStoredAfterTrafficStoppedS: seconds(settledAt - trafficEnd),
            },
            gatewayEvents: { counterDeltas: delta, spoolPeakBytes: watch.spoolPeakBytes },
            controlPlane: {
              outboxPending: outbox.value?.pending,
              outboxLastPublishedAfterNatsBackS: outbox.value?.last
                ? seconds(outbox.value.last.getTime() - backWall)
                : null,
              keyCreatedDuringOutageServedAfterNatsStopS:
                lateKeyServedAt === undefined ? null : seconds(lateKeyServedAt - stopAt),
            },
            readiness: watch.transitions.map(
              (change) => `${seconds(change.at - (stopAt - t0))} s ${change.app}: ${change.state}`,
            ),
          },
          null,
          2,
        ),
      );

      // Correctness only. Every request answered, and answered 200: NATS away is not a reason to fail one.
      expect(
        sent.filter((request) => request.error !== undefined).map((r) => `${r.traceId}: ${r.error}`),
      ).toEqual([]);
      expect(
        sent.filter((request) => request.status !== 200).map((r) => `${r.traceId}: ${r.status}`),
      ).toEqual([]);
      expect(outageIds.length).toBeGreaterThan(0);
      // Every answered request stored exactly once, nothing else under this run's trace ids.
      const missing = answered.filter((request) => !stored.has(request.traceId)).map((r) => r.traceId);
      const twice = [...stored].filter(([, n]) => n !== 1).map(([traceId, n]) => `${traceId} x${n}`);
      const sentIds = new Set(sent.map((request) => request.traceId));
      const unknown = [...stored.keys()].filter((traceId) => !sentIds.has(traceId));
      expect({ missing, twice, unknown }).toEqual({ missing: [], twice: [], unknown: [] });
      // The outage really went through the spool, and the spool gave everything back.
      expect(delta.gateway_request_events_spooled_total).toBeGreaterThan(0);
      expect(delta.gateway_request_events_replayed_total).toBe(delta.gateway_request_events_spooled_total);
      expect(delta.gateway_request_events_dropped_total).toBe(0);
      // The change made during the outage reached the gateway; the control plane relayed its outbox.
      expect(lateKeyServedAt).toBeDefined();
      expect(outbox.value?.pending).toBe(0);
    } finally {
      await stack.close();
      await server?.stop();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
