// The Redis keys of the gateways' limit counters: a contract between apps, because the gateway
// writes them and the logger's usage reconciliation writes the ledger's totals back into the budget
// ones. `lim:{<organisation>}` first: the hash tag keeps an organisation's counters on one Redis
// Cluster slot, so one script call can read and write them all.

export type CounterMeasure = 'cost' | 'tokens';

/** `lim:{<organisation>}`: every counter key of an organisation starts with it. */
export function counterTag(organisationId: string): string {
  return `lim:{${organisationId}}`;
}

/**
 * Budget keys of a scope, up to the period: `lim:{<org>}:u:<scope>:<measure>:`, where the scope of
 * an entity's own limits is `<kind>:<id>` (api_key, workspace, provider, integration, virtual_key)
 * and `iw:<integration>:<workspace>` for an integration's limits in one workspace.
 */
export function budgetKeyPrefix(organisationId: string, scope: string, measure: CounterMeasure): string {
  return `${counterTag(organisationId)}:u:${scope}:${measure}:`;
}

/** The budget counter of an entity's own usage limit in the period starting at `periodStartMs`. */
export function entityBudgetKey(
  organisationId: string,
  entityKind: string,
  entityId: string,
  measure: CounterMeasure,
  periodStartMs: number,
): string {
  return `${budgetKeyPrefix(organisationId, `${entityKind}:${entityId}`, measure)}${periodStartMs}`;
}
