// Keeps MCP metadata fresh: every interval, syncs the active MCP integrations whose last attempt is
// older than the interval (oldest first, a bounded batch per tick, one at a time so a slow server
// delays only the schedule). Errors are recorded per integration by syncMcpIntegration.
import { sql } from 'kysely';
import { mcpDb } from '../db/mcp.db.js';
import { type SyncDeps, syncMcpIntegration } from './mcp-sync.js';

const BATCH = 20;

export interface McpSyncScheduler {
  start(): void;
  stop(): Promise<void>;
  /** One pass now (tests, and the first pass at start). */
  tick(): Promise<void>;
}

export function createMcpSyncScheduler(deps: SyncDeps & { readonly intervalMs: number }): McpSyncScheduler {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;

  async function pass(): Promise<void> {
    const cutoff = new Date(Date.now() - deps.intervalMs);
    const due = await mcpDb(deps.db)
      .selectFrom('mcp_integrations as i')
      .leftJoin('mcp_integration_sync as s', 's.mcp_integration_id', 'i.id')
      .selectAll('i')
      .where('i.status', '=', 'active')
      .where((eb) => eb.or([eb('s.attempted_at', 'is', null), eb('s.attempted_at', '<', cutoff)]))
      .orderBy(sql`s.attempted_at nulls first`)
      .limit(BATCH)
      .execute();
    for (const row of due) {
      if (stopped) return;
      await syncMcpIntegration(deps, row);
    }
  }

  function tick(): Promise<void> {
    running ??= pass()
      .catch((err) => deps.log.error({ err }, 'MCP sync pass failed'))
      .finally(() => {
        running = undefined;
      });
    return running;
  }

  return {
    start() {
      timer = setInterval(() => void tick(), deps.intervalMs);
      timer.unref();
    },
    async stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      await running;
    },
    tick,
  };
}
