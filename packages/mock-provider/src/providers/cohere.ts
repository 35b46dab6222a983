// Cohere v2: chat (`POST /v2/chat`, JSON and its typed SSE events) and embed (`POST /v2/embed`), with
// the mock's echo, tool calls (tools.ts) and JSON mode; usage in `billed_units` and `tokens`.
import { chatTurns, echoOf, intField, type JsonObject, requireJsonObject } from '../body.js';
import type { RouteContext } from '../context.js';
import { cohereError } from '../errors.js';
import { sendError, sendJson } from '../http-io.js';
import { sseFrame, writeStream } from '../stream.js';
import { countTokens, embeddingVector, randomId, splitChunks, truncateTokens } from '../text.js';
import { jsonAnswer, mockToolCalls, openaiOffer } from '../tools.js';

export async function handleCohereChat(ctx: RouteContext): Promise<void> {
  const body = requireJsonObject(ctx);
  if (!body) return;
  if (typeof body.model !== 'string') {
    sendError(ctx, cohereError(400, 'invalid request: model must be set'));
    return;
  }
  if (!Array.isArray(body.messages) || body.messages.length === 0) {
    sendError(ctx, cohereError(400, 'invalid request: messages must not be empty'));
    return;
  }
  const max = intField(body.max_tokens, 1, Number.MAX_SAFE_INTEGER);
  if (max === 'invalid') {
    sendError(ctx, cohereError(400, 'invalid request: max_tokens must be positive'));
    return;
  }
  const turns = chatTurns(body.messages);
  const echoed = truncateTokens(echoOf(turns), max);
  const format = body.response_format as JsonObject | undefined;
  const text = format?.type === 'json_object' ? jsonAnswer(echoed.text) : echoed.text;
  const calls = mockToolCalls(openaiOffer(body), echoed.text);
  const input = turns.reduce((sum, t) => sum + countTokens(t.text), 0);
  const output = countTokens(echoed.text);
  const usage = {
    billed_units: { input_tokens: input, output_tokens: output },
    tokens: { input_tokens: input + 7, output_tokens: output + 2 },
  };
  const finish = calls.length > 0 ? 'TOOL_CALL' : echoed.truncated ? 'MAX_TOKENS' : 'COMPLETE';
  const toolCalls = calls.map((c) => ({
    id: c.id,
    type: 'function',
    function: { name: c.name, arguments: JSON.stringify(c.args) },
  }));
  const id = randomId('', 16);
  if (body.stream !== true) {
    sendJson(ctx, 200, {
      id,
      finish_reason: finish,
      message: {
        role: 'assistant',
        ...(calls.length > 0
          ? { tool_plan: 'I will call the tools.', tool_calls: toolCalls }
          : { content: [{ type: 'text', text }] }),
      },
      usage,
    });
    return;
  }
  const events: JsonObject[] = [
    {
      type: 'message-start',
      id,
      delta: { message: { role: 'assistant', content: [], tool_plan: '', tool_calls: [] } },
    },
  ];
  if (calls.length > 0) {
    toolCalls.forEach((call, index) => {
      const args = call.function.arguments;
      const half = Math.ceil(args.length / 2);
      events.push(
        {
          type: 'tool-call-start',
          index,
          delta: {
            message: {
              tool_calls: { ...call, function: { name: call.function.name, arguments: args.slice(0, half) } },
            },
          },
        },
        {
          type: 'tool-call-delta',
          index,
          delta: { message: { tool_calls: { function: { arguments: args.slice(half) } } } },
        },
        { type: 'tool-call-end', index },
      );
    });
  } else {
    events.push({
      type: 'content-start',
      index: 0,
      delta: { message: { content: { type: 'text', text: '' } } },
    });
    for (const piece of splitChunks(text, ctx.knobs.chunks)) {
      events.push({ type: 'content-delta', index: 0, delta: { message: { content: { text: piece } } } });
    }
    events.push({ type: 'content-end', index: 0 });
  }
  events.push({ type: 'message-end', delta: { finish_reason: finish, usage } });
  await writeStream(
    ctx,
    events.map((e) => sseFrame(e, e.type as string)),
  );
}

export function handleCohereEmbed(ctx: RouteContext): void {
  const body = requireJsonObject(ctx);
  if (!body) return;
  const texts = Array.isArray(body.texts) ? body.texts.filter((t): t is string => typeof t === 'string') : [];
  if (texts.length === 0) {
    sendError(ctx, cohereError(400, 'invalid request: texts must not be empty'));
    return;
  }
  if (typeof body.input_type !== 'string') {
    sendError(
      ctx,
      cohereError(400, 'invalid request: valid input_type must be provided with the provided model'),
    );
    return;
  }
  const dims = intField(body.output_dimension, 1, 4096);
  const vectors = texts.map((t) => embeddingVector(t, typeof dims === 'number' ? dims : 1024));
  const tokens = texts.reduce((n, t) => n + countTokens(t), 0);
  sendJson(ctx, 200, {
    id: randomId('', 16),
    texts,
    embeddings: { float: vectors },
    meta: { api_version: { version: '2' }, billed_units: { input_tokens: tokens } },
    response_type: 'embeddings_by_type',
  });
}
