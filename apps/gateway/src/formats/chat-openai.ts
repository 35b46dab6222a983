// OpenAI's chat completions shape as the canonical form of every translation (docs/unified-api.md):
// reading a request (messages, content parts, tools, the parameters each provider module maps) and
// refusing what a provider cannot take. Writing answers, chunks and errors back: chat-openai-answer.ts
// (re-exported here, so provider modules import the shape from one place).
import type { ToolCall } from './chat-openai-answer.js';
import { obj, str } from './json.js';
import type { Json } from './types.js';

/** A request the target provider cannot express: answered 400 `unsupported_parameter`. */
export class TranslationError extends Error {
  constructor(
    readonly param: string,
    message: string,
  ) {
    super(message);
  }
}

/** One content part of a user message, read once for every provider module. */
export type Part =
  | { readonly kind: 'text'; readonly text: string }
  /** A `data:` URL's media type and base64, or a remote URL (`mediaType` guessed from its name). */
  | { readonly kind: 'image'; readonly url?: string; readonly mediaType: string; readonly data?: string };

/** One turn of the conversation without the system prompt. */
export type Turn =
  | { readonly role: 'user'; readonly parts: readonly Part[] }
  | { readonly role: 'assistant'; readonly parts: readonly Part[]; readonly toolCalls: readonly ToolCall[] }
  | { readonly role: 'tool'; readonly toolCallId: string; readonly content: string };

export interface ToolDef {
  readonly name: string;
  readonly description: string | undefined;
  readonly parameters: Json;
  readonly strict: boolean;
}

export type ToolChoice =
  | { readonly kind: 'auto' }
  | { readonly kind: 'none' }
  | { readonly kind: 'required' }
  | { readonly kind: 'tool'; readonly name: string };

export type ResponseFormat =
  | { readonly kind: 'text' }
  | { readonly kind: 'json_object' }
  | { readonly kind: 'json_schema'; readonly name: string; readonly schema: Json; readonly strict: boolean };

/** An OpenAI chat request, checked and read into what every provider module maps. */
export interface ChatRequest {
  readonly model: string;
  /** System and developer messages, in order. */
  readonly system: readonly string[];
  readonly turns: readonly Turn[];
  readonly maxTokens: number | undefined;
  readonly temperature: number | undefined;
  readonly topP: number | undefined;
  readonly stop: readonly string[];
  readonly stream: boolean;
  /** `stream_options.include_usage`: the usage chunk has OpenAI's own shape (no choices). */
  readonly includeUsage: boolean;
  readonly tools: readonly ToolDef[];
  readonly toolChoice: ToolChoice | undefined;
  /** `parallel_tool_calls: false`. */
  readonly serialTools: boolean;
  readonly responseFormat: ResponseFormat;
  /** Parameters present in the request (non-null), for the provider's refusal check. */
  readonly present: ReadonlySet<string>;
  readonly raw: Json;
}

/** What every module reads; anything else present is refused unless the module maps it. */
const READ = new Set([
  'model',
  'messages',
  'max_tokens',
  'max_completion_tokens',
  'temperature',
  'top_p',
  'stop',
  'stream',
  'stream_options',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'response_format',
  'n',
]);

const fail = (param: string, message: string): never => {
  throw new TranslationError(param, message);
};

function numberParam(body: Json, name: string, min: number, max: number): number | undefined {
  const value = body[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) {
    return fail(name, `${name} must be a number from ${min} to ${max}`);
  }
  return value;
}

function intParam(body: Json, name: string): number | undefined {
  const value = numberParam(body, name, 1, Number.MAX_SAFE_INTEGER);
  if (value !== undefined && !Number.isInteger(value)) fail(name, `${name} must be an integer`);
  return value;
}

const DATA_URL = /^data:([\w.+-]+\/[\w.+-]+);base64,(.*)$/s;
const EXT_TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
};

