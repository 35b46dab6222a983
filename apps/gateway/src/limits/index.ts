// Public surface of the limits engine (issue 7 items 5 and 6), for the request pipeline.
//
// Wiring, once per process:
//   const limits = createLimits({ redis, log, registry: metrics.registry, config, instanceId,
//     publishAlert: (event) => publish ALERTS_SUBJECT, UsageAlertEvent.encode(event), msgID event.id });
// Per request, after authentication and target resolution, before the cache and the upstream call:
//   const admission = await limits.admit(snapshot, subject, { maxTokens, inputTokensGuess });
//     -> throws the gateway error (412 `<kind>_usage_limit_exhausted`, 429 `<kind>_rate_limited` or
//        `usage_limit_in_flight`, with `retry-after` and `x-ratelimit-*` headers): render it as is.
//   set admission.headers on the response; if admission.degraded add `x-service-limits-degraded: true`.
// After the response (stream included), exactly once, on success and failure alike:
//   void admission.settle({ inputTokens, outputTokens, cachedInputTokens, model, provider })
//   or admission.settle(undefined) when the call produced no usage (only releases reservations).
// `subject` (LimitSubject): the request's organisation, workspace, API key id, provider (the `@slug`
// without `@`, else the provider type) and providerType, model, config id/slug, virtual key id/slug,
// merged metadata, and the snapshot entities whose own limits apply (apiKey, workspace,
// providerEntity, integration, virtualKey, integrationWorkspace). See docs/limits.md.
export { alertId } from './alerts.js';

export { requestCost } from './charges.js';
export { groupValue, matchesAll, valuesOf, WILDCARD } from './conditions.js';
export {
  type ActualUsage,
  type Admission,
  createLimits,
  type Limits,
  type LimitsConfig,
  type LimitsDeps,
  type RequestEstimate,
} from './limits.js';
export { type Period, type PeriodSpec, periodAt } from './periods.js';
export {
  admissionHeaders,
  LIMITS_DEGRADED_HEADER,
  requestEstimate,
  usageOf,
} from './request-usage.js';
export type { IntegrationWorkspaceLimits, LimitSubject } from './subject.js';
