// OpenAI chat <-> Bedrock Converse / ConverseStream: the request body (messages of content blocks,
// system, inferenceConfig, toolConfig), the answer, the AWS event-stream events and the errors.
// JSON mode and json_schema use one forced tool, as for Anthropic.
import { JSON_TOOL, jsonByTool } from './chat-anthropic.js';
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

const IMAGE_FORMATS: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpeg',
  'image/jpg': 'jpeg',
  'image/gif': 'gif',
  'image/webp': 'webp',
};

function block(part: Part, at: string): Json {
  if (part.kind === 'text') return { text: part.text };
  if (part.data === undefined) {
    throw new TranslationError(
      at,
      'image URLs are not supported by bedrock: send the image as a base64 data URL',
    );
  }
  const format =
    IMAGE_FORMATS[part.mediaType] ?? fail(at, `image type ${part.mediaType} is not supported by bedrock`);
  return { image: { format, source: { bytes: part.data } } };
}

function fail(param: string, message: string): never {
  throw new TranslationError(param, message);
}

function messages(req: ChatRequest): Json[] {
  const out: { role: string; content: Json[] }[] = [];
  const push = (role: string, content: Json[]) => {
    const last = out.at(-1);
    if (last && last.role === role) last.content.push(...content);
    else out.push({ role, content });
  };
  req.turns.forEach((turn, i) => {
    const at = `messages[${i}].content`;
    if (turn.role === 'user')
      push(
        'user',
        turn.parts.map((p) => block(p, at)),
      );
    else if (turn.role === 'tool') {
      push('user', [{ toolResult: { toolUseId: turn.toolCallId, content: [{ text: turn.content }] } }]);
    } else {
      const content = turn.parts.map((p) => block(p, at));
      for (const [j, call] of turn.toolCalls.entries()) {
        content.push({
          toolUse: {
            toolUseId: call.id,
            name: call.name,
            input: parseArguments(call.arguments, `messages[${i}].tool_calls[${j}].function.arguments`),
          },
        });
      }
      push('assistant', content);
    }
  });
  return out;
}

/** The Converse body (the model is in the path: `/model/<id>/converse`). */
export function converseRequest(req: ChatRequest): Json {
  refuseUnmapped(req, 'bedrock');
  if (req.serialTools) fail('parallel_tool_calls', 'parallel_tool_calls: false is not supported by bedrock');
  const body: Json = { messages: messages(req) };
  if (req.system.length > 0) body.system = req.system.map((text) => ({ text }));
  const inference: Json = {};
  if (req.maxTokens !== undefined) inference.maxTokens = req.maxTokens;
  if (req.temperature !== undefined) inference.temperature = req.temperature;
  if (req.topP !== undefined) inference.topP = req.topP;
  if (req.stop.length > 0) inference.stopSequences = req.stop;
  if (Object.keys(inference).length > 0) body.inferenceConfig = inference;
  const tools: Json[] = req.tools.map((t) => ({
    toolSpec: {
      name: t.name,
      ...(t.description === undefined ? {} : { description: t.description }),
      inputSchema: { json: t.parameters },
    },
  }));
  let choice: Json | undefined;
  if (jsonByTool(req)) {
    if (tools.length > 0) fail('response_format', 'response_format with tools is not supported by bedrock');
    const format = req.responseFormat;
    tools.push({
      toolSpec: {
        name: JSON_TOOL,
        description: 'Answer with this tool: its input is the JSON answer.',
        inputSchema: { json: format.kind === 'json_schema' ? format.schema : { type: 'object' } },
      },
    });
    choice = { tool: { name: JSON_TOOL } };
  } else if (req.toolChoice) {
    const c = req.toolChoice;
    if (c.kind === 'none') fail('tool_choice', 'tool_choice "none" is not supported by bedrock');
    choice =
      c.kind === 'required' ? { any: {} } : c.kind === 'tool' ? { tool: { name: c.name } } : { auto: {} };
  }
  if (tools.length > 0) body.toolConfig = { tools, ...(choice ? { toolChoice: choice } : {}) };
  return body;
}

