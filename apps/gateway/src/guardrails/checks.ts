// The built-in checks of the catalogue (CHECK_CATALOGUE in @aigw/config-schema) and third-party
// `partner.<name>` checks: each reads the context and its parameters and gives a verdict, an
// explanation and data safe to show the client.
import {
  type ConfigRegex,
  compileRegex,
  type GuardrailCheck,
  type GuardrailCheckParameters,
  type PartnerCheckId,
  type PartnerCheckParameters,
} from '@aigw/config-schema';
import { validateJsonSchema } from './json-schema.js';
import { detectPii } from './pii.js';
import type { RegexRunner } from './regex-budget.js';
import type { GuardrailContext, WebhookCaller, WebhookPayload } from './types.js';

export interface CheckVerdict {
  readonly verdict: boolean;
  readonly explanation: string;
  readonly data?: unknown;
  readonly error?: string;
}

/** What a check may use besides its parameters; `text` is textOf(ctx), computed once per run. */
export interface CheckEnv {
  readonly ctx: GuardrailContext;
  readonly text: () => string;
  readonly regex: RegexRunner;
  readonly webhook: WebhookCaller;
}

type Params<K extends keyof GuardrailCheckParameters> = GuardrailCheckParameters[K];

const regexes = new Map<string, ConfigRegex>();

function compiled(pattern: string): ConfigRegex {
  let re = regexes.get(pattern);
  if (!re) {
    re = compileRegex(pattern);
    if (regexes.size >= 256) regexes.clear();
    regexes.set(pattern, re);
  }
  return re;
}

function regexMatch(p: Params<'regex_match'>, env: CheckEnv): CheckVerdict {
  const matched = env.regex.test(compiled(p.pattern), env.text());
  const verdict = p.not ? !matched : matched;
  return {
    verdict,
    explanation: `the text ${matched ? 'matches' : 'does not match'} the pattern`,
    data: { matched },
  };
}

function wordsFound(p: Params<'contains'>, env: CheckEnv): { found: string[]; verdict: boolean } {
  const text = env.text().toLowerCase();
  const found = p.words.filter((word) => text.includes(word.toLowerCase()));
  const verdict = {
    any: found.length > 0,
    all: found.length === p.words.length,
    none: found.length === 0,
  }[p.operator];
  return { found, verdict };
}

function contains(p: Params<'contains'>, env: CheckEnv, negate: boolean): CheckVerdict {
  const { found, verdict } = wordsFound(p, env);
  const pass = negate ? !verdict : verdict;
  const explanation = `${found.length} of ${p.words.length} words found (operator ${p.operator}${negate ? ', negated' : ''})`;
  return { verdict: pass, explanation, data: { found } };
}

function range(count: number, p: Params<'word_count'>, unit: string): CheckVerdict {
  const verdict = (p.min === undefined || count >= p.min) && (p.max === undefined || count <= p.max);
  const bounds = [p.min !== undefined && `at least ${p.min}`, p.max !== undefined && `at most ${p.max}`]
    .filter(Boolean)
    .join(' and ');
  return { verdict, explanation: `${count} ${unit}, ${verdict ? '' : 'not '}${bounds}`, data: { count } };
}

const countWords = (text: string): number => text.split(/\s+/u).filter((w) => w !== '').length;
const countChars = (text: string): number => [...text].length;

/** The text as JSON: the whole text, or the body of a single fenced code block (```json ... ```). */
export function parseJsonText(text: string): { ok: true; value: unknown } | { ok: false } {
  const trimmed = text.trim();
  for (const candidate of [trimmed, /^```[\w-]*\n([\s\S]*)\n```$/.exec(trimmed)?.[1]]) {
    if (candidate === undefined) continue;
    try {
      return { ok: true, value: JSON.parse(candidate) };
    } catch {
      // JSON.parse messages quote the text, which may hold PII: only the verdict is reported.
    }
  }
  return { ok: false };
}

function validJson(env: CheckEnv): CheckVerdict {
  const parsed = parseJsonText(env.text());
  return { verdict: parsed.ok, explanation: `the text is ${parsed.ok ? '' : 'not '}valid JSON` };
}

function jsonSchema(p: Params<'json_schema'>, env: CheckEnv): CheckVerdict {
  const parsed = parseJsonText(env.text());
  if (!parsed.ok) return { verdict: false, explanation: 'the text is not valid JSON' };
  const errors = validateJsonSchema(parsed.value, p.schema, env.regex);
  return errors.length === 0
    ? { verdict: true, explanation: 'the JSON matches the schema' }
    : { verdict: false, explanation: 'the JSON does not match the schema', data: { errors } };
}

