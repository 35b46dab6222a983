import {
  ALERTS_STREAM,
  AUDIT_STREAM,
  GetSummaryRequest,
  LogsServiceClient,
  REQUESTS_STREAM,
} from '@aigw/proto';
import { expectStopsWithoutNats, test, waitFor, waitForDependency } from '@aigw/testkit';
import { startRestartableNats } from '@aigw/testkit/services';
import { credentials, Metadata, type ServiceError, status } from '@grpc/grpc-js';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import { describe, expect } from 'vitest';
import { createApp, type LoggerApp } from './app.js';
import { loadLoggerConfig } from './config.js';
import { LOGS_TOKEN } from './testing/logger-harness.js';
import { batchBytes, batchId, DEFAULT_SHAPE, requestEvent } from './testing/request-events.js';

function logger(env: Record<string, string>): LoggerApp {
  return createApp(
    loadLoggerConfig({
      PORT: '0',
      GRPC_PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      LOGS_SERVICE_TOKEN: LOGS_TOKEN,
      ...env,
    }),
  );
}

describe('logger app', () => {
  test('migrates, creates its streams, is ready, answers gRPC, and stops cleanly', async ({ pg, nats }) => {
    const app = logger({ DATABASE_URL: pg.url, NATS_URL: nats.url });
    await app.start();
    const base = `http://127.0.0.1:${app.ports.http}`;
    try {
      const ready = await fetch(`${base}/readyz`);
      // NATS and the streams are reported, not gating (below): with both fine the body names Postgres.
      expect(await ready.json()).toEqual({ ready: true, checks: { postgres: { ok: true } } });
      expect(await (await fetch(`${base}/metrics`)).text()).toContain('app="logger"');

      const requests = await nats.jsm.streams.info(REQUESTS_STREAM);
      expect(requests.config.subjects).toEqual(['aigw.requests.v1']);
      expect(requests.config.duplicate_window).toBe(120_000_000_000);
      expect((await nats.jsm.streams.info(AUDIT_STREAM)).config.subjects).toEqual(['aigw.audit.v1']);
      // AIGW_ALERTS is the control plane's: the logger neither creates nor reads it.
      await expect(nats.jsm.streams.info(ALERTS_STREAM)).rejects.toThrow(/stream not found/);
      const partitions = await pg.pool.query(
        "select count(*)::int as n from pg_tables where schemaname = 'logs' and tablename ~ '^request_logs_[0-9]{8}$'",
      );
      expect(partitions.rows[0].n).toBeGreaterThanOrEqual(5);

      const tables = await pg.pool.query<{ table_name: string }>(
        "select table_name from information_schema.tables where table_schema = 'logs' and table_name = 'dead_letters'",
      );
      expect(tables.rowCount).toBe(1);

      const client = new LogsServiceClient(`127.0.0.1:${app.ports.grpc}`, credentials.createInsecure());
      const summary = (metadata: Metadata) =>
        new Promise<ServiceError | null>((resolve) => client.getSummary({}, metadata, (err) => resolve(err)));
      const withToken = new Metadata();
      withToken.set('authorization', `Bearer ${LOGS_TOKEN}`);
      const withoutToken = await summary(new Metadata());
      const withoutCaller = await summary(withToken);
      client.close();
      // LogsService answers the token holder only; a call without a caller is refused (it fails closed).
      expect(withoutToken?.code).toBe(status.UNAUTHENTICATED);
      expect(withoutCaller?.code).toBe(status.INVALID_ARGUMENT);

      // A deleted stream would silently drop events: readiness and the gauge must say so, without
      // pulling the replica out of the Service (its log queries still work).
      await nats.jsm.streams.delete(AUDIT_STREAM);
      const degraded = await fetch(`${base}/readyz`);
      expect(degraded.status).toBe(200);
      expect(
        ((await degraded.json()) as { degraded?: Record<string, { ok: boolean }> }).degraded?.streams?.ok,
      ).toBe(false);
      expect(await (await fetch(`${base}/metrics`)).text()).toContain(
        'dependency_up{dependency="streams",app="logger"} 0',
      );
    } finally {
      await app.stop();
      await nats.jsm.streams.delete(REQUESTS_STREAM).catch(() => undefined);
      await nats.jsm.streams.delete(ALERTS_STREAM).catch(() => undefined);
    }
  });

  test('stays ready through a NATS outage and answers log queries, reporting NATS down and back', {
    timeout: 90_000,
  }, async ({ pg }) => {
    const natsServer = await startRestartableNats();
    const app = logger({ DATABASE_URL: pg.url, NATS_URL: natsServer.url });
    await app.start();
    const base = `http://127.0.0.1:${app.ports.http}`;
    const client = new LogsServiceClient(`127.0.0.1:${app.ports.grpc}`, credentials.createInsecure());
    const metadata = new Metadata();
    metadata.set('authorization', `Bearer ${LOGS_TOKEN}`);
    try {
      await waitForDependency(base, 'logger', 'nats', true);
      await natsServer.stop();
      await waitForDependency(base, 'logger', 'nats', false);
      // Every replica pulled out of the Service at once would take log queries down with NATS.
      const ready = await fetch(`${base}/readyz`);
      expect(ready.status).toBe(200);
      const body = (await ready.json()) as { ready: boolean; degraded?: Record<string, { ok: boolean }> };
      expect(body.ready).toBe(true);
      expect(body.degraded?.nats?.ok).toBe(false);
      // ...and they are answered from Postgres meanwhile.
      const summary = await new Promise<{ err: ServiceError | null; requests?: number | undefined }>(
        (resolve) =>
          client.getSummary(
            GetSummaryRequest.fromPartial({
              caller: { organisationId: '00000000-0000-4000-8000-000000000001', allWorkspaces: true },
            }),
            metadata,
            (err, out) => resolve({ err, requests: out?.requestCount }),
          ),
      );
      expect(summary.err).toBeNull();
      expect(summary.requests).toBe(0);

      await natsServer.start();
      await waitForDependency(base, 'logger', 'nats', true, 30_000);
      const back = (await (await fetch(`${base}/readyz`)).json()) as { degraded?: unknown };
      expect(back.degraded).toBeUndefined();
    } finally {
      client.close();
      await app.stop();
      await natsServer.close();
    }
  });

  test('starts and answers log queries while NATS is down; once NATS answers, sets up its streams and ingests', {
    timeout: 90_000,
  }, async ({ pg }) => {
    const natsServer = await startRestartableNats();
    await natsServer.stop();
    const app = logger({ DATABASE_URL: pg.url, NATS_URL: natsServer.url });
    let client: LogsServiceClient | undefined;
    let probe: NatsConnection | undefined;
    try {
      await app.start();
      const base = `http://127.0.0.1:${app.ports.http}`;
      const ready = await fetch(`${base}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toEqual({
        ready: true,
        checks: { postgres: { ok: true } },
        degraded: {
          nats: { ok: false, error: expect.stringMatching(/^not connected yet/) },
          streams: { ok: false, error: 'NATS not set up yet' },
        },
      });
      client = new LogsServiceClient(`127.0.0.1:${app.ports.grpc}`, credentials.createInsecure());
      const metadata = new Metadata();
      metadata.set('authorization', `Bearer ${LOGS_TOKEN}`);
      const logs = client;
      const summary = () =>
        new Promise<{ err: ServiceError | null; requests?: number | undefined }>((resolve) =>
          logs.getSummary(
            GetSummaryRequest.fromPartial({
              caller: { organisationId: DEFAULT_SHAPE.organisationId, allWorkspaces: true },
            }),
            metadata,
            (err, out) => resolve({ err, requests: out?.requestCount }),
          ),
        );
      expect(await summary()).toEqual({ err: null, requests: 0 });

      await natsServer.start();
      await waitForDependency(base, 'logger', 'nats', true, 30_000);
      await waitForDependency(base, 'logger', 'streams', true);
      probe = await connect({ servers: natsServer.url, name: 'app-test-probe' });
      const jsm = await jetstreamManager(probe);
      expect((await jsm.streams.info(REQUESTS_STREAM)).config.subjects).toEqual(['aigw.requests.v1']);
      expect((await jsm.streams.info(AUDIT_STREAM)).config.subjects).toEqual(['aigw.audit.v1']);
      // An event published now is consumed and stored.
      const events = [requestEvent(0), requestEvent(1)];
      await jetstream(probe).publish('aigw.requests.v1', batchBytes(events), { msgID: batchId(events) });
      await waitFor(
        async () => {
          const stored = await pg.pool.query<{ id: string }>(
            'select id from logs.request_logs where id = any($1::uuid[]) order by id',
            [events.map((e) => e.id)],
          );
          return stored.rowCount === 2 ? stored.rows.map((r) => r.id) : undefined;
        },
        'the published events stored',
        30_000,
      );
      expect(await summary()).toEqual({ err: null, requests: 2 });
    } finally {
      client?.close();
      await probe?.close();
      await app.stop();
      await natsServer.close();
    }
  });

  test('stops promptly when NATS never came up', async ({ pg }) => {
    await expectStopsWithoutNats((natsUrl) => logger({ DATABASE_URL: pg.url, NATS_URL: natsUrl }));
  });

  test('restarting keeps the streams and updates their settings', async ({ pg, nats }) => {
    const first = logger({ DATABASE_URL: pg.url, NATS_URL: nats.url });
    await first.start();
    await nats.js.publish('aigw.requests.v1', new Uint8Array([1]), { msgID: 'evt-1' });
    await first.stop();
    const second = logger({ DATABASE_URL: pg.url, NATS_URL: nats.url });
    await second.start();
    try {
      const info = await nats.jsm.streams.info(REQUESTS_STREAM);
      expect(info.state.messages).toBe(1);
      const duplicate = await nats.js.publish('aigw.requests.v1', new Uint8Array([1]), { msgID: 'evt-1' });
      expect(duplicate.duplicate).toBe(true);
    } finally {
      await second.stop();
      await nats.jsm.streams.delete(REQUESTS_STREAM).catch(() => undefined);
      await nats.jsm.streams.delete(AUDIT_STREAM).catch(() => undefined);
      await nats.jsm.streams.delete(ALERTS_STREAM).catch(() => undefined);
    }
  });
});
