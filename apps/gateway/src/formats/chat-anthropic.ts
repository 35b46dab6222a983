// OpenAI chat <-> Anthropic Messages (api.anthropic.com, and Claude on Vertex rawPredict): the request
// body, the message answer, its stream events and its errors. JSON mode and json_schema are asked for
// with one forced tool whose input is the JSON, given back to the client as the message text.
import {
  type ChatAnswer,
  type ChatRequest,
  type ChatStream,
  ChunkWriter,
  type ErrorFields,
  errorEnvelope,
  errorMessage,
  errorType,
  type FinishReason,
  type Part,
  type ProviderEvent,
  parseArguments,
  refuseUnmapped,
  type ToolCall,
  TranslationError,
} from './chat-openai.js';
import { num, obj, str } from './json.js';
import type { Json } from './types.js';

/** Anthropic requires max_tokens; this is sent when the client gave none (docs/unified-api.md). */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 4096;
/** The forced tool that carries a JSON-mode answer. */
export const JSON_TOOL = 'json_response';

export interface AnthropicTarget {
  /** Vertex rawPredict: no `model` in the body, `anthropic_version` in it instead. */
  readonly vertex?: boolean;
}

/** Whether the request asks for JSON through the forced tool (the answer's tool input is the text). */
export function jsonByTool(req: ChatRequest): boolean {
  return req.responseFormat.kind !== 'text';
}

function imageBlock(part: Extract<Part, { kind: 'image' }>): Json {
  if (part.data !== undefined) {
    return { type: 'image', source: { type: 'base64', media_type: part.mediaType, data: part.data } };
  }
  return { type: 'image', source: { type: 'url', url: part.url } };
}

function blocks(parts: readonly Part[]): Json[] {
  return parts.map((p) => (p.kind === 'text' ? { type: 'text', text: p.text } : imageBlock(p)));
}

/** Turns into Anthropic messages: tool results are user blocks, consecutive same-role turns merge. */
function messages(req: ChatRequest): Json[] {
  const out: { role: string; content: Json[] }[] = [];
  const push = (role: string, content: Json[]) => {
    const last = out.at(-1);
    if (last && last.role === role) last.content.push(...content);
    else out.push({ role, content });
  };
  req.turns.forEach((turn, i) => {
    if (turn.role === 'user') push('user', blocks(turn.parts));
    else if (turn.role === 'tool') {
      push('user', [{ type: 'tool_result', tool_use_id: turn.toolCallId, content: turn.content }]);
    } else {
      const content = blocks(turn.parts);
      for (const [j, call] of turn.toolCalls.entries()) {
        content.push({
          type: 'tool_use',
          id: call.id,
          name: call.name,
          input: parseArguments(call.arguments, `messages[${i}].tool_calls[${j}].function.arguments`),
        });
      }
      push('assistant', content);
    }
  });
  return out;
}

/** The Messages request for an OpenAI chat request (throws TranslationError for what it cannot map). */
export function anthropicRequest(req: ChatRequest, target: AnthropicTarget = {}): Json {
  refuseUnmapped(req, 'anthropic', ['user']);
  if (req.temperature !== undefined && req.temperature > 1) {
    throw new TranslationError('temperature', 'temperature above 1 is not supported by anthropic');
  }
  const body: Json = target.vertex ? { anthropic_version: 'vertex-2023-10-16' } : { model: req.model };
  body.max_tokens = req.maxTokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS;
  if (req.system.length > 0) body.system = req.system.join('\n\n');
  body.messages = messages(req);
  if (req.temperature !== undefined) body.temperature = req.temperature;
  if (req.topP !== undefined) body.top_p = req.topP;
  if (req.stop.length > 0) body.stop_sequences = req.stop;
  if (req.stream) body.stream = true;
  const user = str(req.raw.user);
  if (user !== undefined) body.metadata = { user_id: user };
  const tools: Json[] = req.tools.map((t) => ({
    name: t.name,
    ...(t.description === undefined ? {} : { description: t.description }),
    input_schema: t.parameters,
  }));
  let choice: Json | undefined;
  if (jsonByTool(req)) {
    if (tools.length > 0) {
      throw new TranslationError(
        'response_format',
        'response_format with tools is not supported by anthropic',
      );
    }
    const format = req.responseFormat;
    tools.push({
      name: JSON_TOOL,
      description: 'Answer with this tool: its input is the JSON answer.',
      input_schema: format.kind === 'json_schema' ? format.schema : { type: 'object' },
    });
    choice = { type: 'tool', name: JSON_TOOL };
  } else if (req.toolChoice) {
    const c = req.toolChoice;
    choice =
      c.kind === 'required'
        ? { type: 'any' }
        : c.kind === 'tool'
          ? { type: 'tool', name: c.name }
          : { type: c.kind };
  }
  if (tools.length > 0) body.tools = tools;
  if (req.serialTools && tools.length > 0)
    choice = { ...(choice ?? { type: 'auto' }), disable_parallel_tool_use: true };
  if (choice) body.tool_choice = choice;
  return body;
}

