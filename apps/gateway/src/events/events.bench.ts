// What publish() costs the response path with NATS connected: it should be the protobuf encode plus
// starting an async publish, nothing that waits. Encode alone is the floor to compare against.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RequestEvent } from '@aigw/proto';
import { createLogger } from '@aigw/runtime';
import { createTestNats, testkitContext } from '@aigw/testkit';
import { nanos } from '@nats-io/nats-core';
import { afterAll, bench, describe } from 'vitest';
import { createEventPublisher } from './event-publisher.js';

const nats = await createTestNats(testkitContext().natsUrl);
const subject = nats.subject('bench');
await nats.jsm.streams.add({
  name: nats.stream('BENCH'),
  subjects: [subject],
  duplicate_window: nanos(120_000),
  max_msgs: 100_000,
});
const spoolDir = await mkdtemp(join(tmpdir(), 'aigw-events-bench-'));
const publisher = createEventPublisher({
  nc: nats.nc,
  subject,
  spoolDir,
  maxSpoolBytes: 64 * 1024 * 1024,
  maxInFlight: 1_000_000,
  log: createLogger({ app: 'bench', level: 'silent' }),
});

afterAll(async () => {
  await publisher.close(10_000);
  await nats.cleanup();
  await rm(spoolDir, { recursive: true, force: true });
});

const template = RequestEvent.fromPartial({
  schemaVersion: 1,
  traceId: 'trace',
  organisationId: randomUUID(),
  workspaceId: randomUUID(),
  apiKeyId: randomUUID(),
  provider: { type: 'openai', slug: 'openai-prod' },
  modelRequested: 'gpt-4o-mini',
  modelServed: 'gpt-4o-mini-2024-07-18',
  method: 'POST',
  path: '/chat/completions',
  statusCode: 200,
  attempts: [{ provider: { type: 'openai' }, model: 'gpt-4o-mini', statusCode: 200, latencyUs: 350_000 }],
  tokens: { inputTokens: 120, outputTokens: 48, totalTokens: 168 },
  metadata: { team: 'search', env: 'prod' },
  latency: { totalUs: 360_000, upstreamUs: 350_000, gatewayOverheadUs: 10_000 },
});
const event = (): RequestEvent => ({ ...template, id: randomUUID(), receivedAtMs: Date.now() });

// The timed loop never yields to the event loop, so acks only arrive after it: maxInFlight is set
// above the sample count so that every timed call takes the connected branch (not the spool).
const SAMPLES = 20_000;

describe('request event publish() with NATS connected', () => {
  bench('RequestEvent.encode() alone', () => {
    RequestEvent.encode(event()).finish();
  });
  bench('publisher.publish()', () => publisher.publish(event()), {
    time: 0,
    iterations: SAMPLES,
    teardown: () => publisher.flush(30_000),
  });
});

// What an event costs end to end, response path and off it: a turn's worth of events built,
// encoded, written to the journal (one write a turn, docs/request-events.md), batched, published
// and acked. Compare with the journal's cost stated there (about 1-3 µs of CPU an event).
const TURN = 16;
describe('request events end to end (journal, batch, publish, ack)', () => {
  bench(
    `${TURN} events published in one turn, then flushed to their acks`,
    async () => {
      for (let i = 0; i < TURN; i++) publisher.publish(event);
      await publisher.flush(30_000);
    },
    { time: 2_000 },
  );
});
