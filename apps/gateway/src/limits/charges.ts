// What a request is charged: its reservation estimate (tokens, or cost from max_tokens, the media
// units it asks for and the pricing snapshot) and, after the call, its actual tokens and cost (tokens
// and measured media units) for rate limits and budgets.

import { costOf, type MediaUnits, matchPricing } from '@aigw/pricing';
import { EntityKind, type ModelPricing, type UsageCharge, UsageLimitType } from '@aigw/proto';
import type { Snapshot } from '../snapshot/index.js';
import type { BudgetItem, Plan } from './plan.js';
import type { SettleInput } from './store.js';
import type { LimitSubject } from './subject.js';

/** Usage counters outlive their period by a day, for late settlements of the period's calls. */
const PERIOD_GRACE_MS = 86_400_000;

export interface ActualUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cachedInputTokens?: number | undefined;
  readonly model: string;
  /** Provider type (`openai`...) of the target that answered, for pricing. */
  readonly provider: string;
  /** Images, speech characters or audio seconds the call was measured at (formats/media-units.ts). */
  readonly media?: MediaUnits | undefined;
}

/** What settle charges: tokens to token rate limits, tokens or cost to budgets, reservations released. */
export function settlement(
  snapshot: Snapshot,
  organisationId: string,
  plan: Plan,
  reservationId: string,
  usage: ActualUsage | undefined,
): SettleInput | undefined {
  const tokens = usage ? safe(usage.inputTokens) + safe(usage.outputTokens) : 0;
  let cost: number | undefined;
  const costNow = () => {
    if (cost !== undefined) return cost;
    const price = usage ? priceOf(snapshot, organisationId, usage.provider, usage.model) : undefined;
    cost = usage && price ? safeCost(price, countsOf(usage)) : 0;
    return cost;
  };
  const tokenCharges =
    tokens > 0
      ? plan.rates
          .filter((r) => r.type === 'tokens')
          .map((r) => ({ key: r.key, windowMs: r.windowMs, amount: tokens }))
      : [];
  const budgets = plan.budgets.map((b) => ({
    key: b.key,
    reserved: b.estimate,
    actual: b.type === 'tokens' ? tokens : costNow(),
    limit: b.limit,
    threshold: b.threshold ?? -1,
    expireAtMs: expiry(b),
  }));
  if (tokenCharges.length === 0 && budgets.length === 0) return undefined;
  return { tokens: tokenCharges, budgets, reservationId };
}

/**
 * RequestEvent.usage_charges of an admitted plan: every budget counter, with what `work` (the
 * settlement, undefined before settle or when there was nothing to settle) added to it.
 */
export function usageCharges(plan: Plan, work: SettleInput | undefined): UsageCharge[] {
  return plan.budgets.map((b, j) => ({
    ownerKind: b.owner.entityKind,
    ownerId: b.owner.id,
    groupValue: b.chargeGroup,
    measure: b.type === 'cost' ? UsageLimitType.COST : UsageLimitType.TOKENS,
    periodStartMs: b.period.startMs,
    periodEndMs: b.period.endMs,
    counterKey: b.key,
    amount: work?.budgets[j]?.actual ?? 0,
  }));
}

/** The cost reserved at admission: the token estimate and the media units the request asks for. */
export function estimateCost(
  snapshot: Snapshot,
  subject: LimitSubject,
  inputTokens: number,
  outputTokens: number,
  media?: MediaUnits,
): number {
  const price = priceOf(
    snapshot,
    subject.organisationId,
    subject.providerType || subject.provider,
    subject.model,
  );
  return price ? safeCost(price, { inputTokens, outputTokens, ...safeMedia(media) }) : 0;
}

export function expiry(budget: BudgetItem): number {
  return budget.period.endMs > 0 ? budget.period.endMs + PERIOD_GRACE_MS : 0;
}

/**
 * Prices already matched, per snapshot (a new snapshot starts afresh, so price edits apply at once):
 * matching scans every pricing row, and a request needs its price at admission, at settle and for
 * its event. Nested by organisation, provider and model: the strings are looked up as they come,
 * not joined into a new key string whose hash each lookup would compute again.
 */
