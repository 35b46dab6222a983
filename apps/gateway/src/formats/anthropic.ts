// Anthropic's Messages format (also Claude on Bedrock InvokeModel and Vertex rawPredict): the
// message JSON, its stream events (message_start / content_block_delta / message_delta) and the
// legacy completions shape.
import { bodyModel, contentText, lastUserIn, num, obj, str, TEXT_PARTS, userTurnIn } from './json.js';
import type { Json, UsagePart, WireFormat } from './types.js';

/**
 * `input_tokens` leaves out what was read from or written to the prompt cache (they are billed at
 * their own rates); pricing wants them inside inputTokens, so they are added back here.
 */
function usage(body: Json): UsagePart | undefined {
  const u = obj(body.usage);
  // OpenAI's Responses usage uses the same names but says `input_tokens_details`: not this format.
  if (u && ('input_tokens' in u || 'output_tokens' in u) && !('input_tokens_details' in u)) {
    const read = num(u.cache_read_input_tokens);
    const write = num(u.cache_creation_input_tokens);
    return {
      inputTokens: num(u.input_tokens) + read + write,
      outputTokens: num(u.output_tokens),
      cachedInputTokens: read,
      cacheWriteInputTokens: write,
    };
  }
  // message_start carries the message (with its usage so far) under `message`.
  const message = obj(body.message);
  return message ? usage(message) : undefined;
}

function text(body: Json): string | undefined {
  if (body.type === 'message' && Array.isArray(body.content)) return contentText(body.content, TEXT_PARTS);
  // Legacy text completions.
  return typeof body.completion === 'string' ? body.completion : undefined;
}

function eventText(event: Json): string {
  const delta = obj(event.delta);
  if (typeof delta?.text === 'string') return delta.text;
  return event.type === 'completion' && typeof event.completion === 'string' ? event.completion : '';
}

export const anthropic: WireFormat = {
  id: 'anthropic',
  usage,
  eventUsage: usage,
  text,
  eventText,
  model: (body) => str(body.model),
  eventModel: (event) => str(obj(event.message)?.model) ?? str(event.model),
  lastUserMessage: (request) => lastUserIn(request, 'messages', 'content'),
  userTurnText(request) {
    const messages = obj(request)?.messages;
    return Array.isArray(messages) ? userTurnIn(messages, (m) => m.content, TEXT_PARTS) : undefined;
  },
  requestModel: (request) => bodyModel(request),
};
