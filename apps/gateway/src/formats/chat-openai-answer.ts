// Writing OpenAI's chat shape back to the client (docs/unified-api.md): usage, the chat.completion
// object, the chat.completion.chunk stream, and the error envelope; the provider modules translate
// their answers, events and errors into these. Reading a request is chat-openai.ts.
import { obj, str } from './json.js';
import type { Json } from './types.js';

export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter';

export interface ToolCall {
  readonly id: string;
  readonly name: string;
  /** The arguments as the model wrote them: a JSON text. */
  readonly arguments: string;
}

export interface ChatUsage {
  readonly input: number;
  readonly output: number;
  /** Input read from a prompt cache (inside `input`). */
  readonly cached?: number;
}

export function usageJson(u: ChatUsage): Json {
  const usage: Json = {
    prompt_tokens: u.input,
    completion_tokens: u.output,
    total_tokens: u.input + u.output,
  };
  if (u.cached) usage.prompt_tokens_details = { cached_tokens: u.cached };
  return usage;
}

export interface ChatAnswer {
  readonly id: string;
  readonly model: string;
  readonly text: string | null;
  readonly toolCalls: readonly ToolCall[];
  readonly finish: FinishReason;
  readonly usage: ChatUsage;
}

/** A chat.completion object. `created` is the caller's clock (seconds), passed in to stay pure. */
export function completionJson(a: ChatAnswer, created: number): Json {
  const message: Json = { role: 'assistant', content: a.text, refusal: null };
  if (a.toolCalls.length > 0) {
    message.tool_calls = a.toolCalls.map((c) => ({
      id: c.id,
      type: 'function',
      function: { name: c.name, arguments: c.arguments },
    }));
  }
  return {
    id: a.id,
    object: 'chat.completion',
    created,
    model: a.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: a.finish }],
    usage: usageJson(a.usage),
  };
}

/**
 * Writes chat.completion.chunk objects for one streamed answer: the role first, then text and tool
 * call deltas (tool calls numbered in the order they start), the finish reason, and the usage.
 */
export class ChunkWriter {
  private started = false;
  private tools = 0;
  private readonly toolIndex = new Map<string | number, number>();
  private finish: FinishReason | undefined;
  private usage: ChatUsage | undefined;
  private closed = false;

  constructor(
    private id: string,
    private model: string,
    private readonly created: number,
    private readonly includeUsage: boolean,
  ) {}

  /** The provider named the answer's id or model once it started. */
  name(id: string | undefined, model: string | undefined): void {
    if (id && !this.started) this.id = id;
    if (model) this.model = model;
  }

  private chunk(delta: Json, finish: FinishReason | null = null): Json {
    return {
      id: this.id,
      object: 'chat.completion.chunk',
      created: this.created,
      model: this.model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    };
  }

  private open(out: Json[]): void {
    if (this.started) return;
    this.started = true;
    out.push(this.chunk({ role: 'assistant', content: '' }));
  }

  start(): Json[] {
    const out: Json[] = [];
    this.open(out);
    return out;
  }

  text(text: string): Json[] {
    const out: Json[] = [];
    this.open(out);
    if (text !== '') out.push(this.chunk({ content: text }));
    return out;
  }

  /** A tool call starts (`key`: the provider's block index or id). */
  toolStart(key: string | number, id: string, name: string, args = ''): Json[] {
    const out: Json[] = [];
    this.open(out);
    const index = this.tools++;
    this.toolIndex.set(key, index);
    out.push(
      this.chunk({
        tool_calls: [{ index, id, type: 'function', function: { name, arguments: args } }],
      }),
    );
    return out;
  }

  toolArgs(key: string | number, args: string): Json[] {
    const index = this.toolIndex.get(key);
    if (index === undefined || args === '') return [];
    return [this.chunk({ tool_calls: [{ index, function: { arguments: args } }] })];
  }

  get anyTool(): boolean {
    return this.tools > 0;
  }

  setFinish(finish: FinishReason): void {
    this.finish = finish;
  }

  /** Usage reports may come in parts (input at the start, output at the end): the latest wins per field. */
  setUsage(usage: Partial<ChatUsage>): void {
    const prev = this.usage ?? { input: 0, output: 0 };
    this.usage = {
      input: usage.input ?? prev.input,
      output: usage.output ?? prev.output,
      ...((usage.cached ?? prev.cached) ? { cached: usage.cached ?? prev.cached } : {}),
    };
  }

  /**
   * The last chunks: the finish reason with the usage on it, or (the client asked for usage with
   * `include_usage`) OpenAI's own shape, a usage chunk without choices after it.
   */
  end(): Json[] {
    if (this.closed) return [];
    this.closed = true;
    const out: Json[] = [];
    this.open(out);
    const finish = this.finish ?? (this.anyTool ? 'tool_calls' : 'stop');
    const last = this.chunk({}, finish);
    const usage = this.usage && usageJson(this.usage);
    if (this.includeUsage) {
      out.push(last);
      if (usage) out.push({ ...this.chunk({}), choices: [], usage });
    } else {
      if (usage) last.usage = usage;
      out.push(last);
    }
    return out;
  }
}

/** One event of a provider's stream: the SSE event name or AWS `:event-type`, and its JSON. */
export interface ProviderEvent {
  readonly type: string;
  readonly data: Json;
}

/** A provider stream translated into chunks, event by event. */
export interface ChatStream {
  event(event: ProviderEvent): Json[];
  /** The provider's stream ended: what is still owed (the finish and usage chunks). */
  end(): Json[];
}

/** A provider error body read into the envelope's fields (the status stays the provider's). */
export interface ErrorFields {
  readonly message: string;
  readonly type: string;
  readonly code: string | null;
}

/** The envelope type OpenAI's SDKs expect for a status. */
export function errorType(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'api_error';
  return 'invalid_request_error';
}

export function errorEnvelope(fields: ErrorFields, param: string | null = null): Json {
  return { error: { message: fields.message, type: fields.type, code: fields.code, param } };
}

/** The first string found at one of the paths (`error.message`, `message`, ...) of an error body. */
export function errorMessage(body: unknown, fallback: string): string {
  const o = obj(body);
  const inner = obj(o?.error);
  return str(inner?.message) ?? str(o?.message) ?? str(o?.Message) ?? str(o?.error) ?? fallback;
}
