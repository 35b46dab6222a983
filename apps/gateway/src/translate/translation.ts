// The unified API's one rule and its two transforms (docs/unified-api.md): which requests are
// translated (OpenAI-shaped `/chat/completions` and `/embeddings` sent to a provider whose native
// API differs, Anthropic's `/messages` to any other provider, OpenAI's `/responses` to one without
// it), the provider request they become, and the answer translated back, JSON or stream.
// Used by plain calls (pipeline/translate-request.ts) and config leaves (routing/leaf-upstream.ts).
import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { gatewayError } from '../errors.js';
import { TranslationError } from '../formats/chat-openai.js';
import {
  chatFromMessages,
  MessagesStreamWriter,
  messageFromCompletion,
  messagesError,
} from '../formats/messages-anthropic.js';
import {
  chatFromResponses,
  ResponsesStreamWriter,
  responseFromCompletion,
} from '../formats/responses-openai.js';
import type { CloudOptions } from '../providers/types.js';
import {
  type BodyTranslator,
  chatBody,
  embeddingsBody,
  errorBody,
  type FrontDoor,
  frontDoorBody,
} from './body-translator.js';
import { CHAT_CODECS, type ChatApi, readChatRequest } from './chat-codecs.js';
import { EMBEDDING_CODECS, type EmbeddingsApi, readEmbeddingsRequest } from './embedding-codecs.js';

/** Providers whose native API is not OpenAI's: the only ones whose OpenAI-shaped calls are translated. */
const TRANSLATED_PROVIDERS: ReadonlySet<string> = new Set([
  'anthropic',
  'bedrock',
  'vertex-ai',
  'google',
  'cohere',
]);
const CHAT = '/chat/completions';
const EMBEDDINGS = '/embeddings';
const MESSAGES = '/messages';
const RESPONSES = '/responses';
/** Providers with their own Responses API: `/responses` passes through to them. */
const HAS_RESPONSES: ReadonlySet<string> = new Set(['openai', 'azure-openai']);
/** OpenAI-compatible providers that take `stream_options.include_usage` (pipeline/stream-usage.ts). */
const ASKS_USAGE: ReadonlySet<string> = new Set([
  'openai',
  'azure-openai',
  'deepseek',
  'groq',
  'together-ai',
  'fireworks-ai',
]);

/** The request the provider gets instead of the client's. */
export interface TranslatedRequest {
  readonly path: string;
  readonly search: string;
  readonly cloud: CloudOptions;
  /** The provider's body (what is sent, and signed for Bedrock). */
  readonly body: Buffer;
  /** What the provider module reads to route (Vertex reads `model` from it). */
  readonly routeJson: unknown;
}

export interface Translation {
  /** `openai-chat:anthropic`, `openai-embeddings:cohere`, ...: for logs and docs. */
  readonly name: string;
  readonly request: TranslatedRequest;
  /** The client's shape of the provider's answer with this status and these headers. */
  response(status: number, headers: IncomingHttpHeaders): BodyTranslator;
}

/** Whether a request may be translated, before its body is read (the body stage reads it then). */
export function mayTranslate(method: string, path: string, providerId: string): boolean {
  if (method !== 'POST') return false;
  // Anthropic's Messages API in front of every other provider.
  if (path === MESSAGES) return providerId !== 'anthropic';
  // OpenAI's Responses API in front of providers that lack it.
  if (path === RESPONSES) return !HAS_RESPONSES.has(providerId);
  return (path === CHAT || path === EMBEDDINGS) && TRANSLATED_PROVIDERS.has(providerId);
}

export interface TranslateInput {
  readonly method: string;
  readonly path: string;
  readonly providerId: string;
  readonly cloud: CloudOptions;
  readonly json: unknown;
}

function modelOf(json: unknown): string {
  const model = (json as { model?: unknown } | undefined)?.model;
  if (typeof model !== 'string' || model === '') {
    throw gatewayError('bad_request', 'model is required', { param: 'model' });
  }
  return model;
}

