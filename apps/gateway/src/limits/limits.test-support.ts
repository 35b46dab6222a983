// Builders for limits tests: snapshot entities (policies, pricing, keys), a Limits instance with its
// alerts and registry, and helpers to collect admission outcomes.
import {
  type Entity,
  EntityKind,
  EntityStatus,
  ModelPricing,
  RateLimitPolicy,
  RateLimitType,
  RateLimitUnit,
  type UsageAlertEvent,
  UsageLimitPolicy,
  UsageLimitType,
} from '@aigw/proto';
import { AppError, createLogger } from '@aigw/runtime';
import type { Redis } from 'ioredis';
import { Registry } from 'prom-client';
import { Snapshot } from '../snapshot/index.js';
import { type Admission, createLimits, type Limits, type LimitsConfig } from './limits.js';
import type { LimitSubject } from './subject.js';

export const ORG = '0b1e7a4e-8c1b-4d5e-9f00-000000000001';
export const WS = '6f1c0000-0000-4000-8000-000000000001';

let seq = 0;
const nextId = () => `00000000-0000-4000-8000-${String(++seq).padStart(12, '0')}`;

function entity(
  kind: EntityKind,
  body: Entity['body'],
  options: { id?: string; workspaceId?: string; version?: number; organisationId?: string } = {},
): Entity {
  return {
    kind,
    id: options.id ?? nextId(),
    version: options.version ?? 1,
    tombstone: false,
    organisationId: options.organisationId ?? ORG,
    workspaceId: options.workspaceId ?? '',
    updatedAtMs: 0,
    body,
  };
}

export function ratePolicy(
  p: Partial<RateLimitPolicy>,
  options: { id?: string; workspaceId?: string; version?: number } = {},
): Entity {
  const value = RateLimitPolicy.fromPartial({
    name: 'test',
    type: RateLimitType.REQUESTS,
    unit: RateLimitUnit.RPM,
    value: 10,
    conditions: [{ key: 'workspace_id', value: '*' }],
    groupBy: [{ key: 'api_key' }],
    status: EntityStatus.ACTIVE,
    ...p,
  });
  return entity(EntityKind.RATE_LIMIT_POLICY, { $case: 'rateLimitPolicy', value }, options);
}

export function usagePolicy(
  p: Partial<UsageLimitPolicy>,
  options: { id?: string; workspaceId?: string; version?: number } = {},
): Entity {
  const value = UsageLimitPolicy.fromPartial({
    name: 'test',
    type: UsageLimitType.TOKENS,
    creditLimit: 1000,
    conditions: [{ key: 'workspace_id', value: '*' }],
    groupBy: [{ key: 'api_key' }],
    status: EntityStatus.ACTIVE,
    ...p,
  });
  return entity(EntityKind.USAGE_LIMIT_POLICY, { $case: 'usageLimitPolicy', value }, options);
}

/** Platform price of openai gpt-4o*: 2.5 USD / 10 USD per million input / output tokens. */
export function gpt4oPrice(): Entity {
  const value = ModelPricing.fromPartial({
    aiProvider: 'openai',
    model: 'gpt-4o*',
    currency: 'USD',
    inputMicrosPerMtok: 2_500_000,
    outputMicrosPerMtok: 10_000_000,
    cachedInputMicrosPerMtok: 1_250_000,
  });
  return entity(EntityKind.MODEL_PRICING, { $case: 'modelPricing', value }, { organisationId: '' });
}

/** A platform price row of an openai model priced only by `extra` (micro-USD per unit). */
export function mediaPrice(model: string, extra: Record<string, number>): Entity {
  const value = ModelPricing.fromPartial({
    aiProvider: 'openai',
    model,
    currency: 'USD',
    extraJson: JSON.stringify(extra),
  });
  return entity(EntityKind.MODEL_PRICING, { $case: 'modelPricing', value }, { organisationId: '' });
}

