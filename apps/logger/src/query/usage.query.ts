// GetUsage: the usage-limit counters the control plane shows as `current_usage`, read from the usage
// ledger. A page's counters are answered by one statement (arrays bound as parameters), and only
// rows of the caller's organisation are read: a query naming another tenant's entity gets zeros.
import {
  EntityKind,
  type GetUsageRequest,
  type GetUsageResponse,
  type UsageAmount,
  type UsageQuery,
} from '@aigw/proto';
import { type Kysely, sql } from 'kysely';
import type { LogsDatabase } from '../db/schema.js';
import { requireCaller } from './caller-scope.js';
import { invalidArgument } from './query-error.js';

export const MAX_USAGE_QUERIES = 1000;

/** The ledger's `entity_kind` of each owner with usage limits (the EntityKind name in lower case). */
const LEDGER_KIND: Partial<Record<EntityKind, string>> = {
  [EntityKind.API_KEY]: 'api_key',
  [EntityKind.WORKSPACE]: 'workspace',
  [EntityKind.PROVIDER]: 'provider',
  [EntityKind.INTEGRATION]: 'integration',
  [EntityKind.VIRTUAL_KEY]: 'virtual_key',
  [EntityKind.USAGE_LIMIT_POLICY]: 'usage_limit_policy',
};

const MICROS = 1_000_000;

interface Params {
  readonly kinds: string[];
  readonly ids: string[];
  readonly groups: string[];
  /** `&`-joined group parts; '' for an exact group match. */
  readonly parts: string[];
  readonly starts: string[];
}

function paramsOf(queries: readonly UsageQuery[]): Params {
  const params: Params = { kinds: [], ids: [], groups: [], parts: [], starts: [] };
  queries.forEach((q, i) => {
    const kind = LEDGER_KIND[q.ownerKind];
    if (!kind)
      throw invalidArgument(`queries[${i}].owner_kind: ${EntityKind[q.ownerKind]} has no usage limits`);
    if (q.ownerId.trim() === '') throw invalidArgument(`queries[${i}].owner_id is required`);
    if (!Number.isSafeInteger(q.periodStartMs) || q.periodStartMs < 0)
      throw invalidArgument(`queries[${i}].period_start_ms must be a time in ms since the epoch`);
    // Parts are URI-encoded `key=value` pairs, so an `&` or an empty part can only be a mistake.
    if (q.groupParts.some((p) => p === '' || p.includes('&')))
      throw invalidArgument(`queries[${i}].group_parts: each part is one non-empty key=value pair`);
    params.kinds.push(kind);
    params.ids.push(q.ownerId);
    params.groups.push(q.groupValue);
    params.parts.push(q.groupParts.join('&'));
    params.starts.push(String(q.periodStartMs));
  });
  return params;
}

export async function getUsage(
  db: Kysely<LogsDatabase>,
  request: GetUsageRequest,
): Promise<GetUsageResponse> {
  const caller = requireCaller(request.caller);
  if (request.queries.length > MAX_USAGE_QUERIES)
    throw invalidArgument(`at most ${MAX_USAGE_QUERIES} queries per call`);
  const usage: UsageAmount[] = request.queries.map(() => amount(0, 0, 0));
  if (request.queries.length === 0) return { usage };
  const p = paramsOf(request.queries);
  // Exact groups hit the ledger's key; part matches scan the owner's groups of that period only.
  const { rows } = await sql<{ idx: number; cost_micros: string; tokens: string; requests: string }>`
    with q as (
      select (ordinality - 1)::int as idx, kind, id, grp, parts,
             timestamptz 'epoch' + start_ms * interval '1 millisecond' as period_start
      from unnest(${p.kinds}::text[], ${p.ids}::text[], ${p.groups}::text[], ${p.parts}::text[],
                  ${p.starts}::bigint[]) with ordinality as u(kind, id, grp, parts, start_ms)
    ),
    hits as (
      select q.idx, l.cost_micros, l.tokens, l.requests
      from q join usage_ledger l
        on l.entity_kind = q.kind and l.entity_id = q.id and l.group_value = q.grp
       and l.period_start = q.period_start
      where q.parts = '' and l.organisation_id = ${caller.organisationId}
      union all
      select q.idx, l.cost_micros, l.tokens, l.requests
      from q join usage_ledger l
        on l.entity_kind = q.kind and l.entity_id = q.id and l.period_start = q.period_start
       and string_to_array(l.group_value, '&') @> string_to_array(q.parts, '&')
      where q.parts <> '' and l.organisation_id = ${caller.organisationId}
    )
    select idx, sum(cost_micros)::text as cost_micros, sum(tokens)::text as tokens,
           sum(requests)::text as requests
    from hits group by idx`.execute(db);
  for (const row of rows) {
    usage[row.idx] = amount(Number(row.cost_micros), Number(row.tokens), Number(row.requests));
  }
  return { usage };
}

function amount(costMicros: number, tokens: number, requests: number): UsageAmount {
  return { costMicros, costUsd: costMicros / MICROS, tokens, requests };
}
