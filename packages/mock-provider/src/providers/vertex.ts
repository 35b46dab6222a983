// Gemini generateContent / streamGenerateContent (SSE with alt=sse, else a streamed JSON array), for
// Vertex AI and Google AI Studio alike; tool calls (tools.ts) and JSON mode (responseMimeType).
import { chatTurns, contentText, echoOf, intField, type JsonObject, requireJsonObject } from '../body.js';
import type { RouteContext } from '../context.js';
import { googleError } from '../errors.js';
import { sendError, sendJson } from '../http-io.js';
import { writeStream } from '../stream.js';
import { countTokens, embeddingVector, randomId, splitChunks, truncateTokens } from '../text.js';
import { geminiOffer, jsonAnswer, type MockToolCall, mockToolCalls } from '../tools.js';

interface GeminiAnswer {
  text: string;
  toolCalls: MockToolCall[];
  candidates: number;
  finishReason: 'STOP' | 'MAX_TOKENS';
  usageMetadata: { promptTokenCount: number; candidatesTokenCount: number; totalTokenCount: number };
  meta: { modelVersion: string; createTime: string; responseId: string };
}

function geminiAnswer(ctx: RouteContext): GeminiAnswer | undefined {
  const body = requireJsonObject(ctx);
  if (!body) return undefined;
  if (!Array.isArray(body.contents) || body.contents.length === 0) {
    sendError(ctx, googleError(400, '* GenerateContentRequest.contents: contents is not specified\n'));
    return undefined;
  }
  const config = (
    typeof body.generationConfig === 'object' && body.generationConfig !== null ? body.generationConfig : {}
  ) as JsonObject;
  const max = intField(config.maxOutputTokens, 1, Number.MAX_SAFE_INTEGER);
  const count = intField(config.candidateCount, 1, 8);
  if (max === 'invalid' || count === 'invalid') {
    sendError(
      ctx,
      googleError(
        400,
        'generationConfig.maxOutputTokens / candidateCount must be positive integers (candidateCount <= 8).',
      ),
    );
    return undefined;
  }
  const turns = chatTurns(body.contents, 'parts');
  const system = (body.systemInstruction ?? {}) as JsonObject;
  const promptTokens = turns.reduce(
    (sum, t) => sum + countTokens(t.text),
    countTokens(contentText(system.parts)),
  );
  const echoed = truncateTokens(echoOf(turns), max);
  const truncated = echoed.truncated;
  const text = config.responseMimeType === 'application/json' ? jsonAnswer(echoed.text) : echoed.text;
  const toolCalls = mockToolCalls(geminiOffer(body), echoed.text);
  const candidates = count ?? 1;
  const output = countTokens(text) * candidates;
  return {
    text,
    toolCalls,
    candidates,
    finishReason: truncated ? 'MAX_TOKENS' : 'STOP',
    usageMetadata: {
      promptTokenCount: promptTokens,
      candidatesTokenCount: output,
      totalTokenCount: promptTokens + output,
    },
    meta: {
      modelVersion: ctx.params.model ?? '',
      createTime: new Date().toISOString(),
      responseId: randomId('', 8),
    },
  };
}

/** Function calls come whole, in the last chunk, instead of text. */
function answerParts(a: GeminiAnswer, text: string): JsonObject[] {
  if (a.toolCalls.length === 0) return [{ text }];
  return a.toolCalls.map((c) => ({ functionCall: { name: c.name, args: c.args } }));
}

export function handleGenerateContent(ctx: RouteContext): void {
  const a = geminiAnswer(ctx);
  if (!a) return;
  sendJson(ctx, 200, {
    candidates: Array.from({ length: a.candidates }, (_, index) => ({
      content: { role: 'model', parts: answerParts(a, a.text) },
      finishReason: a.finishReason,
      index,
    })),
    usageMetadata: a.usageMetadata,
    ...a.meta,
  });
}

/** The last content chunk carries finishReason and usageMetadata, as Vertex's final chunk does. */
export async function handleStreamGenerateContent(ctx: RouteContext): Promise<void> {
  const a = geminiAnswer(ctx);
  if (!a) return;
  const pieces = splitChunks(a.text, ctx.knobs.chunks);
  const chunks = pieces.map((piece, i) => {
    const last = i === pieces.length - 1;
    return {
      candidates: Array.from({ length: a.candidates }, (_, index) => ({
        content: { role: 'model', parts: last ? answerParts(a, piece) : [{ text: piece }] },
        ...(last ? { finishReason: a.finishReason } : {}),
        index,
      })),
      ...(last ? { usageMetadata: a.usageMetadata } : {}),
      ...a.meta,
    };
  });
  if (ctx.query.get('alt') === 'sse') {
    await writeStream(
      ctx,
      chunks.map((c) => `data: ${JSON.stringify(c)}\r\n\r\n`),
    );
    return;
  }
  const frames = chunks.map((c, i) => `${i === 0 ? '[' : ',\r\n'}${JSON.stringify(c)}`);
  frames.push(']');
  await writeStream(ctx, frames, 'application/json; charset=UTF-8');
}

/** Google AI Studio batchEmbedContents: `requests[].content.parts` -> `embeddings[].values` (no usage). */
export function handleBatchEmbedContents(ctx: RouteContext): void {
  const body = requireJsonObject(ctx);
  if (!body) return;
  const requests = Array.isArray(body.requests) ? (body.requests as JsonObject[]) : [];
  if (requests.length === 0) {
    sendError(
      ctx,
      googleError(400, '* BatchEmbedContentsRequest.requests: at least one request is required\n'),
    );
    return;
  }
  sendJson(ctx, 200, {
    embeddings: requests.map((r) => {
      const dims = intField(r.outputDimensionality, 1, 3072);
      const text = contentText((r.content as JsonObject | undefined)?.parts);
      return { values: embeddingVector(text, typeof dims === 'number' ? dims : 768) };
    }),
  });
}

/** Vertex predict for text embedding models: `instances[].content` -> `predictions[].embeddings`. */
export function handlePredictEmbeddings(ctx: RouteContext): void {
  const body = requireJsonObject(ctx);
  if (!body) return;
  const instances = Array.isArray(body.instances) ? (body.instances as JsonObject[]) : [];
  if (instances.length === 0) {
    sendError(ctx, googleError(400, 'instances: at least one instance is required'));
    return;
  }
  const dims = intField((body.parameters as JsonObject | undefined)?.outputDimensionality, 1, 3072);
  sendJson(ctx, 200, {
    predictions: instances.map((i) => {
      const text = typeof i.content === 'string' ? i.content : '';
      return {
        embeddings: {
          values: embeddingVector(text, typeof dims === 'number' ? dims : 768),
          statistics: { truncated: false, token_count: countTokens(text) },
        },
      };
    }),
    metadata: { billableCharacterCount: instances.reduce((n, i) => n + String(i.content ?? '').length, 0) },
  });
}
