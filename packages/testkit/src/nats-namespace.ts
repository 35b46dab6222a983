// A stream and subject prefix per test file on a shared NATS server, with its streams deleted afterwards.
import { type JetStreamClient, type JetStreamManager, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { randomId } from './random-id.js';

export interface TestNats {
  readonly url: string;
  /** `T_<random>`: valid both as a stream-name prefix and as a subject token. */
  readonly prefix: string;
  readonly nc: NatsConnection;
  readonly js: JetStreamClient;
  readonly jsm: JetStreamManager;
  /** `stream('EVENTS')` -> `T_<random>_EVENTS`. */
  stream(name: string): string;
  /** `subject('events', '>')` -> `T_<random>.events.>`. */
  subject(...tokens: string[]): string;
  /** Deletes the prefix's streams (KV and object-store buckets named with it too) and drains `nc`. */
  cleanup(): Promise<void>;
}

export async function createTestNats(url: string): Promise<TestNats> {
  const prefix = `T_${randomId()}`;
  const nc = await connect({ servers: url, name: `testkit ${prefix}` });
  const jsm = await jetstreamManager(nc);
  const js = jetstream(nc);
  let cleaned: Promise<void> | undefined;
  return {
    url,
    prefix,
    nc,
    js,
    jsm,
    stream: (name) => `${prefix}_${name}`,
    subject: (...tokens) => [prefix, ...tokens].join('.'),
    cleanup: () => {
      cleaned ??= (async () => {
        await deleteStreamsWithPrefix(jsm, prefix);
        await nc.drain();
      })();
      return cleaned;
    },
  };
}

/** Deletes streams named `<prefix>...`, `KV_<prefix>...` and `OBJ_<prefix>...`; returns their names. */
export async function deleteStreamsWithPrefix(jsm: JetStreamManager, prefix: string): Promise<string[]> {
  const owned = [prefix, `KV_${prefix}`, `OBJ_${prefix}`];
  const doomed: string[] = [];
  for await (const name of jsm.streams.names()) {
    if (owned.some((start) => name.startsWith(start))) doomed.push(name);
  }
  await Promise.all(doomed.map((name) => jsm.streams.delete(name)));
  return doomed;
}
