// Anthropic's Messages API as a front door (Claude Code and the Anthropic SDK pointed at any
// provider): a Messages request read into OpenAI's chat shape, the canonical form every provider
// module maps from, and OpenAI's answer, stream chunks and errors written back as Anthropic's.
import { TranslationError } from './chat-openai.js';
import { num, obj, str } from './json.js';
import type { Json } from './types.js';

/** What is read; anything else (top_k, thinking, service_tier, container, ...) is refused. */
const READ = new Set([
  'model',
  'max_tokens',
  'system',
  'messages',
  'tools',
  'tool_choice',
  'temperature',
  'top_p',
  'stop_sequences',
  'stream',
  'metadata',
]);

const fail = (param: string, message: string): never => {
  throw new TranslationError(param, message);
};

function textOf(content: unknown, at: string): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((b, i) => {
      const block = obj(b);
      if (block?.type !== 'text')
        return fail(`${at}[${i}].type`, `${String(block?.type)} blocks are not supported here`);
      return str(block.text) ?? '';
    })
    .join('\n');
}

function imagePart(block: Json, at: string): Json {
  const source = obj(block.source);
  if (source?.type === 'base64') {
    return {
      type: 'image_url',
      image_url: { url: `data:${str(source.media_type)};base64,${str(source.data)}` },
    };
  }
  if (source?.type === 'url') return { type: 'image_url', image_url: { url: str(source.url) } };
  return fail(`${at}.source`, 'only base64 and url image sources are supported here');
}

/** One Messages turn as OpenAI messages (tool results become `tool` messages, first). */
function turn(message: Json, at: string): Json[] {
  const role = message.role;
  const content = message.content;
  if (typeof content === 'string') return [{ role, content }];
  if (!Array.isArray(content)) return fail(`${at}.content`, 'content must be a string or a list of blocks');
  const out: Json[] = [];
  const parts: Json[] = [];
  const calls: Json[] = [];
  content.forEach((item, i) => {
    const block = obj(item) ?? fail(`${at}.content[${i}]`, 'a block must be an object');
    const where = `${at}.content[${i}]`;
    switch (block.type) {
      case 'text':
        parts.push({ type: 'text', text: str(block.text) ?? '' });
        return;
      case 'image':
        if (role !== 'user') fail(`${where}.type`, 'images are supported in user turns only');
        parts.push(imagePart(block, where));
        return;
      case 'tool_use':
        calls.push({
          id: str(block.id),
          type: 'function',
          function: { name: str(block.name), arguments: JSON.stringify(block.input ?? {}) },
        });
        return;
      case 'tool_result':
        out.push({
          role: 'tool',
          tool_call_id: str(block.tool_use_id),
          content: textOf(block.content, `${where}.content`),
        });
        return;
      default:
        fail(`${where}.type`, `${String(block.type)} blocks are not supported when translated`);
    }
  });
  if (role === 'assistant') {
    const text = parts.map((p) => str(p.text) ?? '').join('');
    out.push({
      role,
      content: text === '' ? null : text,
      ...(calls.length > 0 ? { tool_calls: calls } : {}),
    });
  } else if (parts.length > 0) {
    out.push({ role, content: parts });
  }
  return out;
}

function toolChoice(value: Json): { tool_choice?: unknown; parallel_tool_calls?: boolean } {
  const serial = value.disable_parallel_tool_use === true ? { parallel_tool_calls: false } : {};
  switch (value.type) {
    case 'auto':
      return { tool_choice: 'auto', ...serial };
    case 'any':
      return { tool_choice: 'required', ...serial };
    case 'none':
      return { tool_choice: 'none' };
    case 'tool':
      return { tool_choice: { type: 'function', function: { name: str(value.name) } }, ...serial };
    default:
      return fail('tool_choice', 'tool_choice must be auto, any, tool or none');
  }
}

