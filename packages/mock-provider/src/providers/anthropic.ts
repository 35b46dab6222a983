// Anthropic Messages (JSON and SSE), shared by the direct API, Vertex rawPredict and Bedrock invoke.
import { chatTurns, contentText, echoOf, intField, type JsonObject, requireJsonObject } from '../body.js';
import type { RouteContext } from '../context.js';
import { invalidRequest } from '../errors.js';
import { sendError, sendJson } from '../http-io.js';
import { sseFrame, writeStream } from '../stream.js';
import { countTokens, randomId, splitChunks, truncateTokens } from '../text.js';
import { anthropicOffer, type MockToolCall, mockToolCalls } from '../tools.js';

export interface MessagesOptions {
  /** Model from the URL (Vertex, Bedrock); the direct API requires it in the body. */
  model?: string;
  /** Body field the platform requires instead of the header (Vertex: `anthropic_version`). */
  requiredBodyField?: string;
}

/** Input tokens: the system prompt plus every message's text. */
export function anthropicInputTokens(body: JsonObject): number {
  const system = countTokens(contentText(body.system));
  return chatTurns(body.messages).reduce((sum, turn) => sum + countTokens(turn.text), system);
}

function validate(ctx: RouteContext, body: JsonObject, options: MessagesOptions): string | undefined {
  if (options.requiredBodyField && body[options.requiredBodyField] === undefined)
    return `${options.requiredBodyField}: Field required`;
  if (options.model === undefined && typeof body.model !== 'string') return 'model: Field required';
  if (!Array.isArray(body.messages) || body.messages.length === 0) return 'messages: Field required';
  const max = intField(body.max_tokens, 1, Number.MAX_SAFE_INTEGER);
  if (max === undefined) return 'max_tokens: Field required';
  if (max === 'invalid') return 'max_tokens: Input should be a positive integer';
  if (ctx.style === 'bedrock' && body.model !== undefined)
    return 'Malformed input request: #: extraneous key [model] is not permitted, please reformat your input and try again.';
  return undefined;
}

export interface PreparedMessage {
  stream: boolean;
  id: string;
  model: string;
  text: string;
  stopReason: 'end_turn' | 'max_tokens' | 'tool_use';
  /** Calls of the offered tools (tools.ts): the answer is these instead of text. */
  toolCalls: MockToolCall[];
  inputTokens: number;
  outputTokens: number;
}

/** Validate the body and compute the answer; undefined after a 400 was sent. */
export function prepareMessage(
  ctx: RouteContext,
  options: MessagesOptions = {},
): PreparedMessage | undefined {
  const body = requireJsonObject(ctx);
  if (!body) return undefined;
  const problem = validate(ctx, body, options);
  if (problem) {
    sendError(ctx, invalidRequest(ctx.style, problem));
    return undefined;
  }
  const { text, truncated } = truncateTokens(echoOf(chatTurns(body.messages)), body.max_tokens as number);
  const toolCalls = mockToolCalls(anthropicOffer(body), text);
  return {
    stream: body.stream === true,
    id: randomId('msg_mock', 10),
    model: options.model ?? (body.model as string),
    text,
    stopReason: toolCalls.length > 0 ? 'tool_use' : truncated ? 'max_tokens' : 'end_turn',
    toolCalls,
    inputTokens: anthropicInputTokens(body),
    outputTokens: countTokens(text),
  };
}

const CACHE_USAGE = { cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };

export function messageJson(m: PreparedMessage): JsonObject {
  return {
    id: m.id,
    type: 'message',
    role: 'assistant',
    model: m.model,
    content:
      m.toolCalls.length > 0
        ? m.toolCalls.map((c) => ({ type: 'tool_use', id: c.id, name: c.name, input: c.args }))
        : [{ type: 'text', text: m.text }],
    stop_reason: m.stopReason,
    stop_sequence: null,
    usage: { input_tokens: m.inputTokens, output_tokens: m.outputTokens, ...CACHE_USAGE },
  };
}

/** The stream events in wire order (`ping` included, as the real API sends it); `type` names each. */
export function messageEvents(
  m: PreparedMessage,
  chunks: number | undefined,
): Array<JsonObject & { type: string }> {
  const start = {
    ...messageJson(m),
    content: [],
    stop_reason: null,
    usage: { input_tokens: m.inputTokens, output_tokens: 1, ...CACHE_USAGE },
  };
  // A tool call's input streams as two halves of its JSON text.
  const blocks: Array<JsonObject & { type: string }> =
    m.toolCalls.length > 0
      ? m.toolCalls.flatMap((c, index) => {
          const json = JSON.stringify(c.args);
          const half = Math.ceil(json.length / 2);
          return [
            {
              type: 'content_block_start',
              index,
              content_block: { type: 'tool_use', id: c.id, name: c.name, input: {} },
            },
            ...[json.slice(0, half), json.slice(half)].map((partial_json) => ({
              type: 'content_block_delta',
              index,
              delta: { type: 'input_json_delta', partial_json },
            })),
            { type: 'content_block_stop', index },
          ];
        })
      : [
          { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
          ...splitChunks(m.text, chunks).map((piece) => ({
            type: 'content_block_delta',
            index: 0,
            delta: { type: 'text_delta', text: piece },
          })),
          { type: 'content_block_stop', index: 0 },
        ];
  return [
    { type: 'message_start', message: start },
    ...blocks.slice(0, 1),
    { type: 'ping' },
    ...blocks.slice(1),
    {
      type: 'message_delta',
      delta: { stop_reason: m.stopReason, stop_sequence: null },
      usage: { output_tokens: m.outputTokens },
    },
    { type: 'message_stop' },
  ];
}

export async function handleMessages(ctx: RouteContext, options: MessagesOptions = {}): Promise<void> {
  const m = prepareMessage(ctx, options);
  if (!m) return;
  if (!m.stream) {
    sendJson(ctx, 200, messageJson(m));
    return;
  }
  await writeStream(
    ctx,
    messageEvents(m, ctx.knobs.chunks).map((event) => sseFrame(event, event.type)),
  );
}

export function handleCountTokens(ctx: RouteContext): void {
  const body = requireJsonObject(ctx);
  if (!body) return;
  if (!Array.isArray(body.messages)) {
    sendError(ctx, invalidRequest(ctx.style, 'messages: Field required'));
    return;
  }
  sendJson(ctx, 200, { input_tokens: anthropicInputTokens(body) });
}
