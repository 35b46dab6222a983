// A gateway in-process with a mock provider behind it and request events going to a JetStream
// stream under the test file's NATS prefix.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMockProvider, type MockProvider } from '@aigw/mock-provider';
import { type RequestEvent, RequestEventBatch } from '@aigw/proto';
import type { NatsFixture } from '@aigw/testkit';
import { AckPolicy } from '@nats-io/jetstream';
import { createApp, type GatewayApp } from '../src/app.js';
import { loadGatewayConfig } from '../src/config.js';

export interface Harness {
  readonly mock: MockProvider;
  readonly gateway: GatewayApp;
  /** `http://127.0.0.1:<port>` (append `/v1/...`). */
  readonly base: string;
  /** Headers that send a request to the mock as an OpenAI-compatible provider. */
  readonly openaiHeaders: Record<string, string>;
  /** Every request event published so far (waits until at least `count` arrived). */
  events(count: number): Promise<RequestEvent[]>;
  close(): Promise<void>;
}

let streams = 0;

export async function startHarness(nats: NatsFixture, env: Record<string, string> = {}): Promise<Harness> {
  const mock = await createMockProvider();
  const stream = nats.stream(`REQ${++streams}`);
  const subject = nats.subject('requests', String(streams));
  await nats.jsm.streams.add({ name: stream, subjects: [subject], duplicate_window: 120_000_000_000 });
  const gateway = createApp(
    loadGatewayConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      NATS_URL: nats.url,
      REQUEST_EVENTS_SUBJECT: subject,
      EVENT_SPOOL_DIR: mkdtempSync(join(tmpdir(), 'gw-spool-')),
      CUSTOM_HOST_ALLOWLIST: '127.0.0.1',
      ...env,
    }),
  );
  await gateway.start();
  const consumer = `c${streams}`;
  await nats.jsm.consumers.add(stream, { durable_name: consumer, ack_policy: AckPolicy.None });
  const seen: RequestEvent[] = [];
  return {
    mock,
    gateway,
    base: `http://127.0.0.1:${gateway.port}`,
    openaiHeaders: { 'x-service-provider': 'openai', 'x-service-custom-host': `${mock.url}/v1` },
    async events(count) {
      const c = await nats.js.consumers.get(stream, consumer);
      for (let i = 0; i < 100 && seen.length < count; i++) {
        const batch = await c.fetch({ max_messages: 100, expires: 1_000 });
        for await (const msg of batch) seen.push(...RequestEventBatch.decode(msg.data).events);
      }
      return seen;
    },
    async close() {
      await gateway.stop();
      await mock.close();
    },
  };
}

/** The request event with this trace id, waiting for more events until it arrives (bounded). */
export async function eventFor(h: Harness, traceId: string): Promise<RequestEvent> {
  for (let i = 0; i < 50; i++) {
    const all = await h.events(0);
    const found = all.find((e) => e.traceId === traceId);
    if (found) return found;
    await h.events(all.length + 1);
  }
  throw new Error(`no event for ${traceId}`);
}