export function converseFinish(reason: unknown, tools: boolean): FinishReason {
  switch (reason) {
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return tools ? 'tool_calls' : 'stop';
    case 'guardrail_intervened':
    case 'content_filtered':
      return 'content_filter';
    default:
      return 'stop';
  }
}

function converseUsage(u: Json | undefined): { input: number; output: number; cached: number } {
  const read = num(u?.cacheReadInputTokens);
  return {
    input: num(u?.inputTokens) + read + num(u?.cacheWriteInputTokens),
    output: num(u?.outputTokens),
    cached: read,
  };
}

export function converseAnswer(body: Json, req: ChatRequest, id: string): ChatAnswer {
  const json = jsonByTool(req);
  let text = '';
  let any = false;
  const calls: ToolCall[] = [];
  const content = obj(obj(body.output)?.message)?.content;
  for (const item of Array.isArray(content) ? content : []) {
    const b = obj(item);
    if (typeof b?.text === 'string') {
      text += b.text;
      any = true;
      continue;
    }
    const use = obj(b?.toolUse);
    if (use) {
      const input = JSON.stringify(use.input ?? {});
      if (json && use.name === JSON_TOOL) {
        text += input;
        any = true;
      } else calls.push({ id: str(use.toolUseId) ?? '', name: str(use.name) ?? '', arguments: input });
    }
  }
  return {
    id,
    model: req.model,
    text: any ? text : null,
    toolCalls: calls,
    finish: converseFinish(body.stopReason, calls.length > 0),
    usage: converseUsage(obj(body.usage)),
  };
}

/** ConverseStream events (by `:event-type`) into chunks; an `exception` message becomes an error chunk. */
export function converseStream(req: ChatRequest, id: string, created: number): ChatStream {
  const out = new ChunkWriter(id, req.model, created, req.includeUsage);
  const json = jsonByTool(req);
  const jsonBlocks = new Set<number>();
  return {
    event({ type, data }: ProviderEvent): Json[] {
      switch (type) {
        case 'messageStart':
          return out.start();
        case 'contentBlockStart': {
          const use = obj(obj(data.start)?.toolUse);
          const index = num(data.contentBlockIndex);
          if (!use) return [];
          if (json && use.name === JSON_TOOL) {
            jsonBlocks.add(index);
            return out.start();
          }
          return out.toolStart(index, str(use.toolUseId) ?? '', str(use.name) ?? '');
        }
        case 'contentBlockDelta': {
          const delta = obj(data.delta);
          const index = num(data.contentBlockIndex);
          if (typeof delta?.text === 'string') return out.text(delta.text);
          const input = str(obj(delta?.toolUse)?.input);
          if (input === undefined) return [];
          return jsonBlocks.has(index) ? out.text(input) : out.toolArgs(index, input);
        }
        case 'messageStop':
          out.setFinish(converseFinish(data.stopReason, out.anyTool));
          return [];
        case 'metadata': {
          const u = converseUsage(obj(data.usage));
          out.setUsage(u);
          return out.end();
        }
        default:
          // Exceptions carry their name as the event type (`throttlingException`, ...).
          if (type.endsWith('Exception') || type.endsWith('exception')) {
            return [errorEnvelope({ message: errorMessage(data, type), type: 'api_error', code: type })];
          }
          return [];
      }
    },
    end: () => out.end(),
  };
}

/** Bedrock's `{message}` with the error name in `x-amzn-errortype` (`ValidationException:...`). */
export function bedrockError(status: number, body: unknown, errorTypeHeader?: string): ErrorFields {
  const code = errorTypeHeader?.split(':')[0] || str(obj(body)?.__type) || null;
  return { message: errorMessage(body, `bedrock answered ${status}`), type: errorType(status), code };
}
