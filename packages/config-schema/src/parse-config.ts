// Entry points: parse a config object or its JSON text into a normalised, frozen tree, or into issues.
import { IssueSink } from './issues.js';
import { resolveRouting } from './routing.js';
import { buildTree } from './tree.js';
import type { ConfigIssue, ConfigResult } from './types.js';

/** The admin API's code for a validation failure (docs/errors.md); the gateway answers 400. */
export const CONFIG_ERROR_CODE = 'AB01';
/** Larger JSON texts are refused before parsing (headers are far smaller; this bounds saved configs). */
export const MAX_CONFIG_JSON_LENGTH = 1_048_576;

export function parseConfig(input: unknown): ConfigResult {
  const sink = new IssueSink();
  const tree = buildTree(input, sink);
  const config = tree && resolveRouting(tree, sink);
  if (!config || sink.size > 0) return { ok: false, errors: sink.sorted() };
  return { ok: true, config: deepFreeze(config) };
}

/** Parse JSON text (an `x-service-config` header, a saved config); bad JSON is an issue at `config`. */
export function parseConfigJson(text: string): ConfigResult {
  if (text.length > MAX_CONFIG_JSON_LENGTH) {
    return failure('too_large', `is longer than ${MAX_CONFIG_JSON_LENGTH} characters`);
  }
  let input: unknown;
  try {
    input = JSON.parse(text);
  } catch (err) {
    // The parser's message quotes the text, which may hold credentials: keep the position only.
    const position = /position (\d+)/.exec((err as Error).message)?.[1];
    return failure(
      'invalid_json',
      `is not valid JSON${position === undefined ? '' : ` (at position ${position})`}`,
    );
  }
  return parseConfig(input);
}

function failure(code: ConfigIssue['code'], text: string): ConfigResult {
  return { ok: false, errors: [{ path: 'config', code, message: `config: ${text}` }] };
}

/** One line for a 400 body: the first `max` issues (each names its path) and how many more there are. */
export function configErrorMessage(errors: readonly ConfigIssue[], max = 3): string {
  if (errors.length === 0) return 'Invalid config';
  const shown = errors.slice(0, max).map((issue) => issue.message);
  const more = errors.length - shown.length;
  return `Invalid config: ${shown.join('; ')}${more > 0 ? ` (and ${more} more)` : ''}`;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
