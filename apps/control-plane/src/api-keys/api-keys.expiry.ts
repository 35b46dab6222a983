// The background worker of spec part 3: active keys past `expires_at` become `expired`, with a
// change event for gateways and a system audit record, in the same transaction.
import { randomUUID } from 'node:crypto';
import { type AuditEvent, AuditOutcome, SCHEMA_VERSION } from '@aigw/proto';
import { type Logger, periodic } from '@aigw/runtime';
import { type Kysely, sql } from 'kysely';
import { SYSTEM_ACTOR } from '../auth/principal.js';
import type { ControlDatabase } from '../db/schema.js';
import { recordAudit, recordChange } from '../outbox/outbox.js';
import { type ApiKeyRow, apiKeyEntity } from './api-keys.entity.js';

export interface ApiKeyExpiryWorkerDeps {
  readonly db: Kysely<ControlDatabase>;
  readonly log: Logger;
  readonly intervalMs: number;
  /** AUDIT_LOGS_ENABLED; on by default. */
  readonly auditEnabled?: boolean;
}

export interface ApiKeyExpiryWorker {
  start(): void;
  /** Stops the timer and waits for a sweep in progress. */
  stop(): Promise<void>;
  /** Expires every due key now; returns how many this call expired. */
  sweep(): Promise<number>;
}

/** Keys expired per transaction, so one sweep never holds a huge set of row locks. */
const BATCH = 500;

function expiryAudit(row: ApiKeyRow): AuditEvent {
  return {
    schemaVersion: SCHEMA_VERSION,
    id: randomUUID(),
    occurredAtMs: Date.now(),
    organisationId: row.organisation_id,
    workspaceId: row.workspace_id ?? '',
    actor: SYSTEM_ACTOR,
    action: 'api_keys.expire',
    resourceType: 'api_key',
    resourceId: row.id,
    ip: '',
    userAgent: '',
    requestMethod: '',
    requestPath: '',
    requestDetailsJson: JSON.stringify({ expires_at: row.expires_at?.toISOString() ?? null }),
    outcome: AuditOutcome.SUCCESS,
    statusCode: 200,
    traceId: '',
  };
}

/** One batch in one transaction; rows another replica is expiring right now are skipped. */
async function expireBatch(db: Kysely<ControlDatabase>, auditEnabled: boolean): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const rows = await trx
      .updateTable('api_keys')
      // The same clock as the due check, so updated_at is never before expires_at.
      .set({ status: 'expired', version: sql<number>`version + 1`, updated_at: sql<Date>`now()` })
      .where('status', '=', 'active')
      .where('id', 'in', (eb) =>
        eb
          .selectFrom('api_keys')
          .select('id')
          .where('status', '=', 'active')
          .where('expires_at', '<=', sql<Date>`now()`)
          .orderBy('expires_at')
          .limit(BATCH)
          .forUpdate()
          .skipLocked(),
      )
      .returningAll()
      .execute();
    for (const row of rows) {
      await recordChange(trx, { entity: apiKeyEntity(row), actor: SYSTEM_ACTOR });
      if (auditEnabled) await recordAudit(trx, expiryAudit(row));
    }
    return rows.length;
  });
}

export function createApiKeyExpiryWorker(deps: ApiKeyExpiryWorkerDeps): ApiKeyExpiryWorker {
  const auditEnabled = deps.auditEnabled ?? true;

  async function sweep(): Promise<number> {
    let total = 0;
    for (;;) {
      const expired = await expireBatch(deps.db, auditEnabled);
      total += expired;
      if (expired < BATCH) return total;
    }
  }

  const job = periodic(deps.intervalMs, () =>
    sweep()
      .then((expired) => {
        if (expired > 0) deps.log.info({ expired }, 'expired API keys');
      })
      .catch((err: unknown) => deps.log.error({ err }, 'API key expiry sweep failed')),
  );

  return {
    start: () => job.start(),
    stop: () => job.stop(),
    sweep,
  };
}
