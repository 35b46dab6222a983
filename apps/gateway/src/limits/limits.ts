// The limits engine: one admission per request over every rate limit and budget that applies
// (policies and entity limits), decided in Redis in one Lua call, and one settlement after the
// response with the actual tokens and cost. While Redis is unreachable it decides in-process
// (ARCHITECTURE part 4) and says so: `degraded`, and a metric per degraded decision.
import { randomBytes } from 'node:crypto';
import type { MediaUnits } from '@aigw/pricing';
import type { UsageAlertEvent, UsageCharge } from '@aigw/proto';
import type { Logger } from '@aigw/runtime';
import type { Redis } from 'ioredis';
import type { Registry } from 'prom-client';
import type { GatewayConfig } from '../config.js';
import { gatewayErrorWithHeaders } from '../errors.js';
import type { Snapshot } from '../snapshot/index.js';
import { alertEvent, rateAlertEvent } from './alerts.js';
import { type ActualUsage, estimateCost, expiry, safe, settlement, usageCharges } from './charges.js';
import { rateHeaders, refusal } from './decision.js';
import { createMemoryStore } from './memory-store.js';
import { limitsMetrics } from './metrics.js';
import { createModelKeyed } from './model-keyed.js';
import { type BudgetItem, instantiate, type Plan, type RateItem } from './plan.js';
import { createPlanCache } from './plan-cache.js';
import { RateDebt } from './rate-debt.js';
import { createRedisStore } from './redis-store.js';
import {
  type AdmitInput,
  type AdmitOutput,
  type AlertTransition,
  type CounterStore,
  refuses,
  type SettleInput,
} from './store.js';
import type { LimitSubject } from './subject.js';

export type LimitsConfig = Pick<
  GatewayConfig,
  | 'POLICY_ENABLED'
  | 'USAGE_LIMITS_ENABLED'
  | 'LIMITS_REDIS_TIMEOUT_MS'
  | 'LIMITS_REDIS_RETRY_MS'
  | 'LIMITS_DEFAULT_MAX_TOKENS'
  | 'LIMITS_RESERVATION_TTL_MS'
  | 'LIMITS_REDIS_DOWN_RATE_LIMITS'
  | 'LIMITS_REDIS_DOWN_BUDGETS'
>;

export interface LimitsDeps {
  /** Shared counters (used while `status` is `ready`); absent: counters live in this process (one replica only), never "degraded". */
  readonly redis?: Redis | undefined;
  readonly log: Logger;
  readonly registry: Registry;
  readonly config: LimitsConfig;
  /** Called once per threshold/exhausted transition; must not throw or block (e.g. a NATS publish). */
  readonly publishAlert: (event: UsageAlertEvent) => void;
  readonly instanceId: string;
  /** Clock of usage periods (tests move it); rate windows always use Redis TIME. */
  readonly now?: () => number;
}

export interface RequestEstimate {
  /** The request's max_tokens (or max_completion_tokens / max_output_tokens). */
  readonly maxTokens?: number | undefined;
  /** Input tokens guessed from the body size. */
  readonly inputTokensGuess?: number | undefined;
  /** Images or speech characters the request asks for (cost budgets reserve their price). */
  readonly media?: MediaUnits | undefined;
}

export type { ActualUsage } from './charges.js';

export interface Admission {
  /** `x-ratelimit-*` headers for the response (empty when no rate limit applies). */
  readonly headers: Readonly<Record<string, string>>;
  /** True when the decision was made without Redis (add `x-service-limits-degraded: true`). */
  readonly degraded: boolean;
  /**
   * Charges the actual usage (undefined: the call produced none, e.g. it failed) and releases the
   * reservations. Call once; later calls do nothing. Never rejects: awaiting is optional.
   */
  settle(usage: ActualUsage | undefined): Promise<void>;
  /**
   * The budget counters of this admission as RequestEvent.usage_charges, with what settle charged
   * each (0 before settle, or when the call produced no usage).
   */
  usageCharges(): UsageCharge[];
}

