// The gateway config object: schema, validation and normalisation (shared by gateway and control plane).
export {
  CHECK_CATALOGUE,
  CHECK_IDS_TEXT,
  checkParameters,
  DEFAULT_PARTNER_TIMEOUT_MS,
  DEFAULT_WEBHOOK_TIMEOUT_MS,
  GUARDRAIL_CHECK_IDS,
  type Guardrail,
  type GuardrailAction,
  type GuardrailCheck,
  type GuardrailCheckId,
  type GuardrailCheckParameters,
  type GuardrailFeedback,
  guardrailAction,
  guardrailFeedback,
  PARTNER_CHECK_ID,
  PARTNER_PARAMETERS,
  type PartnerCheckId,
  type PartnerCheckParameters,
  PII_CATEGORIES,
} from './guardrails.schema.js';
export { type InlineCheckList, inlineCheckLists } from './inline-checks.js';
export { formatPath } from './issues.js';
export {
  checkJsonSchema,
  compileJsonSchema,
  type JsonSchemaError,
  type JsonSchemaValidator,
  type JsonSchemaVerdict,
  type PatternTest,
} from './json-schema.js';
export {
  CONFIG_ERROR_CODE,
  configErrorMessage,
  MAX_CONFIG_JSON_LENGTH,
  parseConfig,
  parseConfigJson,
} from './parse-config.js';
export { evaluateCondition } from './query.js';
export { QUERY_OPERATORS } from './query.schema.js';
export {
  type ConfigRegex,
  checkRegex,
  compileRegex,
  isSafeRegex,
  MAX_REGEX_LENGTH,
  MAX_REGEX_PROGRAM_SIZE,
  MAX_REGEX_SUBJECT_LENGTH,
  type RegexRejection,
  type RegexVerdict,
} from './safe-regex.js';
export { describe, describeNode, leaves, nodeAt, pickWeighted, selectConditionalTarget } from './select.js';
export {
  type CacheSettings,
  DEFAULT_CACHE_MAX_AGE_SECONDS,
  DEFAULT_RETRY_STATUS_CODES,
  DEFAULT_SIMILARITY_THRESHOLD,
  LIMITS,
  type RetrySettings,
} from './settings.schema.js';
export { STRATEGY_MODES } from './strategy.schema.js';
export type {
  ConditionalRoute,
  ConditionContext,
  ConditionQuery,
  ConfigIssue,
  ConfigIssueCode,
  ConfigNode,
  ConfigResult,
  EffectiveSettings,
  FieldCondition,
  NormalisedConfig,
  ProviderOptions,
  QueryField,
  QueryValue,
  Strategy,
  StrategyMode,
  TargetRef,
} from './types.js';
export { CONFIG_ISSUE_CODES } from './types.js';
