// JSON Schemas of the `json_schema` guardrail check, compiled by ajv: the config check refuses a schema
// ajv cannot compile, and the gateway validates answers with the same compiled validators (cached).
// Schema `pattern`s are config regexes (RE2, linear time; safe-regex.ts), never `new RegExp`.
import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { type ConfigRegex, compileRegex } from './safe-regex.js';

/** One validation error: a JSON Pointer into the value and a message that names no value. */
export interface JsonSchemaError {
  /** JSON Pointer to the offending value ('' is the whole document). */
  readonly path: string;
  readonly message: string;
}

/** How a validation runs a schema `pattern` (the gateway charges it to its regex budget). */
export type PatternTest = (re: ConfigRegex, subject: string) => boolean;

export type JsonSchemaValidator = (value: unknown, test: PatternTest, limit?: number) => JsonSchemaError[];

export type JsonSchemaVerdict = { readonly ok: true } | { readonly ok: false; readonly message: string };

const DRAFT_2020 = 'https://json-schema.org/draft/2020-12/schema';

// Set for the duration of one synchronous validation: compiled patterns are shared by every run.
let activeTest: PatternTest | undefined;

/** ajv's regex hook: compiled once per pattern, at schema compile time; refused patterns throw. */
const configRegExp = Object.assign(
  (pattern: string) => {
    const re = compileRegex(pattern);
    return {
      test: (subject: string) => (activeTest ? activeTest(re, subject) : re.test(subject)),
      // ajv keys its compiled patterns by this string.
      toString: () => `re2:${pattern}`,
    };
  },
  { code: 'configRegExp' },
);

const OPTIONS: Options = {
  allErrors: true,
  // Unknown keywords and misplaced ones are config errors rather than silently ignored.
  strict: true,
  // Too picky for hand-written schemas (`properties` without `type: object`, tuple `items`).
  strictTypes: false,
  strictTuples: false,
  strictRequired: false,
  // `format` is an annotation here: no format vocabulary is loaded, and none is checked.
  validateFormats: false,
  // Members inherited from a prototype never count as present.
  ownProperties: true,
  // No `loadSchema`: compile() never fetches, so a remote `$ref` is a compile error.
  code: { regExp: configRegExp },
  logger: false,
};

/** Refused schemas answer with their error; compiled ones are shared by every validation. */
type Compiled = { readonly validate: ValidateFunction } | { readonly error: string };

const MAX_CACHED_SCHEMAS = 256;
let engines = newEngines();
const byObject = new WeakMap<object, Compiled>();
const byText = new Map<string, Compiled>();

function newEngines() {
  return { draft7: new Ajv(OPTIONS), draft2020: new Ajv2020(OPTIONS) };
}

function compile(schema: unknown): Compiled {
  const isObject = typeof schema === 'object' && schema !== null;
  const cached = isObject ? byObject.get(schema) : undefined;
  if (cached) return cached;
  const text = JSON.stringify(schema) ?? 'undefined';
  let compiled = byText.get(text);
  if (!compiled) {
    if (byText.size >= MAX_CACHED_SCHEMAS) {
      // Compiled schemas are unregistered, but a fresh instance also drops anything ajv kept.
      byText.clear();
      engines = newEngines();
    }
    compiled = compileFresh(schema);
    byText.set(text, compiled);
  }
  if (isObject) byObject.set(schema, compiled);
  return compiled;
}

function compileFresh(schema: unknown): Compiled {
  if (
    typeof schema !== 'boolean' &&
    (typeof schema !== 'object' || schema === null || Array.isArray(schema))
  ) {
    return { error: 'a schema must be an object or a boolean' };
  }
  const declared = typeof schema === 'object' ? (schema as { $schema?: unknown }).$schema : undefined;
  const ajv = declared === DRAFT_2020 ? engines.draft2020 : engines.draft7;
  try {
    const validate = ajv.compile(schema as object | boolean);
    // Registered while compiling (a root `$ref: "#"` needs that), then dropped: `$id`s must not collide
    // across configs, and ajv must not keep every schema it saw. The validator keeps what it needs.
    if (typeof schema === 'object') ajv.removeSchema(schema);
    return { validate };
  } catch (err) {
    // Whatever a failed compile left registered goes with the instance.
    engines = newEngines();
    return { error: (err as Error).message };
  }
}

/** Whether ajv compiles the schema (draft-07, or 2020-12 when `$schema` says so). */
export function checkJsonSchema(schema: unknown): JsonSchemaVerdict {
  const compiled = compile(schema);
  return 'error' in compiled
    ? { ok: false, message: `is not a usable JSON Schema: ${compiled.error}` }
    : { ok: true };
}

/** The compiled validator of a schema that passed checkJsonSchema (throws with the refusal otherwise). */
export function compileJsonSchema(schema: unknown): JsonSchemaValidator {
  const compiled = compile(schema);
  if ('error' in compiled) throw new Error(`the JSON schema is refused: ${compiled.error}`);
  const { validate } = compiled;
  return (value, test, limit = 10) => {
    activeTest = test;
    try {
      if (validate(value)) return [];
    } finally {
      activeTest = undefined;
    }
    return (validate.errors ?? []).slice(0, limit).map(describeError);
  };
}

const pointer = (path: string, key: string): string =>
  `${path}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`;

/** ajv's message, except that a missing or extra member is reported at its own path. */
function describeError(error: ErrorObject): JsonSchemaError {
  const { instancePath, keyword, params } = error;
  if (keyword === 'required' && typeof params.missingProperty === 'string') {
    return { path: pointer(instancePath, params.missingProperty), message: 'is required' };
  }
  if (keyword === 'additionalProperties' && typeof params.additionalProperty === 'string') {
    return { path: pointer(instancePath, params.additionalProperty), message: 'is not allowed' };
  }
  return { path: instancePath, message: error.message ?? `fails ${keyword}` };
}