/** Vertex's own OpenAI-compatible endpoint serves `google/<model>` names: those pass through. */
function chatApi(providerId: string, model: string): ChatApi | undefined {
  switch (providerId) {
    case 'anthropic':
      return 'anthropic';
    case 'bedrock':
      return 'bedrock-converse';
    case 'google':
      return 'gemini';
    case 'cohere':
      return 'cohere';
    case 'vertex-ai':
      if (model.startsWith('google/')) return undefined;
      return /claude/i.test(model) ? 'vertex-anthropic' : 'gemini';
    default:
      return undefined;
  }
}

function embeddingsApi(providerId: string, model: string): EmbeddingsApi | undefined {
  switch (providerId) {
    case 'google':
      return 'gemini';
    case 'vertex-ai':
      return model.startsWith('google/') ? undefined : 'vertex';
    case 'cohere':
      return 'cohere';
    case 'bedrock':
      return /^cohere\./.test(model) || /\.cohere\./.test(model) ? 'bedrock-cohere' : 'bedrock-titan';
    default:
      return undefined;
  }
}

const bare = (model: string) => model.replace(/^models\//, '');

interface Route {
  readonly path: string;
  readonly search: string;
  readonly cloud: CloudOptions;
}

/** Vertex's model calls: its provider module builds the URL from the request type and `model`. */
function vertexRoute(cloud: CloudOptions, requestType: string, search = ''): Route {
  return { path: CHAT, search, cloud: { ...cloud, vertex: { ...cloud.vertex, requestType } } };
}

function chatRoute(
  api: ChatApi,
  providerId: string,
  model: string,
  stream: boolean,
  cloud: CloudOptions,
): Route {
  switch (api) {
    case 'anthropic':
      return { path: '/messages', search: '', cloud };
    case 'vertex-anthropic':
      return vertexRoute(cloud, stream ? 'streamRawPredict' : 'rawPredict');
    case 'bedrock-converse': {
      const action = stream ? 'converse-stream' : 'converse';
      return { path: `/model/${encodeURIComponent(model)}/${action}`, search: '', cloud };
    }
    case 'gemini': {
      const method = stream ? 'streamGenerateContent' : 'generateContent';
      const search = stream ? '?alt=sse' : '';
      if (providerId === 'vertex-ai') return vertexRoute(cloud, method, search);
      return { path: `/v1beta/models/${bare(model)}:${method}`, search, cloud };
    }
    case 'cohere':
      return { path: '/v2/chat', search: '', cloud };
  }
}

function embeddingsRoute(api: EmbeddingsApi, model: string, cloud: CloudOptions): Route {
  switch (api) {
    case 'gemini':
      return { path: `/v1beta/models/${bare(model)}:batchEmbedContents`, search: '', cloud };
    case 'vertex':
      return vertexRoute(cloud, 'predict');
    case 'cohere':
      return { path: '/v2/embed', search: '', cloud };
    case 'bedrock-titan':
    case 'bedrock-cohere':
      return { path: `/model/${encodeURIComponent(model)}/invoke`, search: '', cloud };
  }
}

/** Runs a format function; what it cannot translate is a 400 naming the parameter. */
function checked<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof TranslationError) {
      throw gatewayError('unsupported_parameter', err.message, { param: err.param });
    }
    throw err;
  }
}

const chatId = () => `chatcmpl-${randomUUID().replaceAll('-', '')}`;

/** The translation of a request, or undefined when it passes through unchanged (the one rule). */
export function translationFor(input: TranslateInput): Translation | undefined {
  if (!mayTranslate(input.method, input.path, input.providerId)) return undefined;
  // A body that is not JSON (no JSON content type) is not an OpenAI request: it goes as it came.
  if (input.json === undefined) return undefined;
  // Vertex with a request type header: a native call the client chose (the provider module routes it).
  if (input.providerId === 'vertex-ai' && input.cloud.vertex?.requestType !== undefined) return undefined;
  const model = modelOf(input.json);
  if (input.path === EMBEDDINGS) return embeddingsTranslation(input, model);
  if (input.path === MESSAGES) return frontDoorTranslation(input, model, 'anthropic-messages');
  if (input.path === RESPONSES) return frontDoorTranslation(input, model, 'openai-responses');
  return chatTranslation(input, model);
}

