// OpenAI's wire format (also every OpenAI-compatible provider): chat completions, completions,
// embeddings and the Responses API, as JSON answers and as `data:` stream events.
import { bodyModel, contentText, lastUserIn, num, obj, str, TEXT_PARTS, userTurnIn } from './json.js';
import type { Json, UsagePart, WireFormat } from './types.js';

/** `usage` of chat / completions / embeddings (`prompt_tokens`) or Responses (`input_tokens`). */
function usage(body: Json): UsagePart | undefined {
  const u = obj(body.usage);
  if (u) {
    if ('prompt_tokens' in u || 'completion_tokens' in u) {
      return {
        inputTokens: num(u.prompt_tokens),
        outputTokens: num(u.completion_tokens),
        totalTokens: num(u.total_tokens),
        cachedInputTokens: num(obj(u.prompt_tokens_details)?.cached_tokens),
      };
    }
    // Responses: input_tokens includes the cached ones (input_tokens_details), unlike Anthropic's
    // (whose cache counts sit beside it: that usage is Anthropic's, see anthropic.ts).
    if (
      ('input_tokens' in u || 'output_tokens' in u) &&
      !('cache_read_input_tokens' in u || 'cache_creation_input_tokens' in u)
    ) {
      return {
        inputTokens: num(u.input_tokens),
        outputTokens: num(u.output_tokens),
        totalTokens: num(u.total_tokens),
        cachedInputTokens: num(obj(u.input_tokens_details)?.cached_tokens),
      };
    }
  }
  return undefined;
}

/** Stream events: chat chunks carry `usage` (null but on the include_usage chunk); Responses
 *  events carry the whole response on `response.completed` / `response.incomplete`. */
function eventUsage(event: Json): UsagePart | undefined {
  const own = usage(event);
  if (own) return own;
  const response = obj(event.response);
  return response ? usage(response) : undefined;
}

function messageText(message: unknown): string {
  return contentText(obj(message)?.content, TEXT_PARTS) ?? '';
}

function text(body: Json): string | undefined {
  if (Array.isArray(body.choices)) {
    return body.choices
      .map((choice) => {
        const c = obj(choice);
        if (!c) return '';
        if (obj(c.message)) return messageText(c.message);
        return typeof c.text === 'string' ? c.text : '';
      })
      .join('\n');
  }
  // Responses: the `output` items of type message (reasoning and tool calls are no answer text).
  if (Array.isArray(body.output)) {
    return body.output
      .filter((item) => obj(item)?.type === 'message')
      .map(messageText)
      .join('\n');
  }
  return undefined;
}

function eventText(event: Json): string {
  let out = '';
  if (Array.isArray(event.choices)) {
    for (const choice of event.choices) {
      const c = obj(choice);
      const content = obj(c?.delta)?.content ?? c?.text;
      if (typeof content === 'string') out += content;
    }
  }
  if (event.type === 'response.output_text.delta' && typeof event.delta === 'string') out += event.delta;
  return out;
}

/**
 * An object whose usage arrives only when it is retrieved, its creation having answered before any
 * model ran: a batch, and a Response created with `background: true` (created `queued`). The answer
 * of any other retrieval (a stored chat completion, a foreground Response) repeats usage its
 * creation already reported.
 */
export function usageOnRetrieval(body: Json): boolean {
  return body.object === 'batch' || (body.object === 'response' && body.background === true);
}

function model(body: Json): string | undefined {
  return str(body.model) ?? str(obj(body.response)?.model);
}

export const openai: WireFormat = {
  id: 'openai',
  usage,
  eventUsage,
  text,
  eventText,
  model,
  eventModel: model,
  lastUserMessage: (request) => lastUserIn(request, 'messages', 'content'),
  userTurnText(request) {
    const body = obj(request);
    if (!body) return undefined;
    for (const list of [body.messages, body.input]) {
      if (Array.isArray(list) && list.some((m) => obj(m) !== undefined)) {
        const turn = userTurnIn(list, (m) => m.content, TEXT_PARTS);
        if (turn !== undefined) return turn;
      }
    }
    return stringOrStrings(body.prompt) ?? stringOrStrings(body.input);
  },
  requestModel: (request) => bodyModel(request),
};

/** `prompt` / `input` as a string or a list of strings; token arrays carry no text. */
function stringOrStrings(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'string')) {
    return value.join('\n');
  }
  return undefined;
}
