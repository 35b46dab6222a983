// The relay's own Postgres session: it holds the session-level advisory lock that makes one relay
// active across replicas, and LISTENs for the writers' NOTIFY while it holds it.
import type { Logger } from '@aigw/runtime';
import pg from 'pg';

/** `pg_try_advisory_lock` key, the bytes of 'aigwoutb': the same in every replica. */
export const RELAY_LOCK_KEY = '7019255256902366306';

export interface RelayLockOptions {
  readonly databaseUrl: string;
  /** NOTIFY channel to LISTEN on while the lock is held. */
  readonly channel: string;
  readonly log: Logger;
  readonly onNotify: () => void;
  /** Called once when a held lock is lost with its connection. */
  readonly onLost: () => void;
}

export interface RelayLock {
  readonly held: boolean;
  /** Connects when needed and tries to take the lock; never throws (failures are logged). */
  tryAcquire(): Promise<boolean>;
  /** Ends the session, which releases the lock. */
  close(): Promise<void>;
}

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

export function createRelayLock(options: RelayLockOptions): RelayLock {
  if (!IDENTIFIER.test(options.channel)) throw new Error(`invalid NOTIFY channel: ${options.channel}`);
  const { log } = options;
  let client: pg.Client | undefined;
  let held = false;
  let failing = false;

  // The session is gone: so is the lock (Postgres released it), and someone else may take it now.
  const drop = (lost: pg.Client, err?: unknown) => {
    if (client !== lost) return;
    client = undefined;
    lost.end().catch(() => undefined);
    if (!held) return;
    held = false;
    log.warn(
      { err: err === undefined ? 'connection ended' : errorMessage(err) },
      'outbox relay lost its lock',
    );
    options.onLost();
  };

  const connect = async () => {
    const next = new pg.Client({
      connectionString: options.databaseUrl,
      application_name: 'control-plane outbox relay',
      // A silently dead peer must end the session here too, not only on the server.
      keepAlive: true,
      connectionTimeoutMillis: 5_000,
    });
    next.on('error', (err) => drop(next, err));
    next.on('end', () => drop(next));
    next.on('notification', (message) => {
      if (message.channel === options.channel) options.onNotify();
    });
    try {
      await next.connect();
    } catch (err) {
      await next.end().catch(() => undefined);
      throw err;
    }
    return next;
  };

  return {
    get held() {
      return held;
    },
    async tryAcquire() {
      if (held) return true;
      try {
        client ??= await connect();
        const session = client;
        const result = await session.query<{ locked: boolean }>(
          'select pg_try_advisory_lock($1::bigint) as locked',
          [RELAY_LOCK_KEY],
        );
        if (failing) log.info('outbox relay reaches Postgres again');
        failing = false;
        if (!result.rows[0]?.locked) return false;
        await session.query(`listen ${options.channel}`);
        if (client !== session) return false;
        held = true;
        log.info('outbox relay acquired its lock: this replica publishes the outbox');
        return true;
      } catch (err) {
        if (!failing) log.warn({ err: errorMessage(err) }, 'outbox relay cannot take its lock');
        failing = true;
        const broken = client;
        client = undefined;
        held = false;
        await broken?.end().catch(() => undefined);
        return false;
      }
    },
    async close() {
      const open = client;
      client = undefined;
      held = false;
      await open?.end().catch(() => undefined);
    },
  };
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
