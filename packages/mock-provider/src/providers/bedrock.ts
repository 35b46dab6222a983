// Bedrock runtime: Converse and InvokeModel (Anthropic, Titan and Llama bodies), plus their event streams.
import { chatTurns, contentText, echoOf, intField, type JsonObject, requireJsonObject } from '../body.js';
import type { RouteContext } from '../context.js';
import { bedrockError } from '../errors.js';
import { bedrockEvent } from '../eventstream.js';
import { sendError, sendJson } from '../http-io.js';
import { writeStream } from '../stream.js';
import { countTokens, embeddingVector, splitChunks, truncateTokens } from '../text.js';
import { converseOffer, type MockToolCall, mockToolCalls } from '../tools.js';
import { messageEvents, messageJson, prepareMessage } from './anthropic.js';

const EVENT_STREAM = 'application/vnd.amazon.eventstream';
const validation = (message: string) => bedrockError(400, 'ValidationException', message);

interface ConverseAnswer {
  text: string;
  stopReason: 'end_turn' | 'max_tokens' | 'tool_use';
  toolCalls: MockToolCall[];
  usage: { inputTokens: number; outputTokens: number; totalTokens: number };
}

function converseAnswer(ctx: RouteContext): ConverseAnswer | undefined {
  const body = requireJsonObject(ctx);
  if (!body) return undefined;
  if (!Array.isArray(body.messages) || body.messages.length === 0) {
    sendError(
      ctx,
      validation(
        "1 validation error detected: Value null at 'messages' failed to satisfy constraint: Member must not be null",
      ),
    );
    return undefined;
  }
  const config = (
    typeof body.inferenceConfig === 'object' && body.inferenceConfig !== null ? body.inferenceConfig : {}
  ) as JsonObject;
  const maxTokens = intField(config.maxTokens, 1, Number.MAX_SAFE_INTEGER);
  if (maxTokens === 'invalid') {
    sendError(
      ctx,
      validation(
        "1 validation error detected: Value at 'inferenceConfig.maxTokens' failed to satisfy constraint: Member must have value greater than or equal to 1",
      ),
    );
    return undefined;
  }
  const turns = chatTurns(body.messages);
  const inputTokens = turns.reduce(
    (sum, t) => sum + countTokens(t.text),
    countTokens(contentText(body.system)),
  );
  const { text, truncated } = truncateTokens(echoOf(turns), maxTokens);
  const outputTokens = countTokens(text);
  const toolCalls = mockToolCalls(converseOffer(body), text);
  return {
    text,
    toolCalls,
    stopReason: toolCalls.length > 0 ? 'tool_use' : truncated ? 'max_tokens' : 'end_turn',
    usage: { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens },
  };
}

export function handleConverse(ctx: RouteContext): void {
  const a = converseAnswer(ctx);
  if (!a) return;
  sendJson(ctx, 200, {
    output: {
      message: {
        role: 'assistant',
        content:
          a.toolCalls.length > 0
            ? a.toolCalls.map((c) => ({ toolUse: { toolUseId: c.id, name: c.name, input: c.args } }))
            : [{ text: a.text }],
      },
    },
    stopReason: a.stopReason,
    usage: a.usage,
    metrics: { latencyMs: ctx.knobs.latencyMs },
  });
}

export async function handleConverseStream(ctx: RouteContext): Promise<void> {
  const a = converseAnswer(ctx);
  if (!a) return;
  const blocks =
    a.toolCalls.length > 0
      ? a.toolCalls.flatMap((c, contentBlockIndex) => [
          bedrockEvent('contentBlockStart', {
            contentBlockIndex,
            start: { toolUse: { toolUseId: c.id, name: c.name } },
          }),
          bedrockEvent('contentBlockDelta', {
            contentBlockIndex,
            delta: { toolUse: { input: JSON.stringify(c.args) } },
          }),
          bedrockEvent('contentBlockStop', { contentBlockIndex }),
        ])
      : [
          ...splitChunks(a.text, ctx.knobs.chunks).map((text) =>
            bedrockEvent('contentBlockDelta', { contentBlockIndex: 0, delta: { text } }),
          ),
          bedrockEvent('contentBlockStop', { contentBlockIndex: 0 }),
        ];
  const frames = [
    bedrockEvent('messageStart', { role: 'assistant' }),
    ...blocks,
    bedrockEvent('messageStop', { stopReason: a.stopReason }),
    bedrockEvent('metadata', { usage: a.usage, metrics: { latencyMs: ctx.knobs.latencyMs } }),
  ];
  await writeStream(ctx, frames, EVENT_STREAM);
}

