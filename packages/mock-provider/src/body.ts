// Reading request bodies in handlers: the JSON object, typed fields, and message text extraction.
import type { RouteContext } from './context.js';
import { type ErrorStyle, googleError, invalidRequest, openaiError, type ProviderError } from './errors.js';
import { sendError } from './http-io.js';

export type JsonObject = Record<string, unknown>;

function unparsable(style: ErrorStyle): ProviderError {
  const message =
    'We could not parse the JSON body of your request. The API expects a JSON payload, but what was sent was not valid JSON.';
  if (style === 'openai') return openaiError(400, message, 'invalid_request_error');
  if (style === 'google') return googleError(400, 'Invalid JSON payload received.');
  return invalidRequest(style, message);
}

/** The body as a JSON object, or undefined after answering 400 in the route's style. */
export function requireJsonObject(ctx: RouteContext): JsonObject | undefined {
  const value = ctx.record.json;
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as JsonObject;
  sendError(ctx, unparsable(ctx.style));
  return undefined;
}

export function asString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** An integer field within bounds; `invalid` when present but wrong. */
export function intField(value: unknown, min: number, max: number): number | undefined | 'invalid' {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) return 'invalid';
  return value;
}

/**
 * Text of a message `content`: a string, or an array of parts where text parts carry `text`
 * (OpenAI `{type:'text'}`, Anthropic `{type:'text'}`, Bedrock `{text}`, Gemini `{text}`).
 */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) =>
      typeof part === 'object' && part !== null && typeof (part as JsonObject).text === 'string'
        ? ((part as JsonObject).text as string)
        : '',
    )
    .filter((text) => text !== '')
    .join('\n');
}

export interface ChatTurn {
  role: string;
  text: string;
}

/** Turns of a messages array; entries that are not objects are skipped. */
export function chatTurns(messages: unknown, contentKey = 'content'): ChatTurn[] {
  if (!Array.isArray(messages)) return [];
  return messages
    .filter((m): m is JsonObject => typeof m === 'object' && m !== null)
    .map((m) => ({ role: asString(m.role) ?? '', text: contentText(m[contentKey]) }));
}

/** The mock's answer: an echo of the last user turn. */
export function echoOf(turns: readonly ChatTurn[]): string {
  for (let i = turns.length - 1; i >= 0; i--) {
    const turn = turns[i]!;
    if (turn.role === 'user') return turn.text;
  }
  return 'Hello from the mock provider.';
}
