// OpenAI's Responses API as a front door for providers that lack it: a Responses request (text and
// function tools) read into OpenAI's chat shape, the canonical form every provider module maps from,
// and the chat answer and stream chunks written back as a `response` object and its stream events.
// Stateless: `previous_response_id`, stored responses and built-in tools are refused.
import { TranslationError } from './chat-openai.js';
import { num, obj, str } from './json.js';
import type { Json } from './types.js';

/** What is read; anything else (previous_response_id, reasoning, include, ...) is refused. */
const READ = new Set([
  'model',
  'input',
  'instructions',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'max_output_tokens',
  'temperature',
  'top_p',
  'stream',
  'text',
  'user',
  'store',
]);

const fail = (param: string, message: string): never => {
  throw new TranslationError(param, message);
};

function contentParts(content: unknown, at: string): unknown {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return fail(at, 'content must be a string or a list of parts');
  return content.map((item, i) => {
    const part = obj(item);
    switch (part?.type) {
      case 'input_text':
      case 'output_text':
        return { type: 'text', text: str(part.text) ?? '' };
      case 'input_image': {
        const url = str(part.image_url) ?? fail(`${at}[${i}].image_url`, 'an image needs image_url');
        return { type: 'image_url', image_url: { url } };
      }
      default:
        return fail(`${at}[${i}].type`, `${String(part?.type)} parts are not supported when translated`);
    }
  });
}

/** Input items as chat messages: function calls join the assistant turn before them. */
function messages(input: unknown): Json[] {
  if (typeof input === 'string') return [{ role: 'user', content: input }];
  if (!Array.isArray(input)) return fail('input', 'input must be a string or a list of items');
  const out: Json[] = [];
  input.forEach((item, i) => {
    const it = obj(item) ?? fail(`input[${i}]`, 'an item must be an object');
    const at = `input[${i}]`;
    const type = it.type ?? 'message';
    if (type === 'message') {
      const role = it.role === 'developer' ? 'developer' : it.role;
      if (!['user', 'assistant', 'system', 'developer'].includes(String(role)))
        fail(`${at}.role`, 'unknown role');
      const content = contentParts(it.content, `${at}.content`);
      if (role === 'assistant' && Array.isArray(content)) {
        out.push({ role, content: content.map((p) => str(obj(p)?.text) ?? '').join('') });
      } else out.push({ role, content });
    } else if (type === 'function_call') {
      const call = {
        id: str(it.call_id),
        type: 'function',
        function: { name: str(it.name), arguments: str(it.arguments) ?? '{}' },
      };
      const last = out.at(-1);
      if (last?.role === 'assistant' && Array.isArray(last.tool_calls)) last.tool_calls.push(call);
      else out.push({ role: 'assistant', content: null, tool_calls: [call] });
    } else if (type === 'function_call_output') {
      out.push({
        role: 'tool',
        tool_call_id: str(it.call_id),
        content: str(it.output) ?? JSON.stringify(it.output),
      });
    } else {
      fail(`${at}.type`, `${String(type)} items are not supported when translated`);
    }
  });
  return out;
}

function format(text: unknown): Json | undefined {
  const f = obj(obj(text)?.format);
  if (!f || f.type === 'text') return undefined;
  if (f.type === 'json_object') return { type: 'json_object' };
  if (f.type === 'json_schema') {
    return {
      type: 'json_schema',
      json_schema: { name: str(f.name) ?? 'response', schema: f.schema, strict: f.strict === true },
    };
  }
  return fail('text.format', 'text.format must be text, json_object or json_schema');
}