// OpenAI's list prices (micro-USD): dall-e-3 standard and hd 1024x1024 (0.04, 0.08 USD an image),
// dall-e-2 by size, tts-1 (15 USD per million characters), whisper-1 (0.006 USD a minute).
export const DALLE3 = mediaPrice('dall-e-3', {
  per_image_standard_1024x1024: 40_000,
  per_image_hd_1024x1024: 80_000,
});
export const DALLE2 = mediaPrice('dall-e-2', { per_image_256x256: 16_000, per_image_1024x1024: 20_000 });
export const TTS1 = mediaPrice('tts-1', { per_mchar: 15_000_000 });
export const WHISPER1 = mediaPrice('whisper-1', { per_audio_minute: 6_000 });

export { entity };

export const snapshotOf = (...entities: Entity[]) => Snapshot.of(entities, 1);

export function subject(overrides: Partial<LimitSubject> = {}): LimitSubject {
  return {
    organisationId: ORG,
    workspaceId: WS,
    apiKeyId: 'key-1',
    provider: 'openai',
    model: 'gpt-4o',
    configId: '',
    virtualKeyId: '',
    metadata: {},
    ...overrides,
  };
}

export const CONFIG: LimitsConfig = {
  POLICY_ENABLED: true,
  USAGE_LIMITS_ENABLED: true,
  LIMITS_REDIS_TIMEOUT_MS: 200,
  LIMITS_REDIS_RETRY_MS: 1_000,
  LIMITS_DEFAULT_MAX_TOKENS: 100,
  LIMITS_RESERVATION_TTL_MS: 60_000,
  LIMITS_REDIS_DOWN_RATE_LIMITS: 'local',
  LIMITS_REDIS_DOWN_BUDGETS: 'last_known',
};

export interface TestLimits {
  readonly limits: Limits;
  readonly alerts: UsageAlertEvent[];
  readonly registry: Registry;
}

export function makeLimits(
  redis: Redis | undefined,
  options: { config?: Partial<LimitsConfig>; now?: () => number; instanceId?: string } = {},
): TestLimits {
  const alerts: UsageAlertEvent[] = [];
  const registry = new Registry();
  const limits = createLimits({
    redis,
    log: createLogger({ app: 'limits-test', level: 'silent' }),
    registry,
    config: { ...CONFIG, ...options.config },
    publishAlert: (event) => alerts.push(event),
    instanceId: options.instanceId ?? 'test-1',
    ...(options.now ? { now: options.now } : {}),
  });
  return { limits, alerts, registry };
}

export type Outcome = { admitted: Admission } | { refused: AppError };

/** Admission or the AppError it threw (anything else is rethrown: a bug, not a refusal). */
export async function attempt(work: Promise<Admission>): Promise<Outcome> {
  try {
    return { admitted: await work };
  } catch (err) {
    if (err instanceof AppError) return { refused: err };
    throw err;
  }
}

export const admittedOf = (outcomes: Outcome[]) =>
  outcomes.flatMap((o) => ('admitted' in o ? [o.admitted] : []));
export const refusedOf = (outcomes: Outcome[]) =>
  outcomes.flatMap((o) => ('refused' in o ? [o.refused] : []));

/** The value of a counter metric with these labels (0 when never incremented). */
export async function metricValue(
  registry: Registry,
  name: string,
  labels: Record<string, string>,
): Promise<number> {
  const metric = registry.getSingleMetric(name);
  if (!metric) return 0;
  const { values } = await metric.get();
  const found = values.find((v) => Object.entries(labels).every(([k, val]) => String(v.labels[k]) === val));
  return found?.value ?? 0;
}

/**
 * Waits, when the current Redis-time window of `windowMs` ends within `marginMs`, until the next
 * one starts: counts that must land in one fixed window cannot straddle its end.
 */
export async function freshWindow(redis: Redis, windowMs: number, marginMs = 5_000): Promise<void> {
  const [s, us] = await redis.time();
  const now = Number(s) * 1000 + Math.floor(Number(us) / 1000);
  const left = windowMs - (now % windowMs);
  if (left < marginMs) await new Promise((resolve) => setTimeout(resolve, left + 50));
}
