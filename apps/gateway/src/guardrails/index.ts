// Public surface of the guardrail engine (see docs/guardrails.md).
export { type CheckVerdict, parseJsonText } from './checks.js';
export { ibanValid, luhnValid } from './checksums.js';
export { type SchemaError, validateJsonSchema } from './json-schema.js';
export { detectPii, type PiiCategory } from './pii.js';
export {
  createRegexRunner,
  DEFAULT_REGEX_BUDGET_MS,
  MAX_GUARDRAIL_REGEX_SUBJECT_LENGTH,
  RegexLimitError,
  type RegexRunner,
} from './regex-budget.js';
export {
  type CheckResultJson,
  GUARDRAIL_DENIED_HEADERS,
  GUARDRAIL_DENIED_STATUS,
  GUARDRAIL_FAILED_STATUS,
  type GuardrailOutcomes,
  type GuardrailResultJson,
  guardrailResponseBody,
  guardrailResultJson,
  guardrailStatus,
  type HookResults,
  hookResults,
} from './response-body.js';
export {
  createGuardrailRunner,
  GUARDRAILS_PASSED,
  type GuardrailDeps,
  isGuardrailRunnerDisabled,
  runGuardrails,
} from './run-guardrails.js';
export { textOf } from './text-of.js';
export type {
  CheckedWebhookHost,
  CheckResult,
  GuardrailContext,
  GuardrailOutcome,
  GuardrailPhase,
  GuardrailResult,
  WebhookAnswer,
  WebhookCall,
  WebhookCaller,
  WebhookPayload,
} from './types.js';
export {
  createWebhookCaller,
  DEFAULT_WEBHOOK_MAX_RESPONSE_BYTES,
  type WebhookCallerDeps,
} from './webhook.js';
export { createWebhookHostCheck, type WebhookHostOptions } from './webhook-host.js';
