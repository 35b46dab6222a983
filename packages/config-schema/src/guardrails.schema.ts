// Input/output guardrails: saved guardrail ids or inline guardrails built from the built-in check
// catalogue and third-party `partner.<name>` checks.
import { z } from 'zod';
import { headerName, httpUrl, slug } from './formats.js';
import { describeType, type IssueSink, isPlainObject, type Segment } from './issues.js';
import { jsonDataProblem, jsonObject } from './json-data.js';
import { checkJsonSchema } from './json-schema.js';
import { checkRegex } from './safe-regex.js';
import { validateWith } from './zod-issues.js';

export const PII_CATEGORIES = ['email', 'phone', 'credit_card', 'iban', 'ip_address'] as const;
export const MAX_GUARDRAILS = 20;
export const MAX_CHECKS = 20;
/** Spec part 8: a third-party guardrail call times out after 10 s unless told otherwise. */
export const DEFAULT_WEBHOOK_TIMEOUT_MS = 10_000;

/** A JSON Schema that ajv compiles with the gateway's options (json-schema.ts). */
const usableJsonSchema = jsonObject.superRefine((schema, ctx) => {
  // Data that is not plain JSON of bounded depth was reported already, and is not compiled.
  if (jsonDataProblem(schema) !== undefined) return;
  const verdict = checkJsonSchema(schema);
  if (!verdict.ok)
    ctx.addIssue({ code: 'custom', message: verdict.message, params: { code: 'invalid_json_schema' } });
});

/** A pattern that RE2 runs within the size limit (safe-regex.ts). */
export const safePattern = z.string().superRefine((pattern, ctx) => {
  const verdict = checkRegex(pattern);
  if (verdict.safe) return;
  const code = verdict.reason === 'syntax' ? 'invalid_regex' : 'unsafe_regex';
  ctx.addIssue({ code: 'custom', message: verdict.message, params: { code } });
});

const words = z.strictObject({
  words: z.array(z.string().min(1)).min(1).max(1000),
  operator: z.enum(['any', 'all', 'none']).default('any'),
});

const countRange = z
  .strictObject({ min: z.int().min(0).optional(), max: z.int().min(0).optional() })
  .superRefine((range, ctx) => {
    if (range.min === undefined && range.max === undefined) {
      ctx.addIssue({ code: 'custom', message: 'needs min, max or both', params: { code: 'required' } });
    } else if (range.min !== undefined && range.max !== undefined && range.min > range.max) {
      ctx.addIssue({
        code: 'custom',
        path: ['min'],
        message: 'must not be greater than max',
        params: { code: 'conflicting_fields' },
      });
    }
  });

const nonEmptyList = (max: number) => z.array(z.string().min(1).max(256)).min(1).max(max);

/** A call's time bound in ms, `fallback` when absent. */
const timeoutMs = (fallback: number) => z.int().min(1).max(60_000).default(fallback);

/** The `webhook` check's parameters; third-party checks have them too (PARTNER_PARAMETERS). */
const webhookFields = {
  url: httpUrl(true),
  headers: z
    // What Node sends as a header value (tab, printable ASCII, Latin-1): anything else, CR/LF above
    // all, would fail every call at the gateway (ERR_INVALID_CHAR), so the admin API refuses it.
    .record(
      headerName,
      z
        .string()
        .regex(
          /^[\t\x20-\x7e\x80-\xff]*$/,
          'must be an HTTP header value: no line breaks or control characters, Latin-1 only',
        ),
    )
    .default({}),
  timeout: timeoutMs(DEFAULT_WEBHOOK_TIMEOUT_MS),
};

const webhookParameters = z.strictObject(webhookFields);

/** `partner.<name>`: a third-party guardrail (spec part 8), called through the webhook caller. */
export const PARTNER_CHECK_ID = /^partner\.[a-z0-9][a-z0-9_-]{0,63}$/;
export type PartnerCheckId = `partner.${string}`;

/** Spec part 8: a third-party guardrail's `timeout` defaults to 10000 ms (its own, not the webhook's). */
export const DEFAULT_PARTNER_TIMEOUT_MS = 10_000;

const CONTROL = /\p{Cc}/u;

/** A third-party check's parameters: the webhook check's (url, headers, timeout) and a required policy. */
export const PARTNER_PARAMETERS = z.strictObject({
  ...webhookFields,
  timeout: timeoutMs(DEFAULT_PARTNER_TIMEOUT_MS),
  policyId: z
    .string()
    .min(1)
    .max(256)
    .refine((s) => !CONTROL.test(s), 'must not contain control characters'),
});

/** The built-in checks and the shape of their `parameters` (defaults filled in). */
export const CHECK_CATALOGUE = {
  regex_match: z.strictObject({ pattern: safePattern, not: z.boolean().default(false) }),
  contains: words,
  not_contains: words,
  word_count: countRange,
  character_count: countRange,
  json_schema: z.strictObject({ schema: usableJsonSchema }),
  valid_json: z.strictObject({}),
  pii: z
    .strictObject({ categories: z.array(z.enum(PII_CATEGORIES)).min(1).optional() })
    .transform((p) => ({ categories: p.categories ? [...new Set(p.categories)] : [...PII_CATEGORIES] })),
  model_allowlist: z.strictObject({ models: nonEmptyList(1000) }),
  required_metadata_keys: z.strictObject({ keys: nonEmptyList(64) }),
  webhook: webhookParameters,
} as const;