/**
 * The OpenAI chat request of a Messages request. `cache_control` hints have no counterpart and are
 * not sent (docs/unified-api.md); every other unknown parameter is refused.
 */
export function chatFromMessages(json: unknown): Json {
  const body = obj(json) ?? fail('body', 'the body must be a JSON object');
  for (const key in body) {
    if (body[key] === undefined || body[key] === null || READ.has(key)) continue;
    fail(key, `${key} is not supported when a Messages request is translated`);
  }
  const messages: Json[] = [];
  const system = body.system;
  if (system !== undefined && system !== null)
    messages.push({ role: 'system', content: textOf(system, 'system') });
  if (!Array.isArray(body.messages)) fail('messages', 'messages must be a list');
  (body.messages as unknown[]).forEach((m, i) => {
    messages.push(...turn(obj(m) ?? fail(`messages[${i}]`, 'a message must be an object'), `messages[${i}]`));
  });
  const chat: Json = { model: body.model, messages };
  if (body.max_tokens !== undefined) chat.max_tokens = body.max_tokens;
  if (body.temperature !== undefined) chat.temperature = body.temperature;
  if (body.top_p !== undefined) chat.top_p = body.top_p;
  if (Array.isArray(body.stop_sequences) && body.stop_sequences.length > 0) chat.stop = body.stop_sequences;
  if (body.stream === true) chat.stream = true;
  const user = str(obj(body.metadata)?.user_id);
  if (user !== undefined) chat.user = user;
  if (Array.isArray(body.tools) && body.tools.length > 0) {
    chat.tools = body.tools.map((t, i) => {
      const tool = obj(t);
      if (!tool || (tool.type !== undefined && tool.type !== 'custom') || tool.input_schema === undefined) {
        return fail(`tools[${i}]`, 'only client tools with an input_schema are supported when translated');
      }
      return {
        type: 'function',
        function: {
          name: str(tool.name),
          ...(tool.description === undefined ? {} : { description: tool.description }),
          parameters: tool.input_schema,
        },
      };
    });
  }
  const choice = obj(body.tool_choice);
  if (choice) Object.assign(chat, toolChoice(choice));
  return chat;
}

const STOP_REASONS: Record<string, string> = {
  stop: 'end_turn',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  content_filter: 'refusal',
};

function inputParsed(text: string): Json {
  try {
    return obj(JSON.parse(text)) ?? {};
  } catch {
    return {};
  }
}

/** Anthropic counts cache reads outside input_tokens; OpenAI inside prompt_tokens. */
function messageUsage(usage: Json | undefined): Json {
  const cached = num(obj(usage?.prompt_tokens_details)?.cached_tokens);
  return {
    input_tokens: Math.max(0, num(usage?.prompt_tokens) - cached),
    output_tokens: num(usage?.completion_tokens),
    cache_read_input_tokens: cached,
    cache_creation_input_tokens: 0,
  };
}

/** A chat.completion as a Messages answer. */
export function messageFromCompletion(completion: Json, model: string): Json {
  const choice = obj(Array.isArray(completion.choices) ? completion.choices[0] : undefined);
  const message = obj(choice?.message);
  const content: Json[] = [];
  const text = str(message?.content);
  if (text) content.push({ type: 'text', text });
  for (const item of Array.isArray(message?.tool_calls) ? message.tool_calls : []) {
    const call = obj(item);
    const fn = obj(call?.function);
    content.push({
      type: 'tool_use',
      id: str(call?.id),
      name: str(fn?.name),
      input: inputParsed(str(fn?.arguments) ?? ''),
    });
  }
  return {
    id: str(completion.id) ?? 'msg',
    type: 'message',
    role: 'assistant',
    model: str(completion.model) ?? model,
    content,
    stop_reason: STOP_REASONS[str(choice?.finish_reason) ?? 'stop'] ?? 'end_turn',
    stop_sequence: null,
    usage: messageUsage(obj(completion.usage)),
  };
}

export interface MessagesEvent {
  readonly type: string;
  readonly data: Json;
}

