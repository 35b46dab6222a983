// OpenAI chat completions (JSON and SSE), shared by the OpenAI, Azure and Vertex OpenAPI routes.
import { chatTurns, echoOf, intField, type JsonObject, requireJsonObject } from '../body.js';
import type { RouteContext } from '../context.js';
import { invalidRequest } from '../errors.js';
import { sendError, sendJson } from '../http-io.js';
import { sseFrame, writeStream } from '../stream.js';
import { countTokens, nowSeconds, randomId, splitChunks, truncateTokens } from '../text.js';
import { jsonAnswer, mockToolCalls, openaiOffer } from '../tools.js';

export interface ChatOptions {
  /** Model when the body names none (Azure: the deployment); without it `model` is required. */
  defaultModel?: string;
  /** Extra top-level fields on the JSON response (Azure's content filter results). */
  extraFields?: JsonObject;
  /** Extra fields on every choice of the JSON response. */
  extraChoiceFields?: JsonObject;
}

export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number };
  completion_tokens_details: { reasoning_tokens: number };
}

export function chatUsage(prompt: number, completion: number): ChatUsage {
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0 },
  };
}

/** `stream_options.include_usage` of a request body. */
export function includeUsage(body: JsonObject): boolean {
  const options = body.stream_options;
  return typeof options === 'object' && options !== null && (options as JsonObject).include_usage === true;
}

export async function handleChatCompletions(ctx: RouteContext, options: ChatOptions = {}): Promise<void> {
  const body = requireJsonObject(ctx);
  if (!body) return;
  const model = typeof body.model === 'string' ? body.model : options.defaultModel;
  if (model === undefined) {
    sendError(ctx, invalidRequest(ctx.style, "Missing required parameter: 'model'.", 'model'));
    return;
  }
  if (!Array.isArray(body.messages) || body.messages.length === 0) {
    sendError(ctx, invalidRequest(ctx.style, "Missing required parameter: 'messages'.", 'messages'));
    return;
  }
  const n = intField(body.n, 1, 128);
  const maxTokens = intField(body.max_completion_tokens ?? body.max_tokens, 1, Number.MAX_SAFE_INTEGER);
  if (n === 'invalid') {
    sendError(ctx, invalidRequest(ctx.style, "Invalid 'n': expected an integer 1..128.", 'n'));
    return;
  }
  if (maxTokens === 'invalid') {
    sendError(
      ctx,
      invalidRequest(ctx.style, "Invalid 'max_tokens': expected a positive integer.", 'max_tokens'),
    );
    return;
  }
  const choices = n ?? 1;
  const turns = chatTurns(body.messages);
  const promptTokens = turns.reduce((sum, turn) => sum + countTokens(turn.text), 0);
  const echoed = truncateTokens(echoOf(turns), maxTokens);
  const { truncated } = echoed;
  // JSON mode (`response_format` json_object or json_schema) answers the echo as a JSON object.
  const format = (body.response_format as JsonObject | undefined)?.type;
  const text = format === 'json_object' || format === 'json_schema' ? jsonAnswer(echoed.text) : echoed.text;
  const calls = mockToolCalls(openaiOffer(body), echoed.text).map((c) => ({
    id: c.id,
    type: 'function',
    function: { name: c.name, arguments: JSON.stringify(c.args) },
  }));
  const finishReason = calls.length > 0 ? 'tool_calls' : truncated ? 'length' : 'stop';
  const usage = chatUsage(promptTokens, countTokens(echoed.text) * choices);
  const base = { id: randomId('chatcmpl-'), created: nowSeconds(), model, system_fingerprint: 'fp_mock' };

  const omitUsage = ctx.knobs.omitUsage > 0;
  if (body.stream !== true) {
    sendJson(ctx, 200, {
      ...base,
      object: 'chat.completion',
      choices: Array.from({ length: choices }, (_, index) => ({
        index,
        message:
          calls.length > 0
            ? { role: 'assistant', content: null, refusal: null, tool_calls: calls }
            : { role: 'assistant', content: text, refusal: null },
        logprobs: null,
        finish_reason: finishReason,
        ...options.extraChoiceFields,
      })),
      ...(omitUsage ? {} : { usage }),
      ...options.extraFields,
    });
    return;
  }

  const withUsage = includeUsage(body) && !omitUsage;
  const chunk = (choiceList: unknown[]) =>
    sseFrame({
      ...base,
      object: 'chat.completion.chunk',
      choices: choiceList,
      ...(withUsage ? { usage: null } : {}),
    });
  const indexes = Array.from({ length: choices }, (_, index) => index);
  const frames: string[] = indexes.map((index) =>
    chunk([
      {
        index,
        delta: { role: 'assistant', content: '', refusal: null },
        logprobs: null,
        finish_reason: null,
      },
    ]),
  );
  for (const piece of calls.length > 0 ? [] : splitChunks(text, ctx.knobs.chunks)) {
    for (const index of indexes) {
      frames.push(chunk([{ index, delta: { content: piece }, logprobs: null, finish_reason: null }]));
    }
  }
  // A tool call: its head (id, name), then its arguments.
  for (const [at, call] of calls.entries()) {
    const head = {
      index: at,
      id: call.id,
      type: 'function',
      function: { name: call.function.name, arguments: '' },
    };
    const args = { index: at, function: { arguments: call.function.arguments } };
    for (const index of indexes) {
      frames.push(chunk([{ index, delta: { tool_calls: [head] }, logprobs: null, finish_reason: null }]));
      frames.push(chunk([{ index, delta: { tool_calls: [args] }, logprobs: null, finish_reason: null }]));
    }
  }
  for (const index of indexes) {
    frames.push(chunk([{ index, delta: {}, logprobs: null, finish_reason: finishReason }]));
  }
  if (withUsage) {
    frames.push(sseFrame({ ...base, object: 'chat.completion.chunk', choices: [], usage }));
  }
  frames.push(sseFrame('[DONE]'));
  await writeStream(ctx, frames);
}