/** InvokeModel answers in the native shape of the model family the body is written for. */
export function handleInvoke(ctx: RouteContext): void {
  const body = requireJsonObject(ctx);
  if (!body) return;
  const modelId = ctx.params.modelId ?? '';
  if (/embed/.test(modelId)) {
    handleInvokeEmbeddings(ctx, body, modelId);
    return;
  }
  if (Array.isArray(body.messages)) {
    const m = prepareMessage(ctx, { model: modelId, requiredBodyField: 'anthropic_version' });
    if (m) sendJson(ctx, 200, messageJson(m));
    return;
  }
  if (typeof body.inputText === 'string') {
    const config = (body.textGenerationConfig ?? {}) as JsonObject;
    const max = intField(config.maxTokenCount, 1, Number.MAX_SAFE_INTEGER);
    const out = truncateTokens(body.inputText, max === 'invalid' ? undefined : max);
    sendJson(ctx, 200, {
      inputTextTokenCount: countTokens(body.inputText),
      results: [
        {
          tokenCount: countTokens(out.text),
          outputText: out.text,
          completionReason: out.truncated ? 'LENGTH' : 'FINISH',
        },
      ],
    });
    return;
  }
  if (typeof body.prompt === 'string') {
    const max = intField(body.max_gen_len, 1, Number.MAX_SAFE_INTEGER);
    const out = truncateTokens(body.prompt, max === 'invalid' ? undefined : max);
    sendJson(ctx, 200, {
      generation: out.text,
      prompt_token_count: countTokens(body.prompt),
      generation_token_count: countTokens(out.text),
      stop_reason: out.truncated ? 'length' : 'stop',
    });
    return;
  }
  sendError(
    ctx,
    validation(
      'Malformed input request: expected an Anthropic (messages), Titan (inputText) or Llama (prompt) body.',
    ),
  );
}

/** Anthropic events wrapped as Bedrock `chunk` events with base64 `bytes`, metrics on the last one. */
export async function handleInvokeStream(ctx: RouteContext): Promise<void> {
  const body = requireJsonObject(ctx);
  if (!body) return;
  if (!Array.isArray(body.messages)) {
    sendError(ctx, validation('Malformed input request: the mock streams Anthropic (messages) bodies only.'));
    return;
  }
  const m = prepareMessage(ctx, { model: ctx.params.modelId ?? '', requiredBodyField: 'anthropic_version' });
  if (!m) return;
  const events = messageEvents(m, ctx.knobs.chunks).filter((e) => e.type !== 'ping');
  const last = events.at(-1)!;
  last['amazon-bedrock-invocationMetrics'] = {
    inputTokenCount: m.inputTokens,
    outputTokenCount: m.outputTokens,
    invocationLatency: ctx.knobs.latencyMs,
    firstByteLatency: ctx.knobs.latencyMs,
  };
  const frames = events.map((e) =>
    bedrockEvent('chunk', { bytes: Buffer.from(JSON.stringify(e)).toString('base64') }),
  );
  await writeStream(ctx, frames, EVENT_STREAM);
}

/** Embedding models on InvokeModel: Titan (`inputText` -> `embedding`) and Cohere (`texts` -> `embeddings`). */
function handleInvokeEmbeddings(ctx: RouteContext, body: JsonObject, modelId: string): void {
  if (/cohere\./.test(modelId)) {
    const texts = Array.isArray(body.texts)
      ? body.texts.filter((t): t is string => typeof t === 'string')
      : [];
    if (texts.length === 0 || typeof body.input_type !== 'string') {
      sendError(ctx, validation('Malformed input request: texts and input_type are required.'));
      return;
    }
    sendJson(ctx, 200, {
      id: 'mock-embed',
      texts,
      embeddings: texts.map((t) => embeddingVector(t, 1024)),
      response_type: 'embeddings_floats',
    });
    return;
  }
  if (typeof body.inputText !== 'string') {
    sendError(ctx, validation('Malformed input request: #: required key [inputText] not found'));
    return;
  }
  const dims = intField(body.dimensions, 1, 1024);
  sendJson(ctx, 200, {
    embedding: embeddingVector(body.inputText, typeof dims === 'number' ? dims : 1024),
    inputTextTokenCount: countTokens(body.inputText),
  });
}