/** OpenAI chunks in, Anthropic stream events out (message_start ... message_stop). */
export class MessagesStreamWriter {
  private started = false;
  private ended = false;
  /** The open content block: its index and kind ('text' or the OpenAI tool call index). */
  private open: { index: number; key: string } | undefined;
  private blocks = 0;
  private finish = 'stop';
  private usage: Json | undefined;

  constructor(private readonly model: string) {}

  private event(type: string, data: Json): MessagesEvent {
    return { type, data: { type, ...data } };
  }

  private start(chunk: Json, out: MessagesEvent[]): void {
    if (this.started) return;
    this.started = true;
    out.push(
      this.event('message_start', {
        message: {
          id: str(chunk.id) ?? 'msg',
          type: 'message',
          role: 'assistant',
          model: str(chunk.model) ?? this.model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: 0, output_tokens: 0 },
        },
      }),
    );
  }

  private openBlock(key: string, block: Json, out: MessagesEvent[]): number {
    if (this.open?.key === key) return this.open.index;
    this.closeBlock(out);
    const index = this.blocks++;
    this.open = { index, key };
    out.push(this.event('content_block_start', { index, content_block: block }));
    return index;
  }

  private closeBlock(out: MessagesEvent[]): void {
    if (!this.open) return;
    out.push(this.event('content_block_stop', { index: this.open.index }));
    this.open = undefined;
  }

  chunk(chunk: Json): MessagesEvent[] {
    const out: MessagesEvent[] = [];
    if (this.ended) return out;
    const error = obj(chunk.error);
    if (error) {
      this.ended = true;
      out.push(this.event('error', { error: { type: 'api_error', message: str(error.message) ?? 'error' } }));
      return out;
    }
    this.start(chunk, out);
    const usage = obj(chunk.usage);
    if (usage) this.usage = usage;
    const choice = obj(Array.isArray(chunk.choices) ? chunk.choices[0] : undefined);
    const delta = obj(choice?.delta);
    const text = str(delta?.content);
    if (text) {
      const index = this.openBlock('text', { type: 'text', text: '' }, out);
      out.push(this.event('content_block_delta', { index, delta: { type: 'text_delta', text } }));
    }
    for (const item of Array.isArray(delta?.tool_calls) ? delta.tool_calls : []) {
      const call = obj(item);
      const fn = obj(call?.function);
      const key = `tool${num(call?.index)}`;
      let index = this.open?.key === key ? this.open.index : undefined;
      if (index === undefined) {
        index = this.openBlock(
          key,
          { type: 'tool_use', id: str(call?.id) ?? '', name: str(fn?.name) ?? '', input: {} },
          out,
        );
      }
      const args = str(fn?.arguments);
      if (args)
        out.push(
          this.event('content_block_delta', {
            index,
            delta: { type: 'input_json_delta', partial_json: args },
          }),
        );
    }
    const finish = str(choice?.finish_reason);
    if (finish) this.finish = finish;
    return out;
  }

  /** The stream ended ([DONE] or the body's end): the closing events. */
  end(): MessagesEvent[] {
    if (this.ended) return [];
    const out: MessagesEvent[] = [];
    this.start({}, out);
    this.ended = true;
    this.closeBlock(out);
    const usage = messageUsage(this.usage);
    out.push(
      this.event('message_delta', {
        delta: { stop_reason: STOP_REASONS[this.finish] ?? 'end_turn', stop_sequence: null },
        usage,
      }),
    );
    out.push(this.event('message_stop', {}));
    return out;
  }
}

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  529: 'overloaded_error',
};

/** An error envelope as Anthropic's error body. */
export function messagesError(status: number, envelope: unknown): Json {
  const error = obj(obj(envelope)?.error);
  return {
    type: 'error',
    error: {
      type: ERROR_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error'),
      message: str(error?.message) ?? `the provider answered ${status}`,
    },
  };
}
