// OpenAI embeddings <-> Gemini: Google AI Studio `batchEmbedContents` (one request per input, no
// usage reported) and Vertex AI `predict` (instances, `statistics.token_count` per prediction).
import { TranslationError } from './chat-openai.js';
import {
  type EmbeddingsRequest,
  embeddingsJson,
  refuseUnmappedEmbeddings,
  vectorOf,
} from './embeddings-openai.js';
import { num, obj } from './json.js';
import type { Json } from './types.js';

const bare = (model: string) => model.replace(/^models\//, '');

export function geminiEmbedRequest(req: EmbeddingsRequest): Json {
  refuseUnmappedEmbeddings(req, 'gemini', ['dimensions']);
  return {
    requests: req.inputs.map((text) => ({
      model: `models/${bare(req.model)}`,
      content: { parts: [{ text }] },
      ...(req.dimensions === undefined ? {} : { outputDimensionality: req.dimensions }),
    })),
  };
}

function vectors(list: unknown, read: (item: Json) => unknown, count: number): number[][] {
  const out = (Array.isArray(list) ? list : []).map((item) => vectorOf(read(obj(item) ?? {})));
  if (out.length !== count || out.some((v) => v === undefined)) {
    throw new TranslationError('input', `the provider answered ${out.length} embeddings for ${count} inputs`);
  }
  return out as number[][];
}

export function geminiEmbedAnswer(body: Json, req: EmbeddingsRequest): Json {
  return embeddingsJson(
    req,
    vectors(body.embeddings, (e) => e.values, req.inputs.length),
    undefined,
  );
}

export function vertexEmbedRequest(req: EmbeddingsRequest): Json {
  refuseUnmappedEmbeddings(req, 'vertex-ai', ['dimensions']);
  return {
    instances: req.inputs.map((content) => ({ content })),
    ...(req.dimensions === undefined ? {} : { parameters: { outputDimensionality: req.dimensions } }),
  };
}

export function vertexEmbedAnswer(body: Json, req: EmbeddingsRequest): Json {
  const predictions = Array.isArray(body.predictions) ? body.predictions : [];
  let tokens = 0;
  for (const p of predictions) tokens += num(obj(obj(obj(p)?.embeddings)?.statistics)?.token_count);
  const list = vectors(predictions, (p) => obj(p.embeddings)?.values, req.inputs.length);
  return embeddingsJson(req, list, tokens > 0 ? tokens : undefined);
}
