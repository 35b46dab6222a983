// The guardrail engine's data: what a check looks at, what a check and a guardrail report.
import type { LookupFunction } from 'node:net';
import type { GuardrailFeedback } from '@aigw/config-schema';

export type GuardrailPhase = 'input' | 'output';

export interface GuardrailContext {
  readonly phase: GuardrailPhase;
  /** The parsed request body (undefined when it is not JSON). */
  readonly requestJson: unknown;
  /** Output phase: the parsed provider body, when it is JSON. */
  readonly responseJson?: unknown;
  /** Output phase: the provider body as text (or a stream's concatenated content). */
  readonly responseText?: string;
  readonly metadata: Readonly<Record<string, string>>;
  /** The model the request names; falls back to the request body's `model`. */
  readonly model?: string;
  readonly provider: string;
}

export interface CheckResult {
  readonly id: string;
  /** True when the check passed. A check that errored did not pass. */
  readonly verdict: boolean;
  readonly explanation: string;
  readonly data?: unknown;
  readonly durationMs: number;
  readonly error?: string;
}

export interface GuardrailResult {
  /** The guardrail's `id`, or its place in the list (`input_guardrails[0]`). */
  readonly id: string;
  readonly verdict: boolean;
  /** Whether a failure of this guardrail denies the request (never for async ones). */
  readonly deny: boolean;
  readonly async: boolean;
  readonly checks: readonly CheckResult[];
  readonly durationMs: number;
  /**
   * The feedback of the action for this outcome (`on_success` when verdict is true, `on_fail` when
   * false), recorded by the logger on the request's trace; absent when that action has none.
   */
  readonly feedback?: GuardrailFeedback;
}

export interface GuardrailOutcome {
  /** Every synchronous guardrail passed. */
  readonly verdict: boolean;
  /** A failing synchronous guardrail has `deny`: answer 446. */
  readonly denied: boolean;
  /** Synchronous guardrails, in list order. */
  readonly results: readonly GuardrailResult[];
  /** Async guardrails' results once they finish; absent when there are none. Never rejects. */
  readonly asyncResults?: Promise<readonly GuardrailResult[]>;
}

/** What the webhook check POSTs (JSON); a `partner.<name>` check adds `partner` and `policyId`. */
export interface WebhookPayload {
  readonly phase: GuardrailPhase;
  readonly request: unknown;
  readonly response?: unknown;
  readonly metadata: Readonly<Record<string, string>>;
  /** Third-party checks: `<name>` of `partner.<name>`. */
  readonly partner?: string;
  /** Third-party checks: the partner-side policy to apply. */
  readonly policyId?: string;
}

export interface WebhookCall {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  readonly payload: WebhookPayload;
  /** Who is called, as errors name it: `the webhook` (default), `the acme partner`. */
  readonly callee?: string;
}

/** A webhook's answer; `error` set means the call failed and `verdict` is false (fail closed). */
export interface WebhookAnswer {
  readonly verdict: boolean;
  readonly data?: unknown;
  readonly error?: string;
}

/** Calls a guardrail webhook; resolves (never rejects) with its verdict. */
export type WebhookCaller = (call: WebhookCall) => Promise<WebhookAnswer>;

/** A webhook URL that passed the SSRF check, with a lookup that answers only the checked addresses. */
export interface CheckedWebhookHost {
  readonly url: URL;
  readonly lookup: LookupFunction;
}