export interface Limits {
  /**
   * Admits the request or throws the gateway error (412 budget exhausted, 429 rate limited).
   * `continuation`: a later admission of a request already counted (the next turn of a realtime
   * session): its budgets and token limits are checked and reserved, `requests` limits are not
   * counted again.
   */
  admit(
    snapshot: Snapshot,
    subject: LimitSubject,
    estimate: RequestEstimate,
    continuation?: boolean,
  ): Promise<Admission>;
  /** Whether the organisation's policies read the model (then the body must be read to admit). */
  readsModel(snapshot: Snapshot, organisationId: string): boolean;
}

const NOTHING: Admission = Object.freeze({
  headers: Object.freeze({}),
  degraded: false,
  settle: async () => {},
  usageCharges: () => [],
});

export function createLimits(deps: LimitsDeps): Limits {
  const { config, log } = deps;
  const metrics = limitsMetrics(deps.registry);
  const now = deps.now ?? Date.now;
  const local = createMemoryStore();
  // The Redis store fails a call left unanswered for LIMITS_REDIS_TIMEOUT_MS itself (one timer per
  // batched script call rather than one per request).
  const remote = deps.redis
    ? createRedisStore(deps.redis, { timeoutMs: config.LIMITS_REDIS_TIMEOUT_MS })
    : undefined;
  // Decisions use Redis only while the client is `ready`; a lazyConnect client would never get there.
  if (deps.redis?.status === 'wait') deps.redis.connect().catch(() => {});
  let retryRedisAt = 0;
  const plans = createPlanCache({
    policies: config.POLICY_ENABLED,
    usageLimits: config.USAGE_LIMITS_ENABLED,
  });
  // Reservation ids only need to be unique among live reservations of all replicas: a random
  // prefix per process and a counter, instead of a UUID per admission.
  const reservationPrefix = `${randomBytes(9).toString('base64url')}.`;
  let reservations = 0;

  const redisUsable = () =>
    remote !== undefined && deps.redis?.status === 'ready' && Date.now() >= retryRedisAt;

  function redisFailed(err: unknown, operation: string) {
    // Log once per outage window, not once per request.
    if (Date.now() >= retryRedisAt)
      log.warn(
        { err: err instanceof Error ? err.message : String(err), operation },
        'limits: Redis unavailable, deciding locally',
      );
    retryRedisAt = Date.now() + config.LIMITS_REDIS_RETRY_MS;
  }

  /** Runs on Redis (which times out on its own), else locally; `degraded` when Redis was wanted but not used. */
  async function run<I, O>(
    operation: 'admit' | 'settle',
    input: I,
    call: (store: CounterStore, input: I) => Promise<O>,
    preferLocal = false,
  ): Promise<{ out: O; remote: boolean; degraded: boolean }> {
    if (remote && !preferLocal && redisUsable()) {
      try {
        const out = await call(remote, input);
        return { out, remote: true, degraded: false };
      } catch (err) {
        redisFailed(err, operation);
      }
    }
    if (remote) metrics.degraded(operation);
    return { out: await call(local, input), remote: false, degraded: remote !== undefined };
  }

  function publish(budget: BudgetItem, kind: AlertTransition, usage: number, nowMs: number, orgId: string) {
    if (kind === 'none') return;
    metrics.alert(kind);
    try {
      deps.publishAlert(
        alertEvent(budget, kind, {
          organisationId: orgId,
          usage,
          occurredAtMs: nowMs,
          instanceId: deps.instanceId,
        }),
      );
    } catch (err) {
      log.warn({ err, alert: kind, entityId: budget.owner.id }, 'limits: alert not published');
    }
  }

  /** Rate alerts this process sent, until their window ends: one per limit and window, not per 429. */
  const rateAlerted = new Map<string, number>();
  function publishRateAlerts(plan: Plan, out: AdmitOutput, orgId: string) {
    plan.rates.forEach((item: RateItem, i) => {
      const count = out.rateCounts[i] ?? 0;
      if (!refuses.rate(item.type === 'requests', count, item.limit)) return;
      const event = rateAlertEvent(item, {
        organisationId: orgId,
        count,
        nowMs: out.nowMs,
        instanceId: deps.instanceId,
      });
      if (rateAlerted.has(event.id)) return;
      if (rateAlerted.size >= 10_000) {
        for (const [id, until] of rateAlerted) if (until <= out.nowMs) rateAlerted.delete(id);
        if (rateAlerted.size >= 10_000) rateAlerted.clear();
      }
      rateAlerted.set(event.id, event.periodStartMs + item.windowMs);
      metrics.alert('rate_limited');
      try {
        deps.publishAlert(event);
      } catch (err) {
        log.warn({ err, alert: 'rate_limited', entityId: item.owner.id }, 'limits: alert not published');
      }
    });
  }

  function observe(plan: Plan, out: AdmitOutput) {
    plan.rates.forEach((item, i) => {
      const count = (out.rateCounts[i] ?? 0) + (out.admitted && item.type === 'requests' ? 1 : 0);
      local.observeRate(item.key, out.nowMs - (out.nowMs % item.windowMs), count, item.windowMs);
    });
    plan.budgets.forEach((b, j) => {
      local.observeBudget(b.key, out.budgets[j]?.usage ?? 0, expiry(b));
    });
  }

  const readsModel = createModelKeyed();
  const debt = new RateDebt();
  let repaying: Promise<void> | undefined;
  /**
   * Charges Redis with what the local limiter admitted while it was away (rate-debt.ts), before the
   * first decision made on Redis again; decisions arriving meanwhile wait for it.
   */
  function repay(store: CounterStore): Promise<void> {
    if (repaying) return repaying;
    const owed = debt.take(Date.now());
    if (!owed) return Promise.resolve();
    repaying = store
      .settle(owed)
      .then(
        () => metrics.repaid(owed.tokens.reduce((n, t) => n + t.amount, 0)),
        (err) =>
          log.warn({ err: err instanceof Error ? err.message : String(err) }, 'limits: charge-back failed'),
      )
      .finally(() => {
        repaying = undefined;
      });
    return repaying;
  }
  return {
    readsModel,
    async admit(snapshot, subject, estimate, continuation = false) {
      const outputTokens = estimate.maxTokens ?? config.LIMITS_DEFAULT_MAX_TOKENS;
      const inputTokens = estimate.inputTokensGuess ?? 0;
      let costEstimate: number | undefined;
      let template = plans(snapshot, subject);
      if (continuation)
        template = { ...template, rates: template.rates.filter((r) => r.type !== 'requests') };
      if (template.rates.length === 0 && template.budgets.length === 0) return NOTHING;
      let plan = instantiate(template, now(), (type) => {
        if (type === 'tokens') return safe(inputTokens + outputTokens);
        costEstimate ??= estimateCost(
          snapshot,
          subject,
          safe(inputTokens),
          safe(outputTokens),
          estimate.media,
        );
        return costEstimate;
      });

      const reservationId = `${reservationPrefix}${(++reservations).toString(36)}`;
      let out: AdmitOutput | undefined;
      let onRedis = false;
      if (remote && redisUsable()) {
        try {
          if (debt.size > 0 || repaying) await repay(remote);
          out = await remote.admit(admitInput(plan, reservationId, config.LIMITS_RESERVATION_TTL_MS));
          onRedis = true;
          observe(plan, out);
        } catch (err) {
          redisFailed(err, 'admit');
        }
      }
      const degraded = remote !== undefined && !onRedis;
      if (!out) {
        if (degraded) {
          metrics.degraded('admit');
          try {
            plan = fallbackPlan(plan, config);
          } catch (err) {
            metrics.decision('unavailable', true);
            throw err;
          }
          if (plan.rates.length === 0 && plan.budgets.length === 0) return { ...NOTHING, degraded: true };
        }
        out = await local.admit(admitInput(plan, reservationId, config.LIMITS_RESERVATION_TTL_MS));
        if (degraded && out.admitted) {
          for (const r of plan.rates) if (r.type === 'requests') debt.add(r.key, r.windowMs, out.nowMs);
        }
      }
      plan.budgets.forEach((b, j) => {
        if (out.budgets[j]?.exhaustedAlert)
          publish(b, 'exhausted', out.budgets[j]?.usage ?? 0, out.nowMs, subject.organisationId);
      });
      const headers = rateHeaders(plan, out);
      if (!out.admitted) {
        const error = refusal(plan, out, headers);
        if (error.status === 429 && error.code !== 'usage_limit_in_flight') {
          publishRateAlerts(plan, out, subject.organisationId);
        }
        metrics.decision(
          error.status === 412
            ? 'usage_exhausted'
            : error.code === 'usage_limit_in_flight'
              ? 'usage_in_flight'
              : 'rate_limited',
          degraded,
        );
        throw error;
      }
      metrics.decision('admitted', degraded);

      let settled = false;
      let charged: SettleInput | undefined;
      const settle = async (usage: ActualUsage | undefined) => {
        if (settled) return;
        settled = true;
        try {
          const work = settlement(snapshot, subject.organisationId, plan, reservationId, usage);
          charged = work;
          if (!work) return;
          const result = await run('settle', work, (store, i) => store.settle(i), !onRedis);
          plan.budgets.forEach((b, j) => {
            const seen = result.out.budgets[j];
            if (!seen) return;
            if (result.remote) local.observeBudget(b.key, seen.usage, expiry(b));
            publish(b, seen.alert, seen.usage, result.out.nowMs, subject.organisationId);
          });
        } catch (err) {
          log.error({ err }, 'limits: settlement failed');
        }
      };
      const admitted = plan;
      return { headers, degraded, settle, usageCharges: () => usageCharges(admitted, charged) };
    },
  };
}