/** The OpenAI chat request of a Responses request. */
export function chatFromResponses(json: unknown): Json {
  const body = obj(json) ?? fail('body', 'the body must be a JSON object');
  for (const key in body) {
    if (body[key] === undefined || body[key] === null || READ.has(key)) continue;
    fail(key, `${key} is not supported when a Responses request is translated`);
  }
  if (body.store === true)
    fail('store', 'stored responses are not supported when translated: send store: false');
  const chat: Json = { model: body.model, messages: [] };
  const list = chat.messages as Json[];
  const instructions = str(body.instructions);
  if (instructions) list.push({ role: 'system', content: instructions });
  list.push(...messages(body.input));
  if (body.max_output_tokens !== undefined && body.max_output_tokens !== null)
    chat.max_tokens = body.max_output_tokens;
  for (const key of ['temperature', 'top_p', 'user', 'parallel_tool_calls'] as const) {
    if (body[key] !== undefined && body[key] !== null) chat[key] = body[key];
  }
  if (body.stream === true) chat.stream = true;
  const responseFormat = format(body.text);
  if (responseFormat) chat.response_format = responseFormat;
  if (Array.isArray(body.tools) && body.tools.length > 0) {
    chat.tools = body.tools.map((t, i) => {
      const tool = obj(t);
      if (tool?.type !== 'function')
        return fail(`tools[${i}]`, 'only function tools are supported when translated');
      return {
        type: 'function',
        function: {
          name: str(tool.name),
          ...(tool.description === undefined ? {} : { description: tool.description }),
          parameters: tool.parameters ?? { type: 'object', properties: {} },
        },
      };
    });
  }
  const choice = body.tool_choice;
  if (typeof choice === 'string') chat.tool_choice = choice;
  else if (obj(choice)?.type === 'function')
    chat.tool_choice = { type: 'function', function: { name: str(obj(choice)?.name) } };
  else if (choice !== undefined && choice !== null)
    fail('tool_choice', 'tool_choice must be auto, none, required or a function');
  return chat;
}

function responsesUsage(usage: Json | undefined): Json {
  const input = num(usage?.prompt_tokens);
  const output = num(usage?.completion_tokens);
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: num(obj(usage?.prompt_tokens_details)?.cached_tokens) },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: input + output,
  };
}

interface Frame {
  readonly id: string;
  readonly model: string;
  readonly created: number;
}

function responseObject(
  f: Frame,
  status: string,
  output: Json[],
  usage: Json | null,
  finish: string | undefined,
): Json {
  const incomplete = finish === 'length';
  return {
    id: f.id,
    object: 'response',
    created_at: f.created,
    status: status === 'completed' && incomplete ? 'incomplete' : status,
    error: null,
    incomplete_details: incomplete ? { reason: 'max_output_tokens' } : null,
    model: f.model,
    output,
    parallel_tool_calls: true,
    tool_choice: 'auto',
    tools: [],
    usage,
  };
}

const messageItem = (id: string, text: string, status: string): Json => ({
  type: 'message',
  id,
  status,
  role: 'assistant',
  content: status === 'in_progress' ? [] : [{ type: 'output_text', text, annotations: [] }],
});

const callItem = (id: string, callId: string, name: string, args: string, status: string): Json => ({
  type: 'function_call',
  id,
  call_id: callId,
  name,
  arguments: args,
  status,
});

/** A chat.completion as a `response` object. `id` and `created` come from the caller (kept pure). */
export function responseFromCompletion(completion: Json, id: string, created: number, model: string): Json {
  const choice = obj(Array.isArray(completion.choices) ? completion.choices[0] : undefined);
  const message = obj(choice?.message);
  const output: Json[] = [];
  const text = str(message?.content);
  if (text) output.push(messageItem(`msg_${id}`, text, 'completed'));
  (Array.isArray(message?.tool_calls) ? message.tool_calls : []).forEach((item, i) => {
    const call = obj(item);
    const fn = obj(call?.function);
    output.push(
      callItem(
        `fc_${id}_${i}`,
        str(call?.id) ?? '',
        str(fn?.name) ?? '',
        str(fn?.arguments) ?? '',
        'completed',
      ),
    );
  });
  const frame = { id: `resp_${id}`, model: str(completion.model) ?? model, created };
  return responseObject(
    frame,
    'completed',
    output,
    responsesUsage(obj(completion.usage)),
    str(choice?.finish_reason),
  );
}

export interface ResponsesEvent {
  readonly type: string;
  readonly data: Json;
}

/** OpenAI chat chunks in, Responses stream events out (response.created ... response.completed). */
export class ResponsesStreamWriter {
  private seq = 0;
  private started = false;
  private ended = false;
  private readonly frame: Frame;
  private readonly items: Json[] = [];
  /** The open output item: a message (text so far) or a function call (its chat tool index). */
  private open: { index: number; item: Json; key: string; text: string } | undefined;
  private finish: string | undefined;
  private usage: Json | undefined;

