// The OpenAI embeddings translation of each target API: the formats' pure functions bound together.

import { bedrockError } from '../formats/chat-bedrock.js';
import { cohereError } from '../formats/chat-cohere.js';
import { geminiError } from '../formats/chat-gemini.js';
import type { ErrorFields } from '../formats/chat-openai.js';
import { cohereEmbedAnswer, cohereEmbedRequest } from '../formats/embed-cohere.js';
import {
  geminiEmbedAnswer,
  geminiEmbedRequest,
  vertexEmbedAnswer,
  vertexEmbedRequest,
} from '../formats/embed-gemini.js';
import { titanEmbedAnswer, titanEmbedRequest } from '../formats/embed-titan.js';
import { type EmbeddingsRequest, readEmbeddingsRequest } from '../formats/embeddings-openai.js';
import type { Json } from '../formats/types.js';

export type EmbeddingsApi = 'gemini' | 'vertex' | 'cohere' | 'bedrock-titan' | 'bedrock-cohere';

export interface EmbeddingsCodec {
  request(req: EmbeddingsRequest): Json;
  answer(body: Json, req: EmbeddingsRequest): Json;
  error(status: number, body: unknown, errorTypeHeader?: string): ErrorFields;
}

export const EMBEDDING_CODECS: Readonly<Record<EmbeddingsApi, EmbeddingsCodec>> = {
  gemini: { request: geminiEmbedRequest, answer: geminiEmbedAnswer, error: geminiError },
  vertex: { request: vertexEmbedRequest, answer: vertexEmbedAnswer, error: geminiError },
  cohere: { request: (req) => cohereEmbedRequest(req), answer: cohereEmbedAnswer, error: cohereError },
  'bedrock-titan': { request: titanEmbedRequest, answer: titanEmbedAnswer, error: bedrockError },
  'bedrock-cohere': {
    request: (req) => cohereEmbedRequest(req, true),
    answer: cohereEmbedAnswer,
    error: bedrockError,
  },
};

export { readEmbeddingsRequest };
