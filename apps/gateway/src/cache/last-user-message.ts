// The question a semantic cache compares: the text of the last user message of a chat body
// (OpenAI and Anthropic `messages`, Bedrock Converse, Cohere v2, Gemini `contents`), found by the
// formats module; this module takes it out of the body.
import { anyFormat } from '../formats/index.js';

interface Split {
  /** The last user message's text. */
  readonly text: string;
  /** The body with that text taken out: what must match exactly for a semantic hit. */
  readonly rest: unknown;
}

/** The last user message's text and the body without it; undefined when the body has none. */
export function splitLastUserMessage(body: unknown): Split | undefined {
  const at = anyFormat.lastUserMessage(body);
  if (!at) return undefined;
  const record = body as Record<string, unknown>;
  const copy = [...(record[at.list] as unknown[])];
  copy[at.index] = { ...(copy[at.index] as Record<string, unknown>), [at.field]: null };
  return { text: at.text, rest: { ...record, [at.list]: copy } };
}

export function lastUserMessage(body: unknown): string | undefined {
  return splitLastUserMessage(body)?.text;
}
