// A nats-server of a test's own that the test can stop and start again on the same port and the
// same JetStream store, so that the apps under test reconnect to the URL they were given: outages.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.js';
import { startLocalNats } from './nats.js';
import type { LocalServiceHandle } from './types.js';

export interface RestartableNats {
  readonly url: string;
  /** Stops the server (an outage); the store stays. */
  stop(): Promise<void>;
  /** Starts it again on the same port and store; nothing when it runs. */
  start(): Promise<void>;
  /** Stops it and removes its store. */
  close(): Promise<void>;
}

export async function startRestartableNats(): Promise<RestartableNats> {
  const dataDir = await mkdtemp(join(tmpdir(), 'aigw-nats-outage-'));
  const port = await freePort();
  let server: LocalServiceHandle | undefined = await startLocalNats({ dataDir, port });
  const { url } = server;
  const stop = async () => {
    const running = server;
    server = undefined;
    await running?.stop();
  };
  return {
    url,
    stop,
    async start() {
      server ??= await startLocalNats({ dataDir, port });
    },
    async close() {
      await stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
