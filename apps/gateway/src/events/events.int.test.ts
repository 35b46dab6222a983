// The request-event publisher against real nats-server processes: the shared test server for the
// happy paths, and dedicated servers that are stopped (and restarted) for the outage paths.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { appendFile, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate as tick } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { RequestEvent, RequestEventBatch } from '@aigw/proto';
import { connectNats, createLogger, type Logger } from '@aigw/runtime';
import { test } from '@aigw/testkit';
import { freePort, startLocalNats } from '@aigw/testkit/services';
import { type JetStreamClient, type JetStreamManager, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { nanos } from '@nats-io/nats-core';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, vi } from 'vitest';
import { frameBatch } from './batch.js';
import { EVENT_METRIC_NAMES } from './event-metrics.js';
import { createEventPublisher, type EventPublisherOptions } from './event-publisher.js';
import { encodeRecord } from './spool-record.js';

const BODY_MARKER = 'captured-body-must-never-reach-the-log';
const DUPLICATE_WINDOW_MS = 120_000;

function sampleEvent(n: number): RequestEvent {
  return RequestEvent.fromPartial({
    schemaVersion: 1,
    id: randomUUID(),
    traceId: `trace-${n}`,
    receivedAtMs: Date.now(),
    organisationId: 'org-1',
    workspaceId: 'ws-1',
    modelRequested: 'gpt-4o-mini',
    method: 'POST',
    path: '/chat/completions',
    statusCode: 200,
    tokens: { inputTokens: n, outputTokens: 2 * n, totalTokens: 3 * n },
    metadata: { n: String(n) },
    requestBody: {
      data: Buffer.from(`{"secret":"${BODY_MARKER}"}`),
      sizeBytes: 40,
      contentType: 'application/json',
    },
  });
}

/** A logger whose lines the test can read. */
function capturingLogger(): { log: Logger; lines: string[] } {
  const lines: string[] = [];
  const log = createLogger({
    app: 'test',
    level: 'debug',
    destination: { write: (line: string) => lines.push(line) },
  });
  return { log, lines };
}

async function tempDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'aigw-events-'));
}

async function spoolFiles(dir: string): Promise<{ names: string[]; bytes: number }> {
  const names = (await readdir(dir)).filter((name) => name.endsWith('.spool')).sort();
  const sizes = await Promise.all(names.map(async (name) => (await stat(join(dir, name))).size));
  return { names, bytes: sizes.reduce((sum, size) => sum + size, 0) };
}

async function jsmMessages(jsm: JetStreamManager, stream: string): Promise<number> {
  return (await jsm.streams.info(stream)).state.messages;
}

async function addStream(jsm: JetStreamManager, name: string, subject: string): Promise<void> {
  await jsm.streams.add({ name, subjects: [subject], duplicate_window: nanos(DUPLICATE_WINDOW_MS) });
}

/**
 * Every event of the stream (messages are batches), with the Nats-Msg-Id of its batch, which must
 * be `<first event id of the batch>+<events in it>`.
 */
async function storedEvents(
  js: JetStreamClient,
  jsm: JetStreamManager,
  stream: string,
): Promise<{ event: RequestEvent; msgId: string | undefined; batchId: string }[]> {
  const count = (await jsm.streams.info(stream)).state.messages;
  const stored: { event: RequestEvent; msgId: string | undefined; batchId: string }[] = [];
  if (count === 0) return stored;
  const consumer = await js.consumers.get(stream);
  let messages = 0;
  for await (const message of await consumer.consume()) {
    const batch = RequestEventBatch.decode(message.data);
    expect(batch.schemaVersion).toBe(1);
    const batchId = `${batch.events[0]?.id}+${batch.events.length}`;
    for (const event of batch.events)
      stored.push({ event, msgId: message.headers?.get('Nats-Msg-Id'), batchId });
    if (++messages === count) break;
  }
  return stored;
}

