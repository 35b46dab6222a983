// OpenAI chat <-> Cohere v2 chat (`POST /v2/chat`): close to OpenAI's messages, with Cohere's own
// parameter names (p, stop_sequences), tool_choice REQUIRED/NONE, its answer (message.content parts,
// finish_reason, usage.billed_units), its typed stream events and its errors.
import {
  type ChatAnswer,
  type ChatRequest,
  type ChatStream,
  ChunkWriter,
  type ErrorFields,
  errorMessage,
  errorType,
  type FinishReason,
  type Part,
  type ProviderEvent,
  refuseUnmapped,
  type ToolCall,
  TranslationError,
} from './chat-openai.js';
import { num, obj, str } from './json.js';
import type { Json } from './types.js';

function content(parts: readonly Part[]): Json[] {
  return parts.map((p) => {
    if (p.kind === 'text') return { type: 'text', text: p.text };
    const url = p.data === undefined ? p.url : `data:${p.mediaType};base64,${p.data}`;
    return { type: 'image_url', image_url: { url } };
  });
}

function messages(req: ChatRequest): Json[] {
  const out: Json[] = req.system.map((text) => ({ role: 'system', content: text }));
  for (const turn of req.turns) {
    if (turn.role === 'user') out.push({ role: 'user', content: content(turn.parts) });
    else if (turn.role === 'tool') {
      out.push({
        role: 'tool',
        tool_call_id: turn.toolCallId,
        content: [{ type: 'text', text: turn.content }],
      });
    } else {
      const m: Json = { role: 'assistant' };
      if (turn.parts.length > 0) m.content = content(turn.parts);
      if (turn.toolCalls.length > 0) {
        m.tool_calls = turn.toolCalls.map((c) => ({
          id: c.id,
          type: 'function',
          function: { name: c.name, arguments: c.arguments },
        }));
      }
      out.push(m);
    }
  }
  return out;
}

export function cohereRequest(req: ChatRequest): Json {
  refuseUnmapped(req, 'cohere');
  if (req.serialTools) {
    throw new TranslationError(
      'parallel_tool_calls',
      'parallel_tool_calls: false is not supported by cohere',
    );
  }
  const body: Json = { model: req.model, messages: messages(req) };
  if (req.maxTokens !== undefined) body.max_tokens = req.maxTokens;
  if (req.temperature !== undefined) body.temperature = req.temperature;
  if (req.topP !== undefined) body.p = req.topP;
  if (req.stop.length > 0) body.stop_sequences = req.stop;
  if (req.stream) body.stream = true;
  if (req.tools.length > 0) {
    body.tools = req.tools.map((t) => ({
      type: 'function',
      function: {
        name: t.name,
        ...(t.description === undefined ? {} : { description: t.description }),
        parameters: t.parameters,
      },
    }));
  }
  const c = req.toolChoice;
  if (c?.kind === 'tool') {
    throw new TranslationError('tool_choice', 'tool_choice naming one function is not supported by cohere');
  }
  if (c?.kind === 'required') body.tool_choice = 'REQUIRED';
  if (c?.kind === 'none') body.tool_choice = 'NONE';
  const format = req.responseFormat;
  if (format.kind === 'json_object') body.response_format = { type: 'json_object' };
  if (format.kind === 'json_schema')
    body.response_format = { type: 'json_object', json_schema: format.schema };
  return body;
}

export function cohereFinish(reason: unknown, tools: boolean): FinishReason {
  switch (reason) {
    case 'MAX_TOKENS':
      return 'length';
    case 'TOOL_CALL':
      return 'tool_calls';
    default:
      return tools ? 'tool_calls' : 'stop';
  }
}

/** What Cohere bills (`billed_units`), else the model's own token counts. */
export function cohereUsage(u: Json | undefined): { input: number; output: number } {
  const counts = obj(u?.billed_units) ?? obj(u?.tokens);
  return { input: num(counts?.input_tokens), output: num(counts?.output_tokens) };
}

function textOf(list: unknown): string | undefined {
  if (!Array.isArray(list)) return undefined;
  let text: string | undefined;
  for (const item of list) {
    const p = obj(item);
    if (p?.type === 'text' && typeof p.text === 'string') text = (text ?? '') + p.text;
  }
  return text;
}

function callsOf(list: unknown): ToolCall[] {
  if (!Array.isArray(list)) return [];
  return list.map((item) => {
    const c = obj(item);
    const fn = obj(c?.function);
    return { id: str(c?.id) ?? '', name: str(fn?.name) ?? '', arguments: str(fn?.arguments) ?? '{}' };
  });
}

export function cohereAnswer(body: Json, req: ChatRequest): ChatAnswer {
  const message = obj(body.message);
  const calls = callsOf(message?.tool_calls);
  return {
    id: str(body.id) ?? 'chat',
    model: req.model,
    text: textOf(message?.content) ?? null,
    toolCalls: calls,
    finish: cohereFinish(body.finish_reason, calls.length > 0),
    usage: cohereUsage(obj(body.usage)),
  };
}

/** Cohere's typed events (`type`: message-start, content-delta, tool-call-start, ...) into chunks. */
export function cohereStream(req: ChatRequest, id: string, created: number): ChatStream {
  const out = new ChunkWriter(id, req.model, created, req.includeUsage);
  return {
    event({ data }: ProviderEvent): Json[] {
      const message = obj(obj(data.delta)?.message);
      const index = num(data.index);
      switch (data.type) {
        case 'message-start':
          out.name(str(data.id), undefined);
          return out.start();
        case 'content-start':
        case 'content-delta':
          return out.text(str(obj(message?.content)?.text) ?? '');
        case 'tool-call-start': {
          const call = obj(message?.tool_calls);
          const fn = obj(call?.function);
          return out.toolStart(index, str(call?.id) ?? '', str(fn?.name) ?? '', str(fn?.arguments) ?? '');
        }
        case 'tool-call-delta':
          return out.toolArgs(index, str(obj(obj(message?.tool_calls)?.function)?.arguments) ?? '');
        case 'message-end': {
          const delta = obj(data.delta);
          out.setFinish(cohereFinish(delta?.finish_reason, out.anyTool));
          out.setUsage(cohereUsage(obj(delta?.usage)));
          return out.end();
        }
        default:
          return [];
      }
    },
    end: () => out.end(),
  };
}

export function cohereError(status: number, body: unknown): ErrorFields {
  return { message: errorMessage(body, `cohere answered ${status}`), type: errorType(status), code: null };
}
