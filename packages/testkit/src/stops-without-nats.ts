// An app of this project started while NATS never answers (it connects in the background:
// packages/runtime nats-background.ts) serves, and stops promptly: its stop does not wait for a
// connection that never came. One check for the control plane and the logger.
import { expect } from 'vitest';
import { startRestartableNats } from './services/index.js';

/** What the check needs of an app: start, stop and its HTTP port once started. */
export interface StartableApp {
  start(): Promise<unknown>;
  stop(): Promise<unknown>;
  readonly ports: { readonly http: number };
}

/** Starts `create(<an unreachable NATS URL>)`, checks /healthz answers, stops it, checks it is gone. */
export async function expectStopsWithoutNats(create: (natsUrl: string) => StartableApp): Promise<void> {
  const natsServer = await startRestartableNats();
  await natsServer.stop();
  const app = create(natsServer.url);
  let base: string | undefined;
  try {
    await app.start();
    base = `http://127.0.0.1:${app.ports.http}`;
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
  } finally {
    await app.stop();
    await natsServer.close();
  }
  await expect(fetch(`${base}/healthz`)).rejects.toThrow();
}