function pii(p: Params<'pii'>, env: CheckEnv): CheckVerdict {
  const counts = detectPii(env.text(), p.categories);
  const categories = Object.keys(counts);
  return categories.length === 0
    ? { verdict: true, explanation: 'no PII found' }
    : { verdict: false, explanation: `PII found: ${categories.join(', ')}`, data: { categories, counts } };
}

function requestModel(ctx: GuardrailContext): string | undefined {
  if (ctx.model !== undefined) return ctx.model;
  const body = ctx.requestJson as { model?: unknown } | null | undefined;
  return typeof body === 'object' && body !== null && typeof body.model === 'string' ? body.model : undefined;
}

function modelAllowlist(p: Params<'model_allowlist'>, env: CheckEnv): CheckVerdict {
  const model = requestModel(env.ctx);
  if (model === undefined) return { verdict: false, explanation: 'the request names no model' };
  const verdict = p.models.includes(model);
  return { verdict, explanation: `model ${model} is ${verdict ? '' : 'not '}allowed`, data: { model } };
}

function requiredMetadataKeys(p: Params<'required_metadata_keys'>, env: CheckEnv): CheckVerdict {
  const missing = p.keys.filter((key) => !Object.hasOwn(env.ctx.metadata, key));
  return missing.length === 0
    ? { verdict: true, explanation: 'every required metadata key is present' }
    : { verdict: false, explanation: `missing metadata keys: ${missing.join(', ')}`, data: { missing } };
}

/** What a webhook receives: the phase, the request, the answer (output phase) and the metadata. */
function webhookPayload(ctx: GuardrailContext): WebhookPayload {
  const response = ctx.responseJson !== undefined ? ctx.responseJson : ctx.responseText;
  return {
    phase: ctx.phase,
    request: ctx.requestJson,
    ...(ctx.phase === 'output' && { response }),
    metadata: ctx.metadata,
  };
}

/** `who` names the callee in explanations: `the webhook`, `the acme partner`. */
async function call(
  p: Params<'webhook'>,
  payload: WebhookPayload,
  env: CheckEnv,
  who: string,
): Promise<CheckVerdict> {
  const answer = await env.webhook({
    url: p.url,
    headers: p.headers,
    timeoutMs: p.timeout,
    payload,
    callee: who,
  });
  if (answer.error !== undefined) {
    return { verdict: false, explanation: `${who} call failed`, error: answer.error };
  }
  return {
    verdict: answer.verdict,
    explanation: `${who} ${answer.verdict ? 'passed' : 'failed'} the request`,
    ...(answer.data !== undefined && { data: answer.data }),
  };
}

const webhook = (p: Params<'webhook'>, env: CheckEnv) => call(p, webhookPayload(env.ctx), env, 'the webhook');

/**
 * A third-party check (`partner.<name>`): the webhook check's call through the same caller, its body
 * carrying the partner's name and `policyId` besides; the answer is read as a webhook's.
 */
function partnerCheck(id: PartnerCheckId, p: PartnerCheckParameters, env: CheckEnv): Promise<CheckVerdict> {
  const partner = id.slice('partner.'.length);
  const payload = { ...webhookPayload(env.ctx), partner, policyId: p.policyId };
  return call(p, payload, env, `the ${partner} partner`);
}

/** Runs one check. May throw (a bug, a refused schema pattern, a spent regex budget): the caller fails it. */
export function runCheck(check: GuardrailCheck, env: CheckEnv): CheckVerdict | Promise<CheckVerdict> {
  switch (check.id) {
    case 'regex_match':
      return regexMatch(check.parameters, env);
    case 'contains':
      return contains(check.parameters, env, false);
    case 'not_contains':
      return contains(check.parameters, env, true);
    case 'word_count':
      return range(countWords(env.text()), check.parameters, 'words');
    case 'character_count':
      return range(countChars(env.text()), check.parameters, 'characters');
    case 'valid_json':
      return validJson(env);
    case 'json_schema':
      return jsonSchema(check.parameters, env);
    case 'pii':
      return pii(check.parameters, env);
    case 'model_allowlist':
      return modelAllowlist(check.parameters, env);
    case 'required_metadata_keys':
      return requiredMetadataKeys(check.parameters, env);
    case 'webhook':
      return webhook(check.parameters, env);
    default:
      return partnerCheck(check.id, check.parameters, env);
  }
}
