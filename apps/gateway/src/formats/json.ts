// Small readers of untyped JSON shared by the format modules.
import type { Json, UserMessageAt } from './types.js';

/** The part types whose `text` is words: chat parts, Responses input and output parts, bare `{text}`. */
export const TEXT_PARTS: ReadonlySet<string | undefined> = new Set([
  undefined,
  'text',
  'input_text',
  'output_text',
]);

export const obj = (value: unknown): Json | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined;

export const num = (value: unknown): number =>
  typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;

export const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** A text part: a bare string, or `{text}` whose `type` is absent or one of `types`. */
export function partText(part: unknown, types: ReadonlySet<string | undefined>): string | undefined {
  if (typeof part === 'string') return part;
  const o = obj(part);
  if (!o || typeof o.text !== 'string') return undefined;
  return types.has(o.type as string | undefined) ? o.text : undefined;
}

/** Lenient: the text parts of a content (string or part list) joined with LF, others skipped. */
export function contentText(content: unknown, types: ReadonlySet<string | undefined>): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  const texts: string[] = [];
  for (const part of content) {
    const text = partText(part, types);
    if (text !== undefined) texts.push(text);
  }
  return texts.join('\n');
}

/**
 * Strict: the text of a content only when every part is text (a bare `{text}` must have no other
 * key). An image or a tool result changes the answer as much as the words do.
 */
export function onlyText(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content) || content.length === 0) return undefined;
  const texts: string[] = [];
  for (const part of content) {
    const o = obj(part);
    if (!o || typeof o.text !== 'string') return undefined;
    if (o.type === 'text' || (o.type === undefined && Object.keys(o).length === 1)) texts.push(o.text);
    else return undefined;
  }
  return texts.join('\n');
}

/** The last message of `body[list]` whose role is `user`, when its content is text only. */
export function lastUserIn(body: unknown, list: string, field: string): UserMessageAt | undefined {
  const o = obj(body);
  const messages = o?.[list];
  if (!Array.isArray(messages)) return undefined;
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = obj(messages[i]);
    if (message?.role !== 'user') continue;
    const text = onlyText(message[field]);
    if (text === undefined || text.trim() === '') return undefined;
    return { text, list, index: i, field };
  }
  return undefined;
}

const isUser = (message: unknown): boolean => obj(message)?.role === 'user';

/** The text of the last run of consecutive user messages of a list, oldest first, joined with LF. */
export function userTurnIn(
  messages: readonly unknown[],
  field: (message: Json) => unknown,
  types: ReadonlySet<string | undefined>,
): string | undefined {
  let end = messages.length - 1;
  while (end >= 0 && !isUser(messages[end])) end--;
  if (end < 0) return undefined;
  let start = end;
  while (start > 0 && isUser(messages[start - 1])) start--;
  const texts: string[] = [];
  for (let i = start; i <= end; i++) texts.push(contentText(field(messages[i] as Json), types) ?? '');
  return texts.join('\n');
}

/** A body's `model` string field. */
export function bodyModel(request: unknown): string | undefined {
  return str(obj(request)?.model);
}

/** A body's JSON, or undefined when there is none or it does not parse (the caller goes on without it). */
export function jsonOrUndefined(body: Buffer | undefined): unknown {
  if (!body || body.length === 0) return undefined;
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}