export function anthropicFinish(reason: unknown, tools: boolean): FinishReason {
  switch (reason) {
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return tools ? 'tool_calls' : 'stop';
    case 'refusal':
      return 'content_filter';
    default:
      return 'stop';
  }
}

function anthropicUsage(u: Json | undefined): { input: number; output: number; cached: number } {
  const read = num(u?.cache_read_input_tokens);
  return {
    input: num(u?.input_tokens) + read + num(u?.cache_creation_input_tokens),
    output: num(u?.output_tokens),
    cached: read,
  };
}

/** A Messages answer as an OpenAI answer. */
export function anthropicAnswer(body: Json, req: ChatRequest): ChatAnswer {
  const json = jsonByTool(req);
  let text = '';
  let any = false;
  const calls: ToolCall[] = [];
  for (const item of Array.isArray(body.content) ? body.content : []) {
    const block = obj(item);
    if (block?.type === 'text' && typeof block.text === 'string') {
      text += block.text;
      any = true;
    } else if (block?.type === 'tool_use') {
      const input = JSON.stringify(block.input ?? {});
      if (json && block.name === JSON_TOOL) {
        text += input;
        any = true;
      } else calls.push({ id: str(block.id) ?? '', name: str(block.name) ?? '', arguments: input });
    }
  }
  return {
    id: str(body.id) ?? 'msg',
    model: str(body.model) ?? req.model,
    text: any ? text : null,
    toolCalls: calls,
    finish: anthropicFinish(body.stop_reason, calls.length > 0),
    usage: anthropicUsage(obj(body.usage)),
  };
}

/** Anthropic's stream events into chunks. */
export function anthropicStream(req: ChatRequest, id: string, created: number): ChatStream {
  const out = new ChunkWriter(id, req.model, created, req.includeUsage);
  const json = jsonByTool(req);
  /** Blocks whose input deltas are the JSON answer's text. */
  const jsonBlocks = new Set<number>();
  return {
    event({ data }: ProviderEvent): Json[] {
      switch (data.type) {
        case 'message_start': {
          const message = obj(data.message);
          out.name(str(message?.id), str(message?.model));
          const u = anthropicUsage(obj(message?.usage));
          out.setUsage({ input: u.input, output: u.output, cached: u.cached });
          return out.start();
        }
        case 'content_block_start': {
          const block = obj(data.content_block);
          const index = num(data.index);
          if (block?.type === 'text') return out.text(str(block.text) ?? '');
          if (block?.type === 'tool_use') {
            if (json && block.name === JSON_TOOL) {
              jsonBlocks.add(index);
              return out.start();
            }
            return out.toolStart(index, str(block.id) ?? '', str(block.name) ?? '');
          }
          return [];
        }
        case 'content_block_delta': {
          const delta = obj(data.delta);
          const index = num(data.index);
          if (delta?.type === 'text_delta') return out.text(str(delta.text) ?? '');
          if (delta?.type === 'input_json_delta') {
            const part = str(delta.partial_json) ?? '';
            return jsonBlocks.has(index) ? out.text(part) : out.toolArgs(index, part);
          }
          return [];
        }
        case 'message_delta': {
          const delta = obj(data.delta);
          if (delta?.stop_reason !== undefined && delta.stop_reason !== null) {
            out.setFinish(anthropicFinish(delta.stop_reason, out.anyTool));
          }
          const u = obj(data.usage);
          if (u) {
            const read = anthropicUsage(u);
            out.setUsage({
              output: read.output,
              // message_delta repeats the input counts in newer versions; 0 means not reported here.
              ...(read.input > 0 ? { input: read.input, cached: read.cached } : {}),
            });
          }
          return [];
        }
        case 'message_stop':
          return out.end();
        case 'error':
          return [errorEnvelope(anthropicError(500, data))];
        default:
          return [];
      }
    },
    end: () => out.end(),
  };
}

/** Anthropic's `{type:"error",error:{type,message}}` (also sent as a stream `error` event). */
export function anthropicError(status: number, body: unknown): ErrorFields {
  const inner = obj(obj(body)?.error);
  return {
    message: errorMessage(body, `anthropic answered ${status}`),
    type: errorType(status),
    code: str(inner?.type) ?? null,
  };
}
