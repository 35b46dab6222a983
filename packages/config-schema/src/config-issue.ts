// One validation problem and the stable issue codes: a leaf module, so the schema modules that
// report issues do not import types.ts (which imports their inferred types back).
/** One validation problem. `path` is a JSON path such as `config.targets[1].weight`. */
export interface ConfigIssue {
  readonly path: string;
  readonly code: ConfigIssueCode;
  readonly message: string;
}

/** Every issue code, stable for programs (docs/config.md explains each). */
export const CONFIG_ISSUE_CODES = [
  'invalid_json',
  'too_large',
  'invalid_type',
  'required',
  'too_small',
  'too_big',
  'invalid_value',
  'invalid_format',
  'invalid_url',
  'unknown_key',
  'unexpected_field',
  'conflicting_fields',
  'empty_config',
  'missing_targets',
  'too_deep',
  'too_many_targets',
  'too_many_nodes',
  'weights_sum_zero',
  'duplicate_name',
  'unknown_target',
  'unreachable_target',
  'cycle',
  'invalid_query',
  'invalid_regex',
  'invalid_json_schema',
  'unsafe_regex',
  'unknown_check',
] as const;

export type ConfigIssueCode = (typeof CONFIG_ISSUE_CODES)[number];
