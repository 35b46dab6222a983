// Issue 8 acceptance: 10,000 request events (duplicated, redelivered, one poison) become exactly
// 10,000 rows and one dead letter, across a logger process killed (SIGKILL) in the middle of a batch
// transaction and a restart (issue 17 item 8: every event stored once, by event id).
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { RequestEvent } from '@aigw/proto';
import { type PgFixture, test } from '@aigw/testkit';
import { describe, expect } from 'vitest';
import { count, eventually, LOGS_TOKEN, testLogger, testStreams } from '../testing/logger-harness.js';
import { batchBytes, batchId, requestEvent } from '../testing/request-events.js';
import { CONSUMER_NAMES } from './ingest.js';

const TOTAL = 10_000;
const PER_MESSAGE = 100;
const appDir = fileURLToPath(new URL('../..', import.meta.url));

function spawnLogger(env: Record<string, string>): ChildProcess {
  // node itself (not the tsx wrapper, whose own child would survive the SIGKILL).
  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=@aigw/source', 'src/main.ts'], {
    cwd: appDir,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return child;
}

async function rows(pg: PgFixture): Promise<number> {
  return count(pg, 'select count(*) as n from logs.request_logs');
}

describe('ingest acceptance', () => {
  test('10,000 events, duplicates, a poison message and a SIGKILL mid-batch: 10,000 rows, one dead letter', async ({
    pg,
    nats,
  }) => {
    const streams = testStreams(nats);
    const subject = streams.requests.subjects[0] ?? '';
    const events: RequestEvent[] = Array.from({ length: TOTAL }, (_, i) => requestEvent(i));
    // Streams exist before publishing: the gateway creates nothing, the logger's first start does.
    const setup = testLogger(pg, nats);
    await setup.start();
    await setup.stop();

    const publishes: Promise<unknown>[] = [];
    for (let at = 0; at < TOTAL; at += PER_MESSAGE) {
      const batch = events.slice(at, at + PER_MESSAGE);
      publishes.push(nats.js.publish(subject, batchBytes(batch), { msgID: batchId(batch) }));
      if (at % 1000 === 0) {
        // The same batch re-sent (JetStream drops it) and an overlapping one under a new id (stored again).
        publishes.push(nats.js.publish(subject, batchBytes(batch), { msgID: batchId(batch) }));
        const overlap = events.slice(at + 50, at + 150);
        publishes.push(nats.js.publish(subject, batchBytes(overlap), { msgID: `overlap-${at}` }));
      }
      if (at === 5_000)
        publishes.push(nats.js.publish(subject, Buffer.from('not protobuf \xff\xff'), { msgID: 'poison' }));
    }
    await Promise.all(publishes);

    const env = {
      DATABASE_URL: pg.url,
      NATS_URL: nats.url,
      NATS_NAMESPACE: nats.prefix,
      PORT: '0',
      GRPC_PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'error',
      LOGS_SERVICE_TOKEN: LOGS_TOKEN,
      INGEST_BATCH_MESSAGES: '2',
      INGEST_ACK_WAIT_MS: '2000',
      INGEST_FETCH_EXPIRES_MS: '1000',
    };
    const child = spawnLogger(env);
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    // Mid-batch for certain: once some batches are committed, the rollups are locked, so the next
    // batch transaction inserts its rows and then waits at the rollup upsert; the logger is killed
    // while that transaction is open (its connection then drops and Postgres rolls it back).
    const lock = await pg.pool.connect();
    let atKill: number;
    try {
      await eventually(
        () => rows(pg),
        (n) => n >= 1_000,
        120_000,
      );
      await lock.query('begin');
      await lock.query('lock table logs.request_rollups_hourly in exclusive mode');
      const waiting = await eventually(
        () =>
          count(
            pg,
            `select count(*) as n from pg_stat_activity where datname = $1 and application_name = 'logger'
               and backend_xid is not null and wait_event_type = 'Lock'`,
            [pg.database],
          ),
        (n) => n > 0,
        120_000,
      );
      expect(waiting).toBeGreaterThan(0);
      atKill = await rows(pg);
    } finally {
      child.kill('SIGKILL');
      await exited;
      await lock.query('rollback').catch(() => undefined);
      lock.release();
    }
    expect(atKill).toBeLessThan(TOTAL);

    const logger = testLogger(pg, nats, { INGEST_BATCH_MESSAGES: '8' });
    await logger.start();
    try {
      await eventually(
        async () => {
          const info = await nats.jsm.consumers.info(streams.requests.name, CONSUMER_NAMES.requests);
          return { pending: info.num_pending + info.num_ack_pending, rows: await rows(pg) };
        },
        (s) => s.pending === 0 && s.rows === TOTAL,
        120_000,
      );
      // What the killed process had fetched but not acknowledged came again.
      const metrics = await (await fetch(`http://127.0.0.1:${logger.ports.http}/metrics`)).text();
      const redelivered = /logger_ingest_redelivered_messages_total\{stream="requests"[^}]*\} (\d+)/.exec(
        metrics,
      );
      expect(Number(redelivered?.[1] ?? 0)).toBeGreaterThan(0);
    } finally {
      await logger.stop();
    }

    expect(await count(pg, 'select count(distinct id) as n from logs.request_logs')).toBe(TOTAL);
    const stored = await pg.pool.query<{ id: string }>('select id from logs.request_logs');
    expect(new Set(stored.rows.map((r) => r.id))).toEqual(new Set(events.map((e) => e.id)));
    const letters = await pg.pool.query('select event_index, error from logs.dead_letters');
    expect(letters.rows).toEqual([{ event_index: -1, error: expect.stringContaining('undecodable') }]);

    // Rollups equal what the raw rows say, per dimension combination.
    const dims =
      'organisation_id, workspace_id, api_key_id, ai_service, provider_slug, model, status_code, config_id, prompt_id';
    const raw = `select date_trunc('hour', received_at) as bucket, ${dims}, count(*) as requests,
          count(*) filter (where status_code >= 400) as errors, count(*) filter (where cache_status in (1, 2)) as cache_hits,
          sum(total_tokens) as total_tokens, sum(cost_micros) as cost_micros, round(sum(latency_ms)::numeric, 3) as latency
        from logs.request_logs group by 1, ${dims}`;
    const rollup = `select bucket, ${dims}, requests, errors, cache_hits, total_tokens, cost_micros,
          round(latency_ms_sum::numeric, 3) as latency from logs.request_rollups_hourly`;
    // EXCEPT compares NULLs as equal: both directions empty means the same set of rows.
    const mismatches = await pg.pool.query(`(${raw} except ${rollup}) union all (${rollup} except ${raw})`);
    expect(mismatches.rows).toEqual([]);
    expect(await count(pg, 'select sum(requests) as n from logs.request_rollups_hourly')).toBe(TOTAL);

    // The usage ledger charged each stored request once.
    const ledger = await pg.pool.query(`
        select l.entity_id, l.cost_micros::bigint - r.cost as cost_diff, l.requests - r.n as n_diff
        from logs.usage_ledger l join (
          select api_key_id, date_trunc('month', received_at at time zone 'UTC') at time zone 'UTC' as period_start,
            sum(cost_micros) as cost, count(*) as n from logs.request_logs group by 1, 2
        ) r on l.entity_kind = 'api_key' and l.entity_id = r.api_key_id and l.period_start = r.period_start`);
    expect(ledger.rows.length).toBeGreaterThan(0);
    for (const row of ledger.rows) expect(row).toMatchObject({ cost_diff: '0', n_diff: '0' });
    expect(
      await count(
        pg,
        "select sum(requests) as n from logs.usage_ledger where entity_kind = 'api_key' and period_start > 'epoch'",
      ),
    ).toBe(TOTAL);
  }, 300_000);
});