  constructor(id: string, created: number, model: string) {
    this.frame = { id: `resp_${id}`, model, created };
  }

  private event(type: string, data: Json): ResponsesEvent {
    return { type, data: { type, sequence_number: this.seq++, ...data } };
  }

  private start(out: ResponsesEvent[]): void {
    if (this.started) return;
    this.started = true;
    const response = responseObject(this.frame, 'in_progress', [], null, undefined);
    out.push(this.event('response.created', { response }), this.event('response.in_progress', { response }));
  }

  private close(out: ResponsesEvent[]): void {
    const open = this.open;
    if (!open) return;
    this.open = undefined;
    const base = { item_id: open.item.id, output_index: open.index };
    let done: Json;
    if (open.item.type === 'message') {
      const part = { type: 'output_text', text: open.text, annotations: [] };
      out.push(
        this.event('response.output_text.done', { ...base, content_index: 0, text: open.text }),
        this.event('response.content_part.done', { ...base, content_index: 0, part }),
      );
      done = messageItem(String(open.item.id), open.text, 'completed');
    } else {
      out.push(this.event('response.function_call_arguments.done', { ...base, arguments: open.text }));
      done = { ...open.item, arguments: open.text, status: 'completed' };
    }
    this.items.push(done);
    out.push(this.event('response.output_item.done', { output_index: open.index, item: done }));
  }

  private openItem(key: string, item: Json, out: ResponsesEvent[]): void {
    this.close(out);
    const index = this.items.length;
    this.open = { index, item, key, text: '' };
    out.push(this.event('response.output_item.added', { output_index: index, item }));
    if (item.type === 'message') {
      const part = { type: 'output_text', text: '', annotations: [] };
      out.push(
        this.event('response.content_part.added', {
          item_id: item.id,
          output_index: index,
          content_index: 0,
          part,
        }),
      );
    }
  }

  chunk(chunk: Json): ResponsesEvent[] {
    const out: ResponsesEvent[] = [];
    if (this.ended) return out;
    const error = obj(chunk.error);
    if (error) {
      this.ended = true;
      out.push(
        this.event('error', {
          code: str(error.code) ?? null,
          message: str(error.message) ?? 'error',
          param: null,
        }),
      );
      return out;
    }
    this.start(out);
    const usage = obj(chunk.usage);
    if (usage) this.usage = usage;
    const choice = obj(Array.isArray(chunk.choices) ? chunk.choices[0] : undefined);
    const delta = obj(choice?.delta);
    const text = str(delta?.content);
    if (text) {
      if (this.open?.key !== 'text')
        this.openItem(
          'text',
          messageItem(`msg_${this.frame.id}_${this.items.length}`, '', 'in_progress'),
          out,
        );
      const open = this.open as NonNullable<typeof this.open>;
      open.text += text;
      out.push(
        this.event('response.output_text.delta', {
          item_id: open.item.id,
          output_index: open.index,
          content_index: 0,
          delta: text,
        }),
      );
    }
    for (const item of Array.isArray(delta?.tool_calls) ? delta.tool_calls : []) {
      const call = obj(item);
      const fn = obj(call?.function);
      const key = `tool${num(call?.index)}`;
      if (this.open?.key !== key) {
        const id = `fc_${this.frame.id}_${this.items.length}`;
        this.openItem(key, callItem(id, str(call?.id) ?? '', str(fn?.name) ?? '', '', 'in_progress'), out);
      }
      const open = this.open as NonNullable<typeof this.open>;
      const args = str(fn?.arguments);
      if (args) {
        open.text += args;
        out.push(
          this.event('response.function_call_arguments.delta', {
            item_id: open.item.id,
            output_index: open.index,
            delta: args,
          }),
        );
      }
    }
    const finish = str(choice?.finish_reason);
    if (finish) this.finish = finish;
    return out;
  }

  end(): ResponsesEvent[] {
    if (this.ended) return [];
    const out: ResponsesEvent[] = [];
    this.start(out);
    this.ended = true;
    this.close(out);
    const response = responseObject(
      this.frame,
      'completed',
      this.items,
      responsesUsage(this.usage),
      this.finish,
    );
    const type = response.status === 'incomplete' ? 'response.incomplete' : 'response.completed';
    out.push(this.event(type, { response }));
    return out;
  }
}
