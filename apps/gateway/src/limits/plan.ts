// Which limits apply to one request, pure: matching policies (one counter per group value) and the
// limits set on the request's key, workspace, provider, integration (and its per-workspace
// settings) and virtual key, each with its Redis key. Keys share the hash tag `{<organisation>}`,
// so one Lua call can read and charge all of them on a Redis Cluster too.
import { createHash } from 'node:crypto';
import {
  type Entity,
  EntityKind,
  EntityStatus,
  type RateLimit,
  RateLimitType,
  RateLimitUnit,
  type UsageLimit,
  UsageLimitType,
} from '@aigw/proto';
import type { Snapshot } from '../snapshot/index.js';
import { groupValue, matchesAll } from './conditions.js';
import { type Period, periodAt } from './periods.js';
import type { LimitSubject } from './subject.js';

/** Names what limited a request in error codes (`<kind>_rate_limited`). */
export type OwnerKind = 'policy' | 'api_key' | 'workspace' | 'provider' | 'integration' | 'virtual_key';

/** Who carries a limit: a policy and its group, or an entity (its own limits). */
export interface LimitOwner {
  readonly kind: OwnerKind;
  readonly entityKind: EntityKind;
  readonly id: string;
  /** Alert group value: the policy's group, or `type=<t>` (with `workspace_id=` for integrations). */
  readonly group: string;
  /** Workspace of the limited entity ('' for organisation-level ones). */
  readonly workspaceId: string;
}

export interface RateItem {
  readonly key: string;
  readonly type: 'requests' | 'tokens';
  readonly limit: number;
  readonly windowMs: number;
  readonly owner: LimitOwner;
}

export interface BudgetItem {
  readonly key: string;
  readonly type: 'cost' | 'tokens';
  readonly limit: number;
  readonly threshold: number | undefined;
  readonly period: Period;
  /** Amount reserved at admission (micro-USD or tokens). */
  readonly estimate: number;
  readonly owner: LimitOwner;
}

export interface Plan {
  readonly rates: readonly RateItem[];
  readonly budgets: readonly BudgetItem[];
}

export interface PlanOptions {
  readonly policies: boolean;
  readonly usageLimits: boolean;
  readonly nowMs: number;
  /** The reservation of one request for a budget of this type (called only when one applies). */
  readonly estimate: (type: 'cost' | 'tokens') => number;
}

const WINDOW_MS: Partial<Record<RateLimitUnit, number>> = {
  [RateLimitUnit.RPM]: 60_000,
  [RateLimitUnit.RPH]: 3_600_000,
  [RateLimitUnit.RPD]: 86_400_000,
};
const UNIT = { [RateLimitUnit.RPM]: 'rpm', [RateLimitUnit.RPH]: 'rph', [RateLimitUnit.RPD]: 'rpd' } as Record<
  number,
  string
>;

const digest = (text: string): string => createHash('sha256').update(text).digest('base64url').slice(0, 22);

