// The OpenAI chat translation of each target API: the formats' pure request and answer functions
// bound together, so the stage (translation.ts) handles every provider the same way.
import {
  anthropicAnswer,
  anthropicError,
  anthropicRequest,
  anthropicStream,
} from '../formats/chat-anthropic.js';
import { bedrockError, converseAnswer, converseRequest, converseStream } from '../formats/chat-bedrock.js';
import { cohereAnswer, cohereError, cohereRequest, cohereStream } from '../formats/chat-cohere.js';
import { geminiAnswer, geminiError, geminiRequest, geminiStream } from '../formats/chat-gemini.js';
import {
  type ChatAnswer,
  type ChatRequest,
  type ChatStream,
  type ErrorFields,
  readChatRequest,
} from '../formats/chat-openai.js';
import type { Json } from '../formats/types.js';

/** The native APIs an OpenAI chat request is translated to. */
export type ChatApi = 'anthropic' | 'vertex-anthropic' | 'bedrock-converse' | 'gemini' | 'cohere';

export interface ChatCodec {
  request(req: ChatRequest): Json;
  answer(body: Json, req: ChatRequest, id: string): ChatAnswer;
  stream(req: ChatRequest, id: string, created: number): ChatStream;
  error(status: number, body: unknown, errorTypeHeader?: string): ErrorFields;
  /** How the provider streams: SSE, or AWS's binary event stream. */
  readonly framing: 'sse' | 'aws';
}

const anthropic: ChatCodec = {
  request: (req) => anthropicRequest(req),
  answer: (body, req) => anthropicAnswer(body, req),
  stream: anthropicStream,
  error: anthropicError,
  framing: 'sse',
};

export const CHAT_CODECS: Readonly<Record<ChatApi, ChatCodec>> = {
  anthropic,
  'vertex-anthropic': { ...anthropic, request: (req) => anthropicRequest(req, { vertex: true }) },
  'bedrock-converse': {
    request: converseRequest,
    answer: converseAnswer,
    stream: converseStream,
    error: bedrockError,
    framing: 'aws',
  },
  gemini: {
    request: geminiRequest,
    answer: geminiAnswer,
    stream: geminiStream,
    error: geminiError,
    framing: 'sse',
  },
  cohere: {
    request: cohereRequest,
    answer: (body, req) => cohereAnswer(body, req),
    stream: cohereStream,
    error: cohereError,
    framing: 'sse',
  },
};

export { readChatRequest };
