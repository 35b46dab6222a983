// NATS connected in the background, for an app that starts and serves without it: the first
// connection is retried until NATS answers (or the app stops), then the app's set-up (streams,
// consumers, relays) runs until it succeeds; readiness reports both.
import { setTimeout as delay } from 'node:timers/promises';
import type { NatsConnection } from '@nats-io/nats-core';
import type { ReadinessCheck } from './health.js';
import { closeNats, connectNats, type NatsOptions, natsReadiness } from './nats.js';

export interface NatsSetUpContext {
  readonly nc: NatsConnection;
  /** Registers how to stop something the set-up started: run in reverse order before NATS closes. */
  onStop(name: string, stop: () => Promise<void> | void): void;
}

export interface BackgroundNatsOptions extends NatsOptions {
  /**
   * Everything that needs NATS; runs once connected, and again after a failure until it succeeds.
   * It must be safe to run again: what a failed run started stays started (and registered).
   */
  readonly setUp: (context: NatsSetUpContext) => Promise<void>;
  /** Wait between connection attempts, and the first wait after a failed set-up (default 500 ms). */
  readonly retryMs?: number;
  /** Cap of the doubling wait between failed set-ups (default 10 s). */
  readonly maxSetUpRetryMs?: number;
}

export interface BackgroundNats {
  /**
   * Settles after the first connection attempt and, when it connected, the first set-up attempt,
   * whatever their outcome: a start that awaits it is what it always was while NATS answers
   * (streams in place when it resolves) and does not wait for NATS while it does not.
   */
  readonly firstAttempt: Promise<void>;
  /** True once connected and set up; false when stopped before. Never rejects. */
  readonly ready: Promise<boolean>;
  /** The connection, once NATS first answered. */
  readonly connection: NatsConnection | undefined;
  /** For the degradable `nats` dependency: fails until connected and set up, then as natsReadiness. */
  readonly readiness: ReadinessCheck;
  /** Stops retrying, stops what the set-up started (reverse order), then closes NATS. Idempotent. */
  stop(): Promise<void>;
}

/**
 * Not nats.js's `waitOnFirstConnect`: its retry loop cannot be cancelled before it connects, so an
 * app stopped while NATS never answered would keep dialling (and holding the event loop) forever.
 */
export function connectNatsInBackground(options: BackgroundNatsOptions): BackgroundNats {
  const log = options.log.child({ component: 'nats' });
  const retryMs = options.retryMs ?? 500;
  const maxSetUpRetryMs = options.maxSetUpRetryMs ?? 10_000;
  const aborting = new AbortController();
  const stops: Array<{ name: string; stop: () => Promise<void> | void }> = [];
  let nc: NatsConnection | undefined;
  /** Why NATS is not usable yet; undefined once set up. */
  let pending: string | undefined = 'not connected yet';
  let setUpInFlight: Promise<void> | undefined;
  let stopping: Promise<void> | undefined;
  let settleFirst = () => {};
  const firstAttempt = new Promise<void>((resolve) => {
    settleFirst = resolve;
  });
  const sleep = (ms: number) => delay(ms, undefined, { signal: aborting.signal }).catch(() => undefined);

  // Sets `nc` in the same step that checks for a stop, so that either stop() closes the connection
  // or the attempt that opened it does.
  const connectUntilAnswered = async (): Promise<NatsConnection | undefined> => {
    for (let attempt = 1; !aborting.signal.aborted; attempt++) {
      try {
        const connection = await connectNats(options);
        if (!aborting.signal.aborted) {
          nc = connection;
          return connection;
        }
        await connection.close().catch(() => undefined);
      } catch (err) {
        pending = `not connected yet (${errorMessage(err)})`;
        if (attempt === 1) {
          log.warn(
            { err: errorMessage(err) },
            'NATS does not answer: running without it, connecting in the background',
          );
          settleFirst();
        } else log.debug({ err: errorMessage(err), attempt }, 'NATS still does not answer');
        await sleep(retryMs);
      }
    }
    return undefined;
  };

  const setUpUntilDone = async (connection: NatsConnection): Promise<boolean> => {
    const context: NatsSetUpContext = {
      nc: connection,
      onStop: (name, stop) => stops.push({ name, stop }),
    };
    for (let failures = 0; !aborting.signal.aborted; ) {
      try {
        setUpInFlight = options.setUp(context);
        await setUpInFlight;
        return true;
      } catch (err) {
        failures += 1;
        pending = `connected, set-up failed: ${errorMessage(err)}`;
        log.warn({ err: errorMessage(err), failures }, 'NATS set-up failed: retrying');
        settleFirst();
        await sleep(Math.min(maxSetUpRetryMs, retryMs * 2 ** Math.min(failures - 1, 20)));
      } finally {
        setUpInFlight = undefined;
      }
    }
    return false;
  };

  const ready = (async () => {
    const connection = await connectUntilAnswered();
    if (!connection) return false;
    pending = 'connected, setting up';
    if (!(await setUpUntilDone(connection))) return false;
    pending = undefined;
    log.info('NATS set up');
    return true;
  })()
    .catch((err: unknown) => {
      log.error({ err: errorMessage(err) }, 'NATS background connection stopped unexpectedly');
      return false;
    })
    .finally(settleFirst);

  return {
    firstAttempt,
    ready,
    get connection() {
      return nc;
    },
    async readiness() {
      if (!nc) throw new Error(pending ?? 'not connected yet');
      // A known disconnection says more than a set-up that waits for it.
      await natsReadiness(nc)();
      if (pending !== undefined) throw new Error(pending);
    },
    stop() {
      stopping ??= (async () => {
        aborting.abort();
        // What a set-up in flight starts must be stopped too; a connection attempt in flight
        // closes what it opens by itself (it sees the abort).
        await setUpInFlight?.catch(() => undefined);
        for (const { name, stop } of stops.reverse()) {
          try {
            await stop();
          } catch (err) {
            log.error({ err, step: name }, 'error while stopping');
          }
        }
        if (nc) await closeNats(nc).catch((err: unknown) => log.error({ err }, 'error while closing NATS'));
      })();
      return stopping;
    },
  };
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
