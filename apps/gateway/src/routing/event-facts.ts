// What the request event reports of a config run, in the contract's shapes: every attempt, the
// cache outcome and the guardrail results.
import { type Attempt, CacheStatus, type GuardrailResult, GuardrailStage } from '@aigw/proto';
import type { CacheStatus as CacheStatusHeader } from '../cache/index.js';
import type { StagedGuardrailResult } from './config-pipeline.js';
import type { AttemptRecord } from './leaf-call.js';

/** The config part of a request event (absent for requests without a config). */
export interface RoutingFacts {
  readonly attempts: readonly Attempt[];
  readonly cacheStatus: CacheStatus;
  readonly guardrailResults: readonly GuardrailResult[];
}

const CACHE_STATUS: Readonly<Record<CacheStatusHeader, CacheStatus>> = {
  HIT: CacheStatus.HIT,
  'SEMANTIC HIT': CacheStatus.SEMANTIC_HIT,
  MISS: CacheStatus.MISS,
  'SEMANTIC MISS': CacheStatus.SEMANTIC_MISS,
  REFRESH: CacheStatus.REFRESH,
  DISABLED: CacheStatus.DISABLED,
};

const micros = (ms: number): number => (ms > 0 ? Math.round(ms * 1000) : 0);

export function routingFacts(
  attempts: readonly AttemptRecord[],
  cacheStatus: CacheStatusHeader,
  guardrails: readonly StagedGuardrailResult[],
  /** Saved guardrails' ids by their results' label (control-plane mode; auth/saved-guardrails.ts). */
  savedIds?: ReadonlyMap<string, string>,
): RoutingFacts {
  return {
    attempts: attempts.map((a) => ({
      targetPath: a.targetPath,
      provider: {
        type: a.provider,
        slug: a.ref?.slug ?? '',
        providerId: a.ref?.providerId ?? '',
        integrationId: a.ref?.integrationId ?? '',
        customHost: a.customHost,
      },
      model: a.model,
      statusCode: a.statusCode,
      startedAtMs: a.startedAt,
      latencyUs: micros(a.endedAt - a.startedAt),
      retryIndex: a.retryIndex,
      ...(a.error ? { error: a.error } : {}),
    })),
    cacheStatus: CACHE_STATUS[cacheStatus],
    guardrailResults: guardrails.map((g) => ({
      // The contract's id is a saved guardrail's: inline ones (all of a standalone gateway's) have none.
      guardrailId: savedIds?.get(g.id) ?? '',
      stage: g.stage === 'input' ? GuardrailStage.INPUT : GuardrailStage.OUTPUT,
      verdict: g.verdict,
      denied: g.denied,
      latencyUs: micros(g.durationMs),
      checks: g.checks.map((c) => ({
        checkId: c.id,
        verdict: c.verdict,
        explanation: c.explanation,
        latencyUs: micros(c.durationMs),
        errored: c.error !== undefined,
      })),
      // The config's own (frozen) `{value, weight}`: no copy, and undefined for most guardrails.
      feedback: g.feedback,
    })),
  };
}
