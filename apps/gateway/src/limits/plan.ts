// Which limits apply to one request, pure: matching policies (one counter per group value) and the
// limits set on the request's key, workspace, provider, integration (and its per-workspace
// settings) and virtual key, each with its Redis key. Keys share the hash tag `{<organisation>}`,
// so one Lua call can read and charge all of them on a Redis Cluster too.
import { createHash } from 'node:crypto';
import {
  budgetKeyPrefix,
  counterTag,
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
import { type Period, type PeriodSpec, periodAt } from './periods.js';
import type { LimitSubject } from './subject.js';
import { periodAfterReset, resetAtOf } from './usage-resets.js';

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
  /**
   * The usage ledger's group of this counter (RequestEvent.usage_charges): the policy's group, ''
   * for an entity's own limit, `workspace_id=<id>` for an integration's per-workspace limit.
   */
  readonly chargeGroup: string;
}

export interface Plan {
  readonly rates: readonly RateItem[];
  readonly budgets: readonly BudgetItem[];
}

/** Which limits kinds apply at all (POLICY_ENABLED, USAGE_LIMITS_ENABLED). */
export interface PlanFlags {
  readonly policies: boolean;
  readonly usageLimits: boolean;
}

export interface PlanOptions extends PlanFlags {
  readonly nowMs: number;
  /** The reservation of one request for a budget of this type (called only when one applies). */
  readonly estimate: (type: 'cost' | 'tokens') => number;
}

/** A budget of a template: all but its period, which moves with time. */
interface BudgetSlot {
  /** The counter key without its period start. */
  readonly prefix: string;
  readonly type: BudgetItem['type'];
  readonly limit: number;
  readonly threshold: number | undefined;
  readonly spec: PeriodSpec;
  readonly owner: LimitOwner;
  readonly chargeGroup: string;
  /** A policy's latest usage reset of this group (ms), 0 when none: the period starts there. */
  readonly resetAtMs: number;
}

/**
 * What applies to one subject in one snapshot, before time and the request's estimate: the rate
 * counters (fixed) and the budgets (their keys end with the period start, computed per request).
 */
export interface PlanTemplate {
  readonly rates: readonly RateItem[];
  readonly budgets: readonly BudgetSlot[];
  /** Two budgets may fall on one counter (same entity and type, periods that can start together). */
  readonly mergeBudgets: boolean;
  /** The last period of each budget, reused while the clock stays inside it. */
  readonly periods: (Period | undefined)[];
  /**
   * The last counter key of each budget (its prefix and period start), reused while the period is
   * the same: one string object for every request of the period, whose hash maps compute once.
   */
  readonly keys: ({ readonly startMs: number; readonly key: string } | undefined)[];
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

/** The limits of one request at `nowMs`, with its estimates (a template instantiated at once). */
export function buildPlan(snapshot: Snapshot, subject: LimitSubject, options: PlanOptions): Plan {
  return instantiate(planTemplate(snapshot, subject, options), options.nowMs, options.estimate);
}

/** A template's plan at `nowMs`: each budget keyed by the period holding it, with its estimate. */
export function instantiate(template: PlanTemplate, nowMs: number, estimate: PlanOptions['estimate']): Plan {
  const slots = template.budgets;
  if (slots.length === 0) return { rates: template.rates, budgets: [] };
  const budgets: BudgetItem[] = [];
  for (let i = 0; i < slots.length; i++) {
    const slot = slots[i] as BudgetSlot;
    let period = template.periods[i];
    // A period is [start, end): the same one holds while the clock is inside it (FOREVER always).
    if (!period || (period.endMs !== 0 && (nowMs < period.startMs || nowMs >= period.endMs))) {
      period = periodAt(slot.spec, nowMs);
      template.periods[i] = period;
    }
    if (slot.resetAtMs > 0) period = periodAfterReset(period, slot.resetAtMs);
    let key = template.keys[i];
    if (key?.startMs !== period.startMs) {
      key = { startMs: period.startMs, key: `${slot.prefix}${period.startMs}` };
      template.keys[i] = key;
    }
    budgets.push({
      key: key.key,
      type: slot.type,
      limit: slot.limit,
      threshold: slot.threshold,
      period,
      estimate: estimate(slot.type),
      owner: slot.owner,
      chargeGroup: slot.chargeGroup,
    });
  }
  if (!template.mergeBudgets) return { rates: template.rates, budgets };
  const merged = new Map<string, BudgetItem>();
  for (const item of budgets) {
    const held = merged.get(item.key);
    if (!held || item.limit < held.limit) merged.set(item.key, item);
  }
  return { rates: template.rates, budgets: [...merged.values()] };
}

/** The limits that apply to `subject` in `snapshot`, independent of time (see PlanTemplate). */
export function planTemplate(snapshot: Snapshot, subject: LimitSubject, flags: PlanFlags): PlanTemplate {
  const rates = new Map<string, RateItem>();
  const budgets: BudgetSlot[] = [];
  const tag = counterTag(subject.organisationId);
  const addRate = (item: RateItem) => {
    const held = rates.get(item.key);
    // Two equal limits on one entity share a counter: keep the stricter, charge once.
    if (!held || item.limit < held.limit) rates.set(item.key, item);
  };

  if (flags.policies) {
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
    if (flags.usageLimits) {
      for (const policy of applicable(snapshot, subject, EntityKind.USAGE_LIMIT_POLICY)) {
        if (policy.body?.$case !== 'usageLimitPolicy') continue;
        const p = policy.body.value;
        const type = usageType(p.type);
        if (!type || !matchesAll(p.conditions, subject)) continue;
        const group = groupValue(p.groupBy, subject);
        budgets.push({
          prefix: `${tag}:u:p:${policy.id}:${digest(group)}:`,
          type,
          limit: p.creditLimit,
          threshold: p.alertThreshold,
          spec: p,
          owner: policyOwner(policy, group),
          chargeGroup: group,
          resetAtMs:
            p.resets.length === 0
              ? 0
              : resetAtOf(
                  p.resets,
                  p.groupBy.map((g) => g.key),
                  subject,
                ),
        });
      }
    }
  }

  const entityLimits = (
    owner: Omit<LimitOwner, 'group'>,
    scope: string,
    chargeGroup: string,
    rateLimits: readonly RateLimit[],
    usageLimits: readonly UsageLimit[],
  ) => {
    const groupPrefix = chargeGroup === '' ? '' : `${chargeGroup}&`;
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
    if (!flags.usageLimits) return;
    for (const limit of usageLimits) {
      const type = usageType(limit.type);
      if (!type) continue;
      budgets.push({
        prefix: budgetKeyPrefix(subject.organisationId, scope, type),
        type,
        limit: limit.creditLimit,
        threshold: limit.alertThreshold,
        spec: limit,
        owner: { ...owner, group: `${groupPrefix}type=${type}` },
        chargeGroup,
        resetAtMs: 0,
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
    const group = `workspace_id=${encodeURIComponent(iw.workspaceId)}`;
    entityLimits(owner, `iw:${iw.integrationId}:${iw.workspaceId}`, group, iw.rateLimits, iw.usageLimits);
  }
  const prefixes = new Set(budgets.map((b) => b.prefix));
  return {
    rates: [...rates.values()],
    budgets,
    mergeBudgets: prefixes.size < budgets.length,
    periods: budgets.map(() => undefined),
    keys: budgets.map(() => undefined),
  };
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