function admitInput(plan: Plan, reservationId: string, reservationTtlMs: number): AdmitInput {
  return {
    rates: plan.rates.map((r) => ({
      key: r.key,
      requests: r.type === 'requests',
      limit: r.limit,
      windowMs: r.windowMs,
    })),
    budgets: plan.budgets.map((b) => ({
      key: b.key,
      limit: b.limit,
      estimate: b.estimate,
      expireAtMs: expiry(b),
    })),
    reservationId,
    reservationTtlMs,
  };
}

/**
 * The limits a Redis-less decision enforces (LIMITS_REDIS_DOWN_*): `open` drops that kind, `closed`
 * refuses the request with 503 when a limit of that kind applies; `local` and `last_known` keep it
 * for the in-process store.
 */
function fallbackPlan(plan: Plan, config: LimitsConfig): Plan {
  const rateMode = config.LIMITS_REDIS_DOWN_RATE_LIMITS;
  const budgetMode = config.LIMITS_REDIS_DOWN_BUDGETS;
  if (
    (rateMode === 'closed' && plan.rates.length > 0) ||
    (budgetMode === 'closed' && plan.budgets.length > 0)
  ) {
    const retryAfter = String(Math.max(1, Math.ceil(config.LIMITS_REDIS_RETRY_MS / 1000)));
    throw gatewayErrorWithHeaders(
      'limits_unavailable',
      'limits cannot be checked right now (their store is unreachable)',
      {
        'retry-after': retryAfter,
      },
    );
  }
  return {
    rates: rateMode === 'open' ? [] : plan.rates,
    budgets: budgetMode === 'open' ? [] : plan.budgets,
  };
}
