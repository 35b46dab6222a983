// Reads usage-limit counters from the logger's usage ledger (LogsService.GetUsage) for one admin
// response: keys deduplicated, one call per 1000 (a page is one call). Never fails the read: without
// a logger, or when it errs or is slow, the answer is null and the response says so in a header.
import { EntityKind, type UsageAmount, type UsageQuery } from '@aigw/proto';
import type { ServiceError } from '@grpc/grpc-js';
import { actorOf } from '../auth/principal.js';
import type { RouteContext } from '../http/route.js';

/** Owners of usage limits, spelled as the ledger and the gateway's budget keys spell them. */
export type UsageOwnerKind =
  | 'api_key'
  | 'workspace'
  | 'provider'
  | 'integration'
  | 'virtual_key'
  | 'usage_limit_policy';

const PROTO_KIND: Record<UsageOwnerKind, EntityKind> = {
  api_key: EntityKind.API_KEY,
  workspace: EntityKind.WORKSPACE,
  provider: EntityKind.PROVIDER,
  integration: EntityKind.INTEGRATION,
  virtual_key: EntityKind.VIRTUAL_KEY,
  usage_limit_policy: EntityKind.USAGE_LIMIT_POLICY,
};

/** One counter: an owner, its group (exact, or every group holding `parts`) and a period start. */
export interface UsageKey {
  readonly kind: UsageOwnerKind;
  readonly id: string;
  /** Exact group value; '' for a limit set on an entity. */
  readonly group?: string;
  /** `key=value` pairs (URI-encoded) every summed group must hold; overrides `group`. */
  readonly parts?: readonly string[];
  readonly periodStartMs: number;
}

export type UsageContext = Pick<
  RouteContext<unknown, unknown, unknown>,
  'logsService' | 'principal' | 'log' | 'req'
>;

/** Set on a response whose `current_usage` values could not be read (they then read 0 or null). */
export const USAGE_UNAVAILABLE_HEADER = 'x-service-usage-unavailable';
const MAX_PER_CALL = 1000;

/** Amounts in the order of `keys`; null when the ledger could not be read. */
export async function readUsage(ctx: UsageContext, keys: readonly UsageKey[]): Promise<UsageAmount[] | null> {
  if (keys.length === 0) return [];
  if (!ctx.logsService) {
    unavailable(ctx, 'logger_not_configured');
    return null;
  }
  const queries: UsageQuery[] = [];
  const slot = new Map<string, number>();
  const slots = keys.map((key) => {
    const query: UsageQuery = {
      ownerKind: PROTO_KIND[key.kind],
      ownerId: key.id,
      groupValue: key.group ?? '',
      groupParts: [...(key.parts ?? [])],
      periodStartMs: key.periodStartMs,
    };
    const id = JSON.stringify([key.kind, key.id, query.groupValue, query.groupParts, key.periodStartMs]);
    let index = slot.get(id);
    if (index === undefined) {
      index = queries.push(query) - 1;
      slot.set(id, index);
    }
    return index;
  });
  // GetUsage applies the organisation only; the route already decided the caller may read these.
  const caller = {
    organisationId: ctx.principal.organisationId,
    actor: actorOf(ctx.principal),
    allWorkspaces: false,
    workspaceIds: [],
    restrictToApiKeys: false,
    restrictToApiKeyIds: [],
  };
  const client = ctx.logsService;
  try {
    const chunks = [];
    for (let i = 0; i < queries.length; i += MAX_PER_CALL) chunks.push(queries.slice(i, i + MAX_PER_CALL));
    const answers = await Promise.all(chunks.map((chunk) => client.getUsage({ caller, queries: chunk })));
    const amounts = answers.flatMap((a) => a.usage);
    if (amounts.length !== queries.length) throw new Error('GetUsage answered a different number of amounts');
    return slots.map((index) => amounts[index] as UsageAmount);
  } catch (err) {
    const e = err as Partial<ServiceError>;
    ctx.log.warn(
      { code: e.code, details: e.details ?? e.message },
      'usage ledger unavailable: current_usage not shown',
    );
    unavailable(ctx, 'logger_unavailable');
    return null;
  }
}

function unavailable(ctx: UsageContext, reason: string): void {
  const res = ctx.req.res;
  if (res && !res.headersSent) res.setHeader(USAGE_UNAVAILABLE_HEADER, reason);
}
