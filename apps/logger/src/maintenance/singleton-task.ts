// A periodic task that runs on one replica at a time: each run holds a Postgres advisory lock on
// its own connection, and a replica that cannot take it skips that run.
import type { Logger } from '@aigw/runtime';
import { type Kysely, sql } from 'kysely';

export interface SingletonTask {
  /** Runs once now (awaited), then every intervalMs until stop. Returns whether this run had the lock. */
  runNow(): Promise<boolean>;
  stop(): Promise<void>;
}

export function startSingletonTask<DB>(options: {
  readonly db: Kysely<DB>;
  readonly name: string;
  readonly intervalMs: number;
  readonly log: Logger;
  readonly run: (db: Kysely<DB>) => Promise<void>;
}): SingletonTask {
  const { db, name, log } = options;
  let running: Promise<boolean> | undefined;
  let stopped = false;

  const runOnce = (): Promise<boolean> => {
    running ??= db
      .connection()
      .execute(async (conn) => {
        const { rows } = await sql<{ locked: boolean }>`
          select pg_try_advisory_lock(hashtextextended(${`logger:${name}`}, 0)) as locked`.execute(conn);
        if (!rows[0]?.locked) return false;
        try {
          await options.run(conn);
          return true;
        } finally {
          await sql`select pg_advisory_unlock(hashtextextended(${`logger:${name}`}, 0))`.execute(conn);
        }
      })
      .finally(() => {
        running = undefined;
      });
    return running;
  };

  const timer =
    options.intervalMs > 0
      ? setInterval(() => {
          if (stopped) return;
          runOnce().catch((err: unknown) => log.error({ err, task: name }, 'periodic task failed'));
        }, options.intervalMs)
      : undefined;
  timer?.unref();

  return {
    runNow: runOnce,
    async stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      await running?.catch(() => undefined);
    },
  };
}