export type GuardrailCheckId = keyof typeof CHECK_CATALOGUE;
export const GUARDRAIL_CHECK_IDS = Object.keys(CHECK_CATALOGUE) as GuardrailCheckId[];
export type GuardrailCheckParameters = {
  readonly [K in GuardrailCheckId]: z.output<(typeof CHECK_CATALOGUE)[K]>;
};
export type PartnerCheckParameters = z.output<typeof PARTNER_PARAMETERS>;
export type GuardrailCheck =
  | {
      readonly [K in GuardrailCheckId]: { readonly id: K; readonly parameters: GuardrailCheckParameters[K] };
    }[GuardrailCheckId]
  | { readonly id: PartnerCheckId; readonly parameters: PartnerCheckParameters };

/**
 * The schema of a check's `parameters` by its id: a catalogue check's, or PARTNER_PARAMETERS for a
 * `partner.<name>` check; undefined for an id no guardrail accepts. The one dispatch on check ids,
 * for inline guardrails (parseCheck) and saved ones (the control plane).
 */
export function checkParameters(id: string): z.ZodType | undefined {
  if (PARTNER_CHECK_ID.test(id)) return PARTNER_PARAMETERS;
  return Object.hasOwn(CHECK_CATALOGUE, id) ? CHECK_CATALOGUE[id as GuardrailCheckId] : undefined;
}

/** Every check id a guardrail accepts, for messages. */
export const CHECK_IDS_TEXT = `${GUARDRAIL_CHECK_IDS.map((id) => `"${id}"`).join(', ')} or "partner.<name>"`;

/** A feedback score an outcome action records on the request's trace (guardrailFeedback below). */
export type GuardrailFeedback = Readonly<z.output<typeof guardrailFeedback>>;

/** What a guardrail does on one outcome (`on_fail`, `on_success`) besides passing or denying. */
export interface GuardrailAction {
  readonly feedback?: GuardrailFeedback;
}

export type Guardrail =
  /** A guardrail saved in the control plane, by id or slug. */
  | { readonly type: 'ref'; readonly id: string }
  | {
      readonly type: 'inline';
      readonly id?: string;
      readonly checks: readonly GuardrailCheck[];
      /** A failed check answers 446 instead of passing the request on (246). */
      readonly deny: boolean;
      /** Runs without holding the request; it can report, never deny. */
      readonly async: boolean;
      /** When a check fails; absent when nothing is to be done. */
      readonly on_fail?: GuardrailAction;
      /** When every check passes; absent when nothing is to be done. */
      readonly on_success?: GuardrailAction;
    };

/** The feedback family's range, for inline and saved guardrails alike (the control plane uses it). */
export const guardrailFeedback = z.strictObject({
  /** An integer from -10 to 10. */
  value: z.int().min(-10).max(10),
  /** From 0 to 1 (default 1). */
  weight: z.number().min(0).max(1).default(1),
});

export const guardrailAction = z.strictObject({ feedback: guardrailFeedback.optional() });

const inlineGuardrail = z.strictObject({
  id: slug.optional(),
  checks: z.array(z.unknown()).min(1).max(MAX_CHECKS),
  deny: z.boolean().default(false),
  async: z.boolean().default(false),
  on_fail: guardrailAction.optional(),
  on_success: guardrailAction.optional(),
});

const checkShape = z.strictObject({ id: z.string(), parameters: z.unknown().optional() });

/** Validate an `input_guardrails` / `output_guardrails` list at `base`. */
export function parseGuardrails(
  value: unknown,
  base: readonly Segment[],
  sink: IssueSink,
): Guardrail[] | undefined {
  const list = validateWith(z.array(z.unknown()).max(MAX_GUARDRAILS), value, base, sink);
  if (!list) return undefined;
  const before = sink.size;
  const out: Guardrail[] = [];
  list.forEach((item, i) => {
    const guardrail = parseGuardrail(item, [...base, i], sink);
    if (guardrail) out.push(guardrail);
  });
  return sink.size === before ? out : undefined;
}

function parseGuardrail(item: unknown, at: readonly Segment[], sink: IssueSink): Guardrail | undefined {
  if (typeof item === 'string') {
    const id = validateWith(slug, item, at, sink);
    return id === undefined ? undefined : { type: 'ref', id };
  }
  if (!isPlainObject(item)) {
    sink.add(at, 'invalid_type', `must be a guardrail id or a guardrail object, got ${describeType(item)}`);
    return undefined;
  }
  const raw = validateWith(inlineGuardrail, item, at, sink);
  if (!raw) return undefined;
  if (raw.async && raw.deny) {
    sink.add(
      [...at, 'async'],
      'conflicting_fields',
      'an async guardrail cannot deny: it does not hold the request',
    );
  }
  const checks: GuardrailCheck[] = [];
  raw.checks.forEach((check, i) => {
    const parsed = parseCheck(check, [...at, 'checks', i], sink);
    if (parsed) checks.push(parsed);
  });
  if (checks.length !== raw.checks.length || (raw.async && raw.deny)) return undefined;
  return {
    type: 'inline',
    ...(raw.id !== undefined && { id: raw.id }),
    checks,
    deny: raw.deny,
    async: raw.async,
    // Only an action that does something is kept: the engine reads these on every run.
    ...(raw.on_fail?.feedback && { on_fail: { feedback: raw.on_fail.feedback } }),
    ...(raw.on_success?.feedback && { on_success: { feedback: raw.on_success.feedback } }),
  };
}

function parseCheck(value: unknown, at: readonly Segment[], sink: IssueSink): GuardrailCheck | undefined {
  const check = validateWith(checkShape, value, at, sink);
  if (!check) return undefined;
  const schema = checkParameters(check.id);
  if (!schema) {
    sink.add([...at, 'id'], 'unknown_check', `must be one of ${CHECK_IDS_TEXT}`);
    return undefined;
  }
  const parameters = validateWith(schema, check.parameters ?? {}, [...at, 'parameters'], sink);
  return parameters === undefined ? undefined : ({ id: check.id, parameters } as GuardrailCheck);
}
