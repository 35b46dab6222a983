// The background refresher of secret references: every sweep, the integrations and virtual keys whose
// mappings are due (never checked, or checked longer ago than the shortest refresh interval of their
// references) are resolved again, so a secret rotated at the manager reaches gateways without anyone
// editing the record, and one that stops resolving is withheld once its refresh window has passed.
import { type Logger, periodic } from '@aigw/runtime';
import type { Kysely } from 'kysely';
import type { ControlDatabase } from '../db/schema.js';
import { dueOwners, type RefreshOutcome, refreshOwner } from '../integrations/secret-mappings.js';
import type { SecretDeps } from '../secrets/secret-managers.js';
import { SECRET_OWNERS } from './secret-owners.js';

export interface SecretRefreshWorkerDeps extends SecretDeps {
  readonly db: Kysely<ControlDatabase>;
  readonly log: Logger;
  readonly intervalMs: number;
  readonly auditEnabled: boolean;
}

export interface SecretRefreshWorker {
  start(): void;
  /** Stops the timer and waits for a sweep in progress. */
  stop(): Promise<void>;
  /** Refreshes every due integration and virtual key as of `now`; returns what happened to each. */
  sweep(now?: Date): Promise<RefreshOutcome[]>;
}

/** Records per owner and sweep: a backlog is worked through over several sweeps. */
const BATCH = 100;

export function createSecretRefreshWorker(deps: SecretRefreshWorkerDeps): SecretRefreshWorker {
  async function sweep(now = new Date()): Promise<RefreshOutcome[]> {
    const outcomes: RefreshOutcome[] = [];
    for (const owner of SECRET_OWNERS) {
      for (const id of await dueOwners(deps.db, owner, now, BATCH)) {
        const outcome = await refreshOwner(deps.db, deps, owner, id, now);
        if (outcome) outcomes.push(outcome);
      }
    }
    return outcomes;
  }

  const job = periodic(deps.intervalMs, () =>
    sweep()
      .then((outcomes) => {
        const failed = outcomes.filter((o) => o.error !== null);
        if (failed.length > 0) {
          deps.log.warn(
            { records: failed.map((o) => ({ type: o.resource_type, id: o.id, error: o.error })) },
            'secret references could not be resolved',
          );
        }
      })
      .catch((err: unknown) => deps.log.error({ err }, 'secret reference refresh failed')),
  );

  return {
    start: () => job.start(),
    stop: () => job.stop(),
    sweep,
  };
}
