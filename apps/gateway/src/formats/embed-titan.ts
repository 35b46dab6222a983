// OpenAI embeddings <-> Amazon Titan text embeddings on Bedrock InvokeModel: one `inputText` a call
// (a list of several inputs is refused), `embedding` and `inputTextTokenCount` back.
import { TranslationError } from './chat-openai.js';
import {
  type EmbeddingsRequest,
  embeddingsJson,
  refuseUnmappedEmbeddings,
  vectorOf,
} from './embeddings-openai.js';
import { num } from './json.js';
import type { Json } from './types.js';

export function titanEmbedRequest(req: EmbeddingsRequest): Json {
  refuseUnmappedEmbeddings(req, 'bedrock titan', ['dimensions']);
  if (req.inputs.length !== 1) {
    throw new TranslationError('input', 'Titan embeddings take one input a request: send a string');
  }
  return {
    inputText: req.inputs[0],
    ...(req.dimensions === undefined ? {} : { dimensions: req.dimensions }),
  };
}

export function titanEmbedAnswer(body: Json, req: EmbeddingsRequest): Json {
  const vector = vectorOf(body.embedding);
  if (!vector) throw new TranslationError('input', 'titan answered no embedding');
  const tokens = num(body.inputTextTokenCount);
  return embeddingsJson(req, [vector], tokens > 0 ? tokens : undefined);
}