export function buildPlan(snapshot: Snapshot, subject: LimitSubject, options: PlanOptions): Plan {
  const rates = new Map<string, RateItem>();
  const budgets = new Map<string, BudgetItem>();
  const tag = `lim:{${subject.organisationId}}`;
  const addRate = (item: RateItem) => {
    const held = rates.get(item.key);
    // Two equal limits on one entity share a counter: keep the stricter, charge once.
    if (!held || item.limit < held.limit) rates.set(item.key, item);
  };
  const addBudget = (item: BudgetItem) => {
    const held = budgets.get(item.key);
    if (!held || item.limit < held.limit) budgets.set(item.key, item);
  };
  const estimateOf = options.estimate;

  if (options.policies) {
    for (const policy of applicable(snapshot, subject, EntityKind.RATE_LIMIT_POLICY)) {
      if (policy.body?.$case !== 'rateLimitPolicy') continue;
      const p = policy.body.value;
      const type = rateType(p.type);
      const windowMs = WINDOW_MS[p.unit];
      if (!type || !windowMs || !matchesAll(p.conditions, subject)) continue;
      const group = groupValue(p.groupBy, subject);
      const owner = policyOwner(policy, group);
      addRate({ key: `${tag}:r:p:${policy.id}:${digest(group)}`, type, limit: p.value, windowMs, owner });
    }
    if (options.usageLimits) {
      for (const policy of applicable(snapshot, subject, EntityKind.USAGE_LIMIT_POLICY)) {
        if (policy.body?.$case !== 'usageLimitPolicy') continue;
        const p = policy.body.value;
        const type = usageType(p.type);
        if (!type || !matchesAll(p.conditions, subject)) continue;
        const group = groupValue(p.groupBy, subject);
        const period = periodAt(p, options.nowMs);
        addBudget({
          key: `${tag}:u:p:${policy.id}:${digest(group)}:${period.startMs}`,
          type,
          limit: p.creditLimit,
          threshold: p.alertThreshold,
          period,
          estimate: estimateOf(type),
          owner: policyOwner(policy, group),
        });
      }
    }
  }

  const entityLimits = (
    owner: Omit<LimitOwner, 'group'>,
    scope: string,
    groupPrefix: string,
    rateLimits: readonly RateLimit[],
    usageLimits: readonly UsageLimit[],
  ) => {
    for (const limit of rateLimits) {
      const type = rateType(limit.type);
      const windowMs = WINDOW_MS[limit.unit];
      if (!type || !windowMs) continue;
      addRate({
        key: `${tag}:r:${scope}:${type}:${UNIT[limit.unit]}`,
        type,
        limit: limit.value,
        windowMs,
        owner: { ...owner, group: `${groupPrefix}type=${type}` },
      });
    }
    if (!options.usageLimits) return;
    for (const limit of usageLimits) {
      const type = usageType(limit.type);
      if (!type) continue;
      const period = periodAt(limit, options.nowMs);
      addBudget({
        key: `${tag}:u:${scope}:${type}:${period.startMs}`,
        type,
        limit: limit.creditLimit,
        threshold: limit.alertThreshold,
        period,
        estimate: estimateOf(type),
        owner: { ...owner, group: `${groupPrefix}type=${type}` },
      });
    }
  };

  for (const [kind, entity] of [
    ['api_key', subject.apiKey],
    ['workspace', subject.workspace],
    ['provider', subject.providerEntity],
    ['integration', subject.integration],
    ['virtual_key', subject.virtualKey],
  ] as const) {
    const limits = entity && ownLimits(entity);
    if (!entity || !limits) continue;
    const owner = { kind, entityKind: entity.kind, id: entity.id, workspaceId: entity.workspaceId };
    entityLimits(owner, `${kind}:${entity.id}`, '', limits.rateLimits, limits.usageLimits);
  }
  const iw = subject.integrationWorkspace;
  if (iw) {
    const owner = {
      kind: 'integration' as const,
      entityKind: EntityKind.INTEGRATION,
      id: iw.integrationId,
      workspaceId: iw.workspaceId,
    };
    const prefix = `workspace_id=${encodeURIComponent(iw.workspaceId)}&`;
    entityLimits(owner, `iw:${iw.integrationId}:${iw.workspaceId}`, prefix, iw.rateLimits, iw.usageLimits);
  }
  return { rates: [...rates.values()], budgets: [...budgets.values()] };
}

/** Active policies of the organisation, organisation-level or of the request's workspace. */
function* applicable(snapshot: Snapshot, subject: LimitSubject, kind: EntityKind): Iterable<Entity> {
  for (const policy of snapshot.ofOrganisation(kind, subject.organisationId)) {
    if (policy.workspaceId !== '' && policy.workspaceId !== subject.workspaceId) continue;
    const status = (policy.body?.value as { status?: EntityStatus } | undefined)?.status;
    if (status === EntityStatus.ACTIVE) yield policy;
  }
}

function policyOwner(policy: Entity, group: string): LimitOwner {
  return { kind: 'policy', entityKind: policy.kind, id: policy.id, group, workspaceId: policy.workspaceId };
}

function ownLimits(
  entity: Entity,
): { rateLimits: readonly RateLimit[]; usageLimits: readonly UsageLimit[] } | undefined {
  const body = entity.body;
  if (!body || entity.tombstone) return undefined;
  switch (body.$case) {
    case 'apiKey':
    case 'workspace':
    case 'provider':
    case 'integration':
    case 'virtualKey':
      return body.value;
    default:
      return undefined;
  }
}

function rateType(type: RateLimitType): RateItem['type'] | undefined {
  if (type === RateLimitType.REQUESTS) return 'requests';
  if (type === RateLimitType.TOKENS) return 'tokens';
  return undefined;
}

function usageType(type: UsageLimitType): BudgetItem['type'] | undefined {
  if (type === UsageLimitType.COST) return 'cost';
  if (type === UsageLimitType.TOKENS) return 'tokens';
  return undefined;
}