/** A connection whose server has been stopped: it keeps trying to reconnect, like the app's. */
async function deadConnection(): Promise<NatsConnection> {
  const server = await startLocalNats();
  const nc = await connect({ servers: server.url, maxReconnectAttempts: -1, reconnectTimeWait: 250 });
  const disconnected = (async () => {
    for await (const status of nc.status()) if (status.type === 'disconnect') return;
  })();
  await server.stop();
  await disconnected;
  return nc;
}

const silent = createLogger({ app: 'test', level: 'silent' });

function publisherOptions(
  overrides: Partial<EventPublisherOptions> & Pick<EventPublisherOptions, 'nc' | 'subject' | 'spoolDir'>,
): EventPublisherOptions {
  return {
    maxSpoolBytes: 16 * 1024 * 1024,
    log: silent,
    retryIntervalMs: 200,
    publishTimeoutMs: 2_000,
    ...overrides,
  };
}

describe('request event publisher', () => {
  let down: NatsConnection;
  const dirs: string[] = [];

  beforeAll(async () => {
    down = await deadConnection();
  });

  afterAll(async () => {
    await down.close();
    await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  });

  async function dir(): Promise<string> {
    const created = await tempDir();
    dirs.push(created);
    return created;
  }

  test('stores 500 published events exactly once, each as it was sent', async ({ nats }) => {
    const stream = nats.stream('REQ500');
    const subject = nats.subject('requests');
    await addStream(nats.jsm, stream, subject);
    const registry = new Registry();
    const { log, lines } = capturingLogger();
    const publisher = createEventPublisher(
      publisherOptions({ nc: nats.nc, subject, spoolDir: await dir(), metrics: registry, log }),
    );
    const sent = Array.from({ length: 500 }, (_, n) => sampleEvent(n));
    for (const event of sent) publisher.publish(event);
    // Within maxInFlight (2048 by default) a burst goes out live, batched; each event is sent once.
    await vi.waitFor(() => expect(publisher.stats()).toMatchObject({ spoolBytes: 0, inFlight: 0 }), {
      timeout: 10_000,
    });
    const stats = publisher.stats();
    expect(stats.dropped).toBe(0);
    expect(stats.replayed).toBe(stats.spooled);
    expect(stats.published + stats.replayed).toBe(500);
    const stored = await storedEvents(nats.js, nats.jsm, stream);
    expect(stored).toHaveLength(500);
    const byId = new Map(sent.map((event) => [event.id, event]));
    for (const { event, msgId, batchId } of stored) {
      expect(msgId).toBe(batchId);
      expect(event).toEqual(byId.get(event.id));
    }
    // A burst is batched: far fewer JetStream messages than events.
    expect((await nats.jsm.streams.info(stream)).state.messages).toBeLessThan(50);
    expect(new Set(stored.map(({ event }) => event.id)).size).toBe(500);
    const metric = await registry.getSingleMetric(EVENT_METRIC_NAMES.published)?.get();
    expect(metric?.values[0]?.value).toBe(stats.published);
    await publisher.close(5_000);
    expect(lines.join('')).not.toContain(BODY_MARKER);
  });

  test('sends what exceeds maxInFlight through the spool instead of queueing it in memory', async ({
    nats,
  }) => {
    const stream = nats.stream('INFLIGHT');
    const subject = nats.subject('inflight');
    await addStream(nats.jsm, stream, subject);
    const publisher = createEventPublisher(
      publisherOptions({ nc: nats.nc, subject, spoolDir: await dir(), maxInFlight: 4 }),
    );
    const sent = Array.from({ length: 100 }, (_, n) => sampleEvent(n));
    for (const event of sent) publisher.publish(event);
    expect(publisher.stats().inFlight).toBe(4);
    await vi.waitFor(() => expect(publisher.stats()).toMatchObject({ replayed: 96, spoolBytes: 0 }), {
      timeout: 10_000,
    });
    expect(publisher.stats()).toMatchObject({ published: 4, spooled: 96, dropped: 0 });
    const stored = await storedEvents(nats.js, nats.jsm, stream);
    expect(stored.map(({ event }) => event.id).sort()).toEqual(sent.map((event) => event.id).sort());
    await publisher.close(5_000);
  });

  test('whenKept calls back once the published events are on disk: journal with NATS up, spool with it down', async ({
    nats,
  }) => {
    const subject = nats.subject('kept');
    await addStream(nats.jsm, nats.stream('KEPT'), subject);
    /** What the journal and spool files hold: read in the callback, synchronously. */
    const onDisk = (dir: string) =>
      readdirSync(dir)
        .map((name) => readFileSync(join(dir, name)).toString('latin1'))
        .join('');
    for (const nc of [nats.nc, down]) {
      const spoolDir = await dir();
      const publisher = createEventPublisher(publisherOptions({ nc, subject, spoolDir, lingerMs: 60_000 }));
      const events = [sampleEvent(1), sampleEvent(2)];
      for (const event of events) publisher.publish(event);
      let called = false;
      const kept = new Promise<string>((resolve) =>
        publisher.whenKept(() => {
          called = true;
          resolve(onDisk(spoolDir));
        }),
      );
      // Not before the write: the journal's comes at the end of the turn, the spool's later.
      expect(called).toBe(false);
      const files = await kept;
      for (const event of events) expect(files).toContain(event.id);
      await publisher.close(2_000);
    }
    // Nothing to wait for: NATS not configured drops the event, and the callback runs at once.
    const none = createEventPublisher(publisherOptions({ nc: undefined, subject, spoolDir: await dir() }));
    none.publish(sampleEvent(3));
    let at = false;
    none.whenKept(() => {
      at = true;
    });
    expect(at).toBe(true);
    await none.close(1_000);
  });

  test('drops and counts events when NATS is not configured', async () => {
    const spoolDir = await dir();
    const registry = new Registry();
    const publisher = createEventPublisher(
      publisherOptions({ nc: undefined, subject: 'unused', spoolDir, metrics: registry }),
    );
    for (let n = 0; n < 10; n++) publisher.publish(sampleEvent(n));
    await publisher.flush(1_000);
    expect(publisher.stats()).toMatchObject({ published: 0, spooled: 0, dropped: 10, spoolBytes: 0 });
    expect((await spoolFiles(spoolDir)).names).toEqual([]);
    expect(await registry.getSingleMetricAsString(EVENT_METRIC_NAMES.dropped)).toContain(
      `${EVENT_METRIC_NAMES.dropped}{reason="no_nats"} 10`,
    );
    await publisher.close(1_000);
  });

  test('keeps the spool within maxSpoolBytes while NATS is down, dropping the rest without throwing', async () => {
    const spoolDir = await dir();
    const maxSpoolBytes = 20_000;
    const registry = new Registry();
    const { log, lines } = capturingLogger();
    const publisher = createEventPublisher(
      publisherOptions({
        nc: down,
        subject: 'down.requests',
        spoolDir,
        maxSpoolBytes,
        metrics: registry,
        log,
      }),
    );
    const record = encodeRecord(
      `${randomUUID()}+1`,
      frameBatch([RequestEvent.encode(sampleEvent(999)).finish()]),
    ).length;
    for (let round = 0; round < 10; round++) {
      for (let n = 0; n < 50; n++) expect(publisher.publish(sampleEvent(round * 50 + n))).toBeUndefined();
      await publisher.flush(5_000);
      const files = await spoolFiles(spoolDir);
      expect(files.bytes).toBeLessThanOrEqual(maxSpoolBytes + record);
      expect(publisher.stats().spoolBytes).toBe(files.bytes);
    }
    const stats = publisher.stats();
    expect(stats.dropped).toBeGreaterThan(0);
    expect(stats.spooled).toBeGreaterThan(0);
    expect(stats.spooled + stats.dropped).toBe(500);
    expect(stats.published).toBe(0);
    expect(await registry.getSingleMetricAsString(EVENT_METRIC_NAMES.dropped)).toContain(
      `${EVENT_METRIC_NAMES.dropped}{reason="spool_full"} ${stats.dropped}`,
    );
    const dropLines = lines.filter((line) => line.includes('request events dropped'));
    expect(dropLines.length).toBeGreaterThan(0);
    expect(dropLines.length).toBeLessThan(stats.dropped);
    await publisher.close(5_000);
    expect(lines.join('')).not.toContain(BODY_MARKER);
  });

  test('a new publisher replays what an earlier one spooled while NATS was down', async ({ nats }) => {
    const stream = nats.stream('RESTART');
    const subject = nats.subject('restart');
    await addStream(nats.jsm, stream, subject);
    const spoolDir = await dir();
    const before = createEventPublisher(publisherOptions({ nc: down, subject, spoolDir }));
    const sent = Array.from({ length: 200 }, (_, n) => sampleEvent(n));
    for (const event of sent) before.publish(event);
    await before.close(5_000);
    expect(before.stats()).toMatchObject({ spooled: 200, dropped: 0, published: 0 });
    expect((await spoolFiles(spoolDir)).bytes).toBeGreaterThan(0);

    const after = createEventPublisher(publisherOptions({ nc: nats.nc, subject, spoolDir }));
    await vi.waitFor(() => expect(after.stats()).toMatchObject({ replayed: 200, spoolBytes: 0 }), {
      timeout: 10_000,
    });
    const stored = await storedEvents(nats.js, nats.jsm, stream);
    expect(stored.map(({ event }) => event.id).sort()).toEqual(sent.map((event) => event.id).sort());
    expect((await spoolFiles(spoolDir)).names).toEqual([]);
    await after.close(5_000);
  });

  test('a process killed with SIGKILL before its batch went out loses none of its published events', async ({
    nats,
  }) => {
    const stream = nats.stream('KILLED');
    const subject = nats.subject('killed');
    await addStream(nats.jsm, stream, subject);
    const spoolDir = await dir();
    const prefix = randomUUID();
    // node itself with tsx as a loader (its CLI would put a second process in between), so that the
    // SIGKILL reaches the process holding the events.
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '--conditions=@aigw/source',
        fileURLToPath(new URL('./publisher-child.test-support.ts', import.meta.url)),
      ],
      {
        env: {
          ...process.env,
          NATS_URL: nats.url,
          SUBJECT: subject,
          SPOOL_DIR: spoolDir,
          COUNT: '300',
          PREFIX: prefix,
        },
      },
    );
    const [line] = (await once(child.stdout, 'data')) as [Buffer];
    expect(line.toString()).toBe('journaled\n');
    child.kill('SIGKILL');
    const [, signal] = (await once(child, 'exit')) as [number | null, string | null];
    expect(signal).toBe('SIGKILL');
    // Nothing was published: the events wait in the journal, and only there.
    expect(await jsmMessages(nats.jsm, stream)).toBe(0);
    expect((await readdir(spoolDir)).some((name) => name.startsWith('journal-'))).toBe(true);

    const after = createEventPublisher(publisherOptions({ nc: nats.nc, subject, spoolDir }));
    await vi.waitFor(() => expect(after.stats()).toMatchObject({ replayed: 300, spoolBytes: 0 }), {
      timeout: 10_000,
    });
    const ids = (await storedEvents(nats.js, nats.jsm, stream)).map(({ event }) => event.id).sort();
    expect(ids).toEqual(Array.from({ length: 300 }, (_, n) => `${prefix}-${n}`).sort());
    await after.close(5_000);
    expect((await readdir(spoolDir)).filter((name) => name.startsWith('journal-'))).toEqual([]);
  });

  test('replays the intact records of a segment with a torn tail and skips the tail', async ({ nats }) => {
    const stream = nats.stream('TORN');
    const subject = nats.subject('torn');
    await addStream(nats.jsm, stream, subject);
    const spoolDir = await dir();
    const before = createEventPublisher(publisherOptions({ nc: down, subject, spoolDir }));
    const sent = Array.from({ length: 50 }, (_, n) => sampleEvent(n));
    for (const event of sent) before.publish(event);
    await before.close(5_000);
    const { names } = await spoolFiles(spoolDir);
    const torn = encodeRecord(
      `${randomUUID()}+1`,
      frameBatch([RequestEvent.encode(sampleEvent(50)).finish()]),
    );
    await appendFile(join(spoolDir, names.at(-1)!), torn.subarray(0, torn.length - 7));
    await appendFile(join(spoolDir, names.at(-1)!), Buffer.from('garbage after the torn record'));

    const { log, lines } = capturingLogger();
    const after = createEventPublisher(publisherOptions({ nc: nats.nc, subject, spoolDir, log }));
    await vi.waitFor(() => expect(after.stats()).toMatchObject({ replayed: 50, spoolBytes: 0 }), {
      timeout: 10_000,
    });
    expect(after.stats().damagedSegments).toBe(1);
    expect(lines.some((line) => line.includes('skipping damaged tail'))).toBe(true);
    const stored = await storedEvents(nats.js, nats.jsm, stream);
    expect(stored.map(({ event }) => event.id).sort()).toEqual(sent.map((event) => event.id).sort());
    await after.close(5_000);
  });

  test('loses nothing and stores nothing twice when the NATS server stops and comes back', {
    timeout: 90_000,
  }, async () => {
    const dataDir = await dir();
    const spoolDir = await dir();
    const port = await freePort();
    let server = await startLocalNats({ dataDir, port });
    const { log, lines } = capturingLogger();
    const nc = await connectNats({ url: server.url, name: 'events-outage-test', log });
    const publisher = createEventPublisher(
      publisherOptions({ nc, subject: 'outage.requests', spoolDir, log, publishTimeoutMs: 2_000 }),
    );
    try {
      const jsm = await jetstreamManager(nc);
      await addStream(jsm, 'OUTAGE', 'outage.requests');
      const sent: RequestEvent[] = [];
      let threw = 0;
      let returnedValues = 0;
      const publishSome = async (count: number) => {
        for (let i = 0; i < count; i++) {
          const event = sampleEvent(sent.length);
          sent.push(event);
          try {
            if (publisher.publish(event) !== undefined) returnedValues += 1;
          } catch {
            threw += 1;
          }
          if (i % 10 === 9) await tick();
        }
      };

      await publishSome(300);
      const stopping = server.stop();
      await publishSome(150);
      await stopping;
      await publishSome(150);
      const duringOutage = publisher.stats();
      expect(duringOutage.spoolBytes).toBeGreaterThan(0);

      server = await startLocalNats({ dataDir, port });
      await publishSome(150);
      // Once the client is back, the rest go out live while the spool is being replayed.
      await vi.waitFor(() => expect(publisher.stats().replayed).toBeGreaterThan(0), { timeout: 30_000 });
      await publishSome(150);
      await vi.waitFor(
        () => {
          const stats = publisher.stats();
          expect(stats.inFlight).toBe(0);
          expect(stats.spoolBytes).toBe(0);
        },
        { timeout: 60_000, interval: 100 },
      );

      expect(threw).toBe(0);
      expect(returnedValues).toBe(0);
      const stats = publisher.stats();
      expect(stats.dropped).toBe(0);
      expect(stats.spooled).toBeGreaterThan(0);
      expect(stats.replayed).toBe(stats.spooled);
      expect(stats.published + stats.replayed).toBe(900);

      const stored = await storedEvents(jetstream(nc), jsm, 'OUTAGE');
      expect(stored).toHaveLength(900);
      const storedIds = stored.map(({ event }) => event.id);
      expect(new Set(storedIds).size).toBe(900);
      expect(new Set(storedIds)).toEqual(new Set(sent.map((event) => event.id)));
      expect(lines.join('')).not.toContain(BODY_MARKER);
    } finally {
      await publisher.close(5_000);
      await nc.close();
      await server.stop();
    }
  });
});
