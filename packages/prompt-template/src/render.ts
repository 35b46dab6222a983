// Renders a prompt's template into chat messages: variables (given over defaults), partials by name,
// no HTML escaping (the output is a model's input, not a web page). Missing required variables are one
// error naming all of them.
import Mustache from 'mustache';
import type { PartialLookup } from './partial-graph.js';
import { TemplateError } from './template-error.js';
import { type TemplateMessage, templateMessages } from './template-messages.js';
import { templateRefs } from './template-tokens.js';

export type Variables = Readonly<Record<string, unknown>>;

/** Includes deeper than this are refused even if a loop slipped past the save-time check. */
const MAX_DEPTH = 32;

/** Variables read at top level by the texts and the partials they include (top level too). */
export function requiredVariables(texts: readonly string[], lookup: PartialLookup): string[] {
  const out = new Set<string>();
  const seen = new Set<string>();
  const walk = (text: string, depth: number) => {
    if (depth > MAX_DEPTH) throw new TemplateError('partial_cycle', 'partials are included too deeply');
    const refs = templateRefs(text);
    for (const name of refs.required) out.add(name);
    for (const partial of refs.partials) {
      if (seen.has(partial)) continue;
      seen.add(partial);
      const inner = lookup(partial);
      if (inner === undefined) {
        throw new TemplateError('unknown_partial', `the template includes an unknown partial "${partial}"`, [
          partial,
        ]);
      }
      walk(inner, depth + 1);
    }
  };
  for (const text of texts) walk(text, 0);
  return [...out];
}

export interface RenderInput {
  /** The version's `string` (text, or a JSON message array). */
  readonly template: string;
  /** Defaults of the version's variables. */
  readonly defaults?: Variables;
  /** The caller's variables; they win over defaults. */
  readonly variables?: Variables;
  readonly partials: PartialLookup;
}

/** The rendered messages; `missing_variables` names every required variable neither given nor defaulted. */
export function renderMessages(input: RenderInput): TemplateMessage[] {
  const messages = templateMessages(input.template);
  const view = detached({ ...(input.defaults ?? {}), ...(input.variables ?? {}) }) as Record<string, unknown>;
  const required = requiredVariables(
    messages.map((m) => m.content),
    input.partials,
  );
  const missing = required.filter((name) => view[name] === undefined || view[name] === null).sort();
  if (missing.length > 0) {
    throw new TemplateError(
      'missing_variables',
      `missing required variables: ${missing.join(', ')}`,
      missing,
    );
  }
  const partial = (name: string) => input.partials(name) ?? '';
  return messages.map((m) => ({
    role: m.role,
    content: Mustache.render(m.content, view, partial, { escape: (value: unknown) => String(value) }),
  }));
}

/**
 * A copy of JSON variables without prototypes. Mustache resolves a name with `in` and calls what it
 * finds, so on plain objects `{{constructor}}` or `{{o.__defineGetter__}}` reached (and called)
 * Object.prototype's members: wrong output, or a TypeError for a template any prompt editor can
 * save. Without prototypes those names are just variables; objects and arrays still print as before.
 */
function detached(value: unknown): unknown {
  if (Array.isArray(value)) {
    const list = Object.setPrototypeOf(value.map(detached), null) as unknown[];
    return printable(list, () => Array.prototype.join.call(list, ','));
  }
  if (value !== null && typeof value === 'object') {
    const record = Object.create(null) as Record<string, unknown>;
    for (const [key, inner] of Object.entries(value)) record[key] = detached(inner);
    return printable(record, () => '[object Object]');
  }
  return value;
}

/** String(value) needs a prototype or Symbol.toPrimitive; a symbol is out of a template's reach. */
function printable<T extends object>(value: T, text: () => string): T {
  return Object.defineProperty(value, Symbol.toPrimitive, { value: text, enumerable: false });
}
