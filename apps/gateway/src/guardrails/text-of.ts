// The text a guardrail check reads: the user's latest turn on input, the model's answer on output.
import type { GuardrailContext } from './types.js';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const TEXT_PART_TYPES = new Set([undefined, 'text', 'input_text', 'output_text']);

/** A message's content: a string, or the text of its text parts (OpenAI, Anthropic, Bedrock, Gemini). */
function contentText(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  const texts: string[] = [];
  for (const part of content) {
    if (typeof part === 'string') texts.push(part);
    else if (isObject(part) && typeof part.text === 'string' && TEXT_PART_TYPES.has(part.type as string)) {
      texts.push(part.text);
    }
  }
  return texts.join('\n');
}

function messageText(message: Json): string | undefined {
  return contentText(message.content ?? message.parts);
}

/** The last user message and the user messages right before it, oldest first. */
function lastUserTurn(messages: readonly unknown[]): string | undefined {
  let end = messages.length - 1;
  while (end >= 0 && !isUser(messages[end])) end--;
  if (end < 0) return undefined;
  let start = end;
  while (start > 0 && isUser(messages[start - 1])) start--;
  return messages
    .slice(start, end + 1)
    .map((m) => messageText(m as Json) ?? '')
    .join('\n');
}

const isUser = (message: unknown): boolean => isObject(message) && message.role === 'user';

/** `prompt` / `input` as a string or a list of strings; token arrays carry no text. */
function stringOrStrings(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'string')) {
    return value.join('\n');
  }
  return undefined;
}

function inputText(body: unknown): string {
  if (!isObject(body)) return '';
  for (const list of [body.messages, body.contents, body.input]) {
    if (Array.isArray(list) && list.some(isObject)) {
      const turn = lastUserTurn(list);
      if (turn !== undefined) return turn;
    }
  }
  return stringOrStrings(body.prompt) ?? stringOrStrings(body.input) ?? '';
}

function outputText(body: unknown): string | undefined {
  if (!isObject(body)) return undefined;
  if (Array.isArray(body.choices)) {
    return body.choices
      .map((choice) => {
        if (!isObject(choice)) return '';
        if (isObject(choice.message)) return messageText(choice.message) ?? '';
        return typeof choice.text === 'string' ? choice.text : '';
      })
      .join('\n');
  }
  // Anthropic messages: `content` blocks on the body itself.
  if (body.type === 'message' && Array.isArray(body.content)) return contentText(body.content);
  // OpenAI Responses: `output` items of type message.
  if (Array.isArray(body.output)) {
    return body.output
      .filter((item): item is Json => isObject(item) && item.type === 'message')
      .map((item) => contentText(item.content) ?? '')
      .join('\n');
  }
  // Bedrock Converse.
  if (isObject(body.output) && isObject(body.output.message)) return messageText(body.output.message);
  // Gemini.
  if (Array.isArray(body.candidates)) {
    return body.candidates
      .map((c) => (isObject(c) && isObject(c.content) ? messageText(c.content) : ''))
      .join('\n');
  }
  // Legacy Anthropic completions.
  return typeof body.completion === 'string' ? body.completion : undefined;
}

/**
 * Input: the latest user turn of a chat (OpenAI, Anthropic, Bedrock `messages`, Gemini `contents`,
 * Responses `input` items), else a completions `prompt` or an embeddings / Responses `input` string
 * or string list, else ''. Output: the assistant text of a known response shape, else the raw body.
 */
export function textOf(ctx: GuardrailContext): string {
  if (ctx.phase === 'input') return inputText(ctx.requestJson);
  return outputText(ctx.responseJson) ?? ctx.responseText ?? '';
}