function chatTranslation(input: TranslateInput, model: string): Translation | undefined {
  const api = chatApi(input.providerId, model);
  if (api === undefined) return undefined;
  const codec = CHAT_CODECS[api];
  const req = checked(() => readChatRequest(input.json));
  const body = checked(() => codec.request(req));
  const route = chatRoute(api, input.providerId, model, req.stream, input.cloud);
  const id = chatId();
  return {
    name: `openai-chat:${api}`,
    request: { ...route, body: Buffer.from(JSON.stringify(body)), routeJson: { model } },
    response(status, headers) {
      if (status < 200 || status > 299) return errorBody(status, headers, codec.error);
      return chatBody(codec, req, id, Math.floor(Date.now() / 1000), headers);
    },
  };
}

function embeddingsTranslation(input: TranslateInput, model: string): Translation | undefined {
  const api = embeddingsApi(input.providerId, model);
  if (api === undefined) return undefined;
  const codec = EMBEDDING_CODECS[api];
  const req = checked(() => readEmbeddingsRequest(input.json));
  const body = checked(() => codec.request(req));
  const route = embeddingsRoute(api, model, input.cloud);
  return {
    name: `openai-embeddings:${api}`,
    request: { ...route, body: Buffer.from(JSON.stringify(body)), routeJson: { model } },
    response(status, headers) {
      if (status < 200 || status > 299) return errorBody(status, headers, codec.error);
      return embeddingsBody(codec, req);
    },
  };
}

type FrontDoorApi = 'anthropic-messages' | 'openai-responses';

function frontDoor(api: FrontDoorApi, model: string): FrontDoor {
  if (api === 'anthropic-messages') {
    return {
      stream: () => new MessagesStreamWriter(model),
      answer: (completion) => messageFromCompletion(completion, model),
      error: messagesError,
    };
  }
  const id = randomUUID().replaceAll('-', '');
  const created = Math.floor(Date.now() / 1000);
  return {
    stream: () => new ResponsesStreamWriter(id, created, model),
    answer: (completion) => responseFromCompletion(completion, id, created, model),
    // The Responses API's errors are OpenAI's envelope already.
    error: (status, envelope) =>
      envelope ?? {
        error: { message: `the provider answered ${status}`, type: 'api_error', code: null, param: null },
      },
  };
}

/**
 * Another API in front of every provider (Anthropic's Messages to non-Anthropic providers, OpenAI's
 * Responses to providers without it): the request read into OpenAI's chat shape (the canonical form),
 * then that provider's chat translation, or sent as it is to a provider that speaks OpenAI's; the
 * answer comes back through the same chain, written in the front door's shape in the end.
 */
function frontDoorTranslation(input: TranslateInput, model: string, api: FrontDoorApi): Translation {
  const chat = checked(() =>
    api === 'anthropic-messages' ? chatFromMessages(input.json) : chatFromResponses(input.json),
  );
  const onward = chatTranslation({ ...input, path: CHAT, json: chat }, model);
  const stream = chat.stream === true;
  if (stream && !onward && ASKS_USAGE.has(input.providerId)) chat.stream_options = { include_usage: true };
  // Refusals of what OpenAI's shape cannot carry on come from the chat reader, as for chat requests.
  checked(() => readChatRequest(chat));
  const request: TranslatedRequest = onward
    ? onward.request
    : {
        path: CHAT,
        search: '',
        cloud: input.cloud,
        body: Buffer.from(JSON.stringify(chat)),
        routeJson: chat,
      };
  return {
    name: `${api}:${onward?.name ?? 'openai-chat'}`,
    request,
    response(status, headers) {
      const inner = onward ? onward.response(status, headers) : undefined;
      return frontDoorBody(status, headers, inner, frontDoor(api, model), stream);
    },
  };
}
