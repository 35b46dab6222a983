// OpenAI embeddings <-> Cohere embed: the v2 API (`POST /v2/embed`, `embeddings.float`) and Cohere
// models on Bedrock InvokeModel (`texts`, `embeddings` a list of vectors or by type).
import { TranslationError } from './chat-openai.js';
import {
  type EmbeddingsRequest,
  embeddingsJson,
  refuseUnmappedEmbeddings,
  vectorOf,
} from './embeddings-openai.js';
import { num, obj } from './json.js';
import type { Json } from './types.js';

/** Cohere requires an input type; OpenAI's embeddings have none: documents, as they are stored. */
export const COHERE_INPUT_TYPE = 'search_document';

export function cohereEmbedRequest(req: EmbeddingsRequest, bedrock = false): Json {
  refuseUnmappedEmbeddings(req, 'cohere', bedrock ? [] : ['dimensions']);
  return {
    ...(bedrock ? {} : { model: req.model, embedding_types: ['float'] }),
    texts: req.inputs,
    input_type: COHERE_INPUT_TYPE,
    ...(req.dimensions === undefined ? {} : { output_dimension: req.dimensions }),
  };
}

export function cohereEmbedAnswer(body: Json, req: EmbeddingsRequest): Json {
  const embeddings = body.embeddings;
  const list = Array.isArray(embeddings) ? embeddings : obj(embeddings)?.float;
  const vectors = (Array.isArray(list) ? list : []).map(vectorOf);
  if (vectors.length !== req.inputs.length || vectors.some((v) => v === undefined)) {
    throw new TranslationError(
      'input',
      `cohere answered ${vectors.length} embeddings for ${req.inputs.length} inputs`,
    );
  }
  const billed = obj(obj(body.meta)?.billed_units);
  const tokens = num(billed?.input_tokens);
  return embeddingsJson(req, vectors as number[][], tokens > 0 ? tokens : undefined);
}
