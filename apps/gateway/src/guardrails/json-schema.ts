// The `json_schema` check's validation: the config package's ajv-compiled validator (compiled once
// per schema, cached), with schema `pattern`s charged to the run's regex budget. Messages name paths,
// never values.
import { compileJsonSchema, type JsonSchemaError } from '@aigw/config-schema';
import type { RegexRunner } from './regex-budget.js';

export type SchemaError = JsonSchemaError;

/**
 * Errors of `value` against `schema`, at most `limit` of them (empty: valid). Throws when the schema
 * is refused (a config that skipped the control plane's check) or a pattern search hits the budget.
 */
export function validateJsonSchema(
  value: unknown,
  schema: unknown,
  regex: RegexRunner,
  limit = 10,
): SchemaError[] {
  return compileJsonSchema(schema)(value, (re, subject) => regex.test(re, subject), limit);
}