function imagePart(part: Json, at: string): Part {
  const image = obj(part.image_url);
  const url = str(image?.url) ?? fail(`${at}.image_url.url`, 'an image part needs image_url.url');
  const data = DATA_URL.exec(url);
  if (data) return { kind: 'image', mediaType: data[1] as string, data: data[2] as string };
  if (!/^https?:\/\//i.test(url))
    fail(`${at}.image_url.url`, 'an image URL must be http(s) or a base64 data URL');
  const ext = /\.([a-z]+)(?:[?#]|$)/i.exec(new URL(url).pathname)?.[1]?.toLowerCase() ?? '';
  return { kind: 'image', url, mediaType: EXT_TYPES[ext] ?? 'image/jpeg' };
}

function parts(content: unknown, at: string, images: boolean): Part[] {
  if (typeof content === 'string') return content === '' ? [] : [{ kind: 'text', text: content }];
  if (content === null || content === undefined) return [];
  if (!Array.isArray(content)) return fail(at, 'content must be a string or a list of parts');
  return content.map((item, i) => {
    const part = obj(item) ?? fail(`${at}[${i}]`, 'a content part must be an object');
    if (part.type === 'text') {
      return { kind: 'text', text: str(part.text) ?? fail(`${at}[${i}].text`, 'a text part needs text') };
    }
    if (part.type === 'image_url' && images) return imagePart(part, `${at}[${i}]`);
    return fail(
      `${at}[${i}].type`,
      `content parts of type ${JSON.stringify(part.type)} are not supported here`,
    );
  });
}

/** The text of a system, developer or tool message (text parts only). */
function plainText(content: unknown, at: string): string {
  return parts(content, at, false)
    .map((p) => (p.kind === 'text' ? p.text : ''))
    .join('\n');
}

function toolCalls(value: unknown, at: string): ToolCall[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) return fail(at, 'tool_calls must be a list');
  return value.map((item, i) => {
    const call = obj(item);
    const fn = obj(call?.function);
    const name = str(fn?.name);
    const id = str(call?.id);
    if (!call || !fn || name === undefined || id === undefined) {
      return fail(`${at}[${i}]`, 'a tool call needs id and function.name');
    }
    return { id, name, arguments: str(fn.arguments) ?? '{}' };
  });
}

function turns(messages: unknown): { system: string[]; turns: Turn[] } {
  if (!Array.isArray(messages) || messages.length === 0) {
    return fail('messages', 'messages must be a non-empty list');
  }
  const system: string[] = [];
  const out: Turn[] = [];
  messages.forEach((item, i) => {
    const at = `messages[${i}]`;
    const m = obj(item) ?? fail(at, 'a message must be an object');
    switch (m.role) {
      case 'system':
      case 'developer':
        system.push(plainText(m.content, `${at}.content`));
        return;
      case 'user':
        out.push({ role: 'user', parts: parts(m.content, `${at}.content`, true) });
        return;
      case 'assistant':
        if (m.function_call !== undefined && m.function_call !== null) {
          fail(`${at}.function_call`, 'function_call is deprecated: use tool_calls');
        }
        out.push({
          role: 'assistant',
          parts: parts(m.content, `${at}.content`, false),
          toolCalls: toolCalls(m.tool_calls, `${at}.tool_calls`),
        });
        return;
      case 'tool':
        out.push({
          role: 'tool',
          toolCallId: str(m.tool_call_id) ?? fail(`${at}.tool_call_id`, 'a tool message needs tool_call_id'),
          content: plainText(m.content, `${at}.content`),
        });
        return;
      default:
        fail(`${at}.role`, `messages of role ${JSON.stringify(m.role)} are not supported here`);
    }
  });
  return { system, turns: out };
}

function tools(value: unknown): ToolDef[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) return fail('tools', 'tools must be a list');
  return value.map((item, i) => {
    const tool = obj(item);
    const fn = obj(tool?.function);
    if (tool?.type !== 'function' || !fn)
      return fail(`tools[${i}]`, 'only function tools are supported here');
    return {
      name: str(fn.name) ?? fail(`tools[${i}].function.name`, 'a tool needs a name'),
      description: str(fn.description),
      parameters: obj(fn.parameters) ?? { type: 'object', properties: {} },
      strict: fn.strict === true,
    };
  });
}

function toolChoice(value: unknown): ToolChoice | undefined {
  if (value === undefined || value === null) return undefined;
  if (value === 'auto' || value === 'none' || value === 'required') return { kind: value };
  const name = str(obj(obj(value)?.function)?.name);
  if (obj(value)?.type === 'function' && name !== undefined) return { kind: 'tool', name };
  return fail('tool_choice', 'tool_choice must be auto, none, required or {type:"function",function:{name}}');
}

function responseFormat(value: unknown): ResponseFormat {
  const o = obj(value);
  if (value === undefined || value === null || o?.type === 'text') return { kind: 'text' };
  if (o?.type === 'json_object') return { kind: 'json_object' };
  const spec = obj(o?.json_schema);
  if (o?.type === 'json_schema' && spec) {
    return {
      kind: 'json_schema',
      name: str(spec.name) ?? 'response',
      schema: obj(spec.schema) ?? fail('response_format.json_schema.schema', 'a JSON schema is required'),
      strict: spec.strict === true,
    };
  }
  return fail('response_format', 'response_format must be text, json_object or json_schema');
}

function stops(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  if (typeof value === 'string') return [value];
  if (Array.isArray(value) && value.every((s) => typeof s === 'string')) return value as string[];
  return fail('stop', 'stop must be a string or a list of strings');
}

/** Reads and checks an OpenAI chat request; throws TranslationError for what it cannot read. */
export function readChatRequest(json: unknown): ChatRequest {
  const body = obj(json) ?? fail('body', 'the body must be a JSON object');
  const present = new Set<string>();
  for (const key in body) if (body[key] !== null && body[key] !== undefined) present.add(key);
  const model = str(body.model) ?? fail('model', 'model is required');
  const n = numberParam(body, 'n', 1, 1);
  void n;
  const { system, turns: list } = turns(body.messages);
  const streamOptions = obj(body.stream_options);
  return {
    model,
    system,
    turns: list,
    maxTokens: intParam(body, 'max_completion_tokens') ?? intParam(body, 'max_tokens'),
    temperature: numberParam(body, 'temperature', 0, 2),
    topP: numberParam(body, 'top_p', 0, 1),
    stop: stops(body.stop),
    stream: body.stream === true,
    includeUsage: streamOptions?.include_usage === true,
    tools: tools(body.tools),
    toolChoice: toolChoice(body.tool_choice),
    serialTools: body.parallel_tool_calls === false,
    responseFormat: responseFormat(body.response_format),
    present,
    raw: body,
  };
}

/**
 * Refuses every parameter present that neither the common reader nor the provider module maps
 * (`extra`: the module's own), naming the first: never silently dropped.
 */
export function refuseUnmapped(req: ChatRequest, provider: string, extra: readonly string[] = []): void {
  for (const key of req.present) {
    if (READ.has(key) || extra.includes(key)) continue;
    fail(key, `${key} is not supported when an OpenAI chat request is translated for ${provider}`);
  }
}

/** A JSON text as an object: tool arguments a provider wants parsed ({} when empty). */
export function parseArguments(text: string, at: string): Json {
  if (text.trim() === '') return {};
  try {
    return obj(JSON.parse(text)) ?? fail(at, 'tool call arguments must be a JSON object');
  } catch (err) {
    if (err instanceof TranslationError) throw err;
    return fail(at, 'tool call arguments must be valid JSON');
  }
}

export * from './chat-openai-answer.js';
