// From a store's answer to what the client sees: the x-ratelimit-* headers of the tightest rate
// limit of each type, and the error naming what refused the request (412 budget, 429 rate).
import type { AppError } from '@aigw/runtime';
import { type GatewayErrorCode, gatewayErrorWithHeaders } from '../errors.js';
import type { BudgetItem, LimitOwner, Plan, RateItem } from './plan.js';
import { type AdmitOutput, refuses } from './store.js';

const UNIT_WORDS: Record<number, string> = { 60000: 'minute', 3600000: 'hour', 86400000: 'day' };

/** Seconds until a window ends (at least 1: `0` would invite an immediate retry). */
function secondsLeft(nowMs: number, windowMs: number): number {
  const end = nowMs - (nowMs % windowMs) + windowMs;
  return Math.max(1, Math.ceil((end - nowMs) / 1000));
}

/**
 * `x-ratelimit-{limit,remaining,reset}-{requests,tokens}`: per type, the limit with the fewest
 * units left after this request (OpenAI's header names). `reset` is whole seconds until that
 * limit's window ends.
 */
export function rateHeaders(plan: Plan, out: AdmitOutput): Record<string, string> {
  const headers: Record<string, string> = {};
  rateHeadersOf(plan, out, 'requests', REQUEST_HEADERS, headers);
  rateHeadersOf(plan, out, 'tokens', TOKEN_HEADERS, headers);
  return headers;
}

// The names as constants, and a plain loop: this runs on every admitted request (the names were
// template strings built per request, and the loop a closure per type).
const REQUEST_HEADERS = [
  'x-ratelimit-limit-requests',
  'x-ratelimit-remaining-requests',
  'x-ratelimit-reset-requests',
] as const;
const TOKEN_HEADERS = [
  'x-ratelimit-limit-tokens',
  'x-ratelimit-remaining-tokens',
  'x-ratelimit-reset-tokens',
] as const;

function rateHeadersOf(
  plan: Plan,
  out: AdmitOutput,
  type: RateItem['type'],
  names: readonly [string, string, string],
  headers: Record<string, string>,
): void {
  let best: RateItem | undefined;
  let fewest = 0;
  const rates = plan.rates;
  for (let i = 0; i < rates.length; i++) {
    const item = rates[i] as RateItem;
    if (item.type !== type) continue;
    const used = (out.rateCounts[i] ?? 0) + (type === 'requests' && out.admitted ? 1 : 0);
    const remaining = Math.max(0, item.limit - used);
    if (!best || remaining < fewest) {
      best = item;
      fewest = remaining;
    }
  }
  if (!best) return;
  headers[names[0]] = String(best.limit);
  headers[names[1]] = String(fewest);
  headers[names[2]] = String(secondsLeft(out.nowMs, best.windowMs));
}

function describe(owner: LimitOwner): string {
  const who = owner.kind === 'policy' ? `policy ${owner.id}` : `${owner.kind.replace('_', ' ')} ${owner.id}`;
  return owner.group && owner.kind === 'policy' ? `${who} (group ${owner.group})` : who;
}

/** The refusal of an admission that was not admitted: exhausted budgets first (retrying is useless). */
export function refusal(plan: Plan, out: AdmitOutput, headers: Record<string, string>): AppError {
  const exhausted = plan.budgets.find((b, j) => refuses.exhausted(out.budgets[j]?.usage ?? 0, b.limit));
  if (exhausted) {
    const code = `${exhausted.owner.kind}_usage_limit_exhausted` as GatewayErrorCode;
    return gatewayErrorWithHeaders(
      code,
      `usage limit of ${describe(exhausted.owner)} is exhausted (${amount(exhausted)})`,
      headers,
    );
  }
  let limited: RateItem | undefined;
  let retryAfter = 0;
  plan.rates.forEach((item, i) => {
    if (!refuses.rate(item.type === 'requests', out.rateCounts[i] ?? 0, item.limit)) return;
    const wait = secondsLeft(out.nowMs, item.windowMs);
    // The client must wait for every refusing window; name the one that ends last.
    if (wait > retryAfter) {
      retryAfter = wait;
      limited = item;
    }
  });
  if (limited) {
    const item = limited as RateItem;
    const code = `${item.owner.kind}_rate_limited` as GatewayErrorCode;
    const what = `${item.limit} ${item.type} per ${UNIT_WORDS[item.windowMs] ?? `${item.windowMs} ms`}`;
    return gatewayErrorWithHeaders(code, `rate limit of ${describe(item.owner)} reached: ${what}`, {
      ...headers,
      'retry-after': String(retryAfter),
    });
  }
  const held = plan.budgets.find((b, j) => {
    const seen = out.budgets[j];
    return seen !== undefined && refuses.inFlight(seen.usage, seen.reserved, b.estimate, b.limit);
  });
  const owner = held ? describe(held.owner) : 'a usage limit';
  return gatewayErrorWithHeaders(
    'usage_limit_in_flight',
    `the rest of the usage limit of ${owner} is reserved by requests in flight; retry when they finish`,
    { ...headers, 'retry-after': '1' },
  );
}

function amount(budget: BudgetItem): string {
  return budget.type === 'cost'
    ? `limit ${(budget.limit / 1_000_000).toFixed(6).replace(/\.?0+$/, '')} USD`
    : `limit ${budget.limit} tokens`;
}