const matchedPrices = new WeakMap<
  Snapshot,
  { size: number; byOrg: Map<string, Map<string, Map<string, ModelPricing | undefined>>> }
>();
const MAX_MATCHED_PRICES = 4096;

function priceOf(
  snapshot: Snapshot,
  organisationId: string,
  provider: string,
  model: string,
): ModelPricing | undefined {
  let memo = matchedPrices.get(snapshot);
  if (!memo) {
    memo = { size: 0, byOrg: new Map() };
    matchedPrices.set(snapshot, memo);
  }
  let byProvider = memo.byOrg.get(organisationId);
  let byModel = byProvider?.get(provider);
  if (byModel?.has(model)) return byModel.get(model);
  const price = matchPrice(snapshot, organisationId, provider, model);
  if (memo.size >= MAX_MATCHED_PRICES) {
    memo.byOrg.clear();
    memo.size = 0;
    byProvider = undefined;
    byModel = undefined;
  }
  if (!byProvider) {
    byProvider = new Map();
    memo.byOrg.set(organisationId, byProvider);
  }
  if (!byModel) {
    byModel = new Map();
    byProvider.set(provider, byModel);
  }
  byModel.set(model, price);
  memo.size++;
  return price;
}

function matchPrice(
  snapshot: Snapshot,
  organisationId: string,
  provider: string,
  model: string,
): ModelPricing | undefined {
  const rows = function* () {
    for (const orgId of organisationId === '' ? [''] : ['', organisationId]) {
      for (const entity of snapshot.ofOrganisation(EntityKind.MODEL_PRICING, orgId)) {
        if (entity.body?.$case === 'modelPricing')
          yield { organisationId: entity.organisationId, ...entity.body.value };
      }
    }
  };
  return matchPricing(rows(), organisationId, provider, model);
}

/**
 * RequestEvent.cost of an answer: its reported tokens and measured media units at the snapshot's
 * price for the provider type and model that answered (undefined when no price row matches or the
 * amount is not a safe integer). The same price and rounding as a cost budget's settlement, so logs,
 * ledger and budgets agree.
 */
export function requestCost(
  snapshot: Snapshot,
  organisationId: string,
  usage: ActualUsage,
): { amountMicros: number; currency: string } | undefined {
  const price = priceOf(snapshot, organisationId, usage.provider, usage.model);
  if (!price) return undefined;
  try {
    const amountMicros = costOf(price, countsOf(usage));
    return { amountMicros, currency: price.currency.toUpperCase() };
  } catch {
    return undefined;
  }
}

/** Non-negative safe integers only: a provider reporting nonsense must not break accounting. */
export function safe(n: number): number {
  return Number.isFinite(n) && n > 0 ? Math.min(Math.floor(n), Number.MAX_SAFE_INTEGER) : 0;
}

/** What costOf prices of an actual usage: its tokens and media units, made safe. */
function countsOf(usage: ActualUsage): Parameters<typeof costOf>[1] {
  return {
    inputTokens: safe(usage.inputTokens),
    outputTokens: safe(usage.outputTokens),
    cachedInputTokens: safe(usage.cachedInputTokens ?? 0),
    ...safeMedia(usage.media),
  };
}

/** No media units: shared, so a token-only request allocates nothing for them. */
const NO_MEDIA: MediaUnits = Object.freeze({});

function safeMedia(media: MediaUnits | undefined): MediaUnits {
  if (!media) return NO_MEDIA;
  return {
    images: safe(media.images ?? 0),
    imageQuality: media.imageQuality,
    imageSize: media.imageSize,
    characters: safe(media.characters ?? 0),
    audioSeconds: safe(media.audioSeconds ?? 0),
  };
}

function safeCost(price: ModelPricing, counts: Parameters<typeof costOf>[1]): number {
  try {
    return costOf(price, counts);
  } catch {
    return Number.MAX_SAFE_INTEGER;
  }
}
