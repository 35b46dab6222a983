// What a client sees of guardrail results: 446 with the error envelope when denied, 246 with the
// provider's body when a guardrail failed without deny; both carry Portkey-style `hook_results`.
import { GATEWAY_ERROR_HEADER, gatewayError, gatewayErrorStatus } from '../errors.js';
import type { CheckResult, GuardrailOutcome, GuardrailResult } from './types.js';

export const GUARDRAIL_DENIED_STATUS: number = gatewayErrorStatus('guardrail_denied');
export const GUARDRAIL_FAILED_STATUS = 246;
/** A 446 is the gateway's own answer, like every gateway-made error. */
export const GUARDRAIL_DENIED_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  [GATEWAY_ERROR_HEADER]: 'true',
});

/** Both phases of one request; a phase that did not run is left out. */
export interface GuardrailOutcomes {
  readonly input?: GuardrailOutcome;
  readonly output?: GuardrailOutcome;
}

export interface CheckResultJson {
  id: string;
  verdict: boolean;
  explanation: string;
  data?: unknown;
  error?: string;
  execution_time: number;
}

export interface GuardrailResultJson {
  id: string;
  verdict: boolean;
  deny: boolean;
  async: boolean;
  execution_time: number;
  checks: CheckResultJson[];
}

export interface HookResults {
  before_request_hooks: GuardrailResultJson[];
  after_request_hooks: GuardrailResultJson[];
}

const ms = (value: number): number => Math.round(value * 1000) / 1000;

function checkJson(check: CheckResult): CheckResultJson {
  return {
    id: check.id,
    verdict: check.verdict,
    explanation: check.explanation,
    ...(check.data !== undefined && { data: check.data }),
    ...(check.error !== undefined && { error: check.error }),
    execution_time: ms(check.durationMs),
  };
}

/** One guardrail's result as JSON (`execution_time` in milliseconds). */
export function guardrailResultJson(result: GuardrailResult): GuardrailResultJson {
  return {
    id: result.id,
    verdict: result.verdict,
    deny: result.deny,
    async: result.async,
    execution_time: ms(result.durationMs),
    checks: result.checks.map(checkJson),
  };
}

/** The synchronous results of both phases; async ones finish too late for the response. */
export function hookResults(outcomes: GuardrailOutcomes): HookResults {
  return {
    before_request_hooks: (outcomes.input?.results ?? []).map(guardrailResultJson),
    after_request_hooks: (outcomes.output?.results ?? []).map(guardrailResultJson),
  };
}

const denied = (o: GuardrailOutcomes): boolean => Boolean(o.input?.denied || o.output?.denied);
const failed = (o: GuardrailOutcomes): boolean => o.input?.verdict === false || o.output?.verdict === false;

/**
 * The status to answer: 446 when a guardrail denied; 246 when one failed without deny and the
 * provider answered 2xx (`providerStatus` omitted: it did); otherwise undefined (keep the provider's).
 */
export function guardrailStatus(outcomes: GuardrailOutcomes, providerStatus = 200): number | undefined {
  if (denied(outcomes)) return GUARDRAIL_DENIED_STATUS;
  if (failed(outcomes) && providerStatus >= 200 && providerStatus < 300) return GUARDRAIL_FAILED_STATUS;
  return undefined;
}

/**
 * The body to answer. Denied: the error envelope plus `hook_results` (the provider's body, if any,
 * is dropped). Failed without deny: a JSON-object provider body with `hook_results` added (replacing
 * a `hook_results` key of its own). Undefined when the body stays as it is: everything passed, or the
 * provider's body is not a JSON object (a stream, an array, text).
 */
export function guardrailResponseBody(
  outcomes: GuardrailOutcomes,
  providerBody?: unknown,
): Record<string, unknown> | undefined {
  if (denied(outcomes)) {
    // The gateway's one error envelope (errors.ts), with the checks that failed beside it.
    return {
      ...gatewayError(
        'guardrail_denied',
        'The request was denied by a guardrail; see hook_results for the checks that failed.',
      ).toBody(),
      hook_results: hookResults(outcomes),
    };
  }
  if (!failed(outcomes) || !isJsonObject(providerBody)) return undefined;
  return { ...providerBody, hook_results: hookResults(outcomes) };
}

function isJsonObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
