// OpenAI chat <-> Gemini generateContent / streamGenerateContent (Google AI Studio and Vertex AI):
// contents of parts, systemInstruction, generationConfig, function declarations; the answer's
// candidates, its SSE chunks (`alt=sse`) and errors. JSON mode is Gemini's own (responseMimeType,
// responseJsonSchema).
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

function part(p: Part): Json {
  if (p.kind === 'text') return { text: p.text };
  if (p.data !== undefined) return { inlineData: { mimeType: p.mediaType, data: p.data } };
  return { fileData: { mimeType: p.mediaType, fileUri: p.url } };
}

/** A tool result's content as the object functionResponse.response wants. */
function responseObject(content: string): Json {
  try {
    const parsed = obj(JSON.parse(content));
    if (parsed) return parsed;
  } catch {
    // Plain text: wrapped below.
  }
  return { content };
}

function contents(req: ChatRequest): Json[] {
  const out: { role: string; parts: Json[] }[] = [];
  const names = new Map<string, string>();
  const push = (role: string, parts: Json[]) => {
    const last = out.at(-1);
    if (last && last.role === role) last.parts.push(...parts);
    else out.push({ role, parts });
  };
  req.turns.forEach((turn, i) => {
    if (turn.role === 'user') push('user', turn.parts.map(part));
    else if (turn.role === 'tool') {
      // Gemini answers a call by its function's name: the id's name from the assistant turn.
      const name = names.get(turn.toolCallId) ?? turn.toolCallId;
      push('user', [{ functionResponse: { name, response: responseObject(turn.content) } }]);
    } else {
      const parts = turn.parts.map(part);
      turn.toolCalls.forEach((call, j) => {
        names.set(call.id, call.name);
        parts.push({
          functionCall: {
            name: call.name,
            args: parseArguments(call.arguments, `messages[${i}].tool_calls[${j}].function.arguments`),
          },
        });
      });
      push('model', parts);
    }
  });
  return out;
}

/** The generateContent body (the model is in the path). */
export function geminiRequest(req: ChatRequest): Json {
  refuseUnmapped(req, 'gemini');
  const body: Json = { contents: contents(req) };
  if (req.system.length > 0) body.systemInstruction = { parts: req.system.map((text) => ({ text })) };
  const config: Json = {};
  if (req.maxTokens !== undefined) config.maxOutputTokens = req.maxTokens;
  if (req.temperature !== undefined) config.temperature = req.temperature;
  if (req.topP !== undefined) config.topP = req.topP;
  if (req.stop.length > 0) config.stopSequences = req.stop;
  const format = req.responseFormat;
  if (format.kind !== 'text') config.responseMimeType = 'application/json';
  if (format.kind === 'json_schema') config.responseJsonSchema = format.schema;
  if (Object.keys(config).length > 0) body.generationConfig = config;
  if (req.tools.length > 0) {
    body.tools = [
      {
        functionDeclarations: req.tools.map((t) => ({
          name: t.name,
          ...(t.description === undefined ? {} : { description: t.description }),
          parameters: t.parameters,
        })),
      },
    ];
  }
  const c = req.toolChoice;
  if (c) {
    const calling: Json =
      c.kind === 'tool'
        ? { mode: 'ANY', allowedFunctionNames: [c.name] }
        : { mode: c.kind === 'required' ? 'ANY' : c.kind === 'none' ? 'NONE' : 'AUTO' };
    body.toolConfig = { functionCallingConfig: calling };
  }
  if (req.serialTools) {
    // Gemini has no switch for one call at a time.
    throw new TranslationError(
      'parallel_tool_calls',
      'parallel_tool_calls: false is not supported by gemini',
    );
  }
  return body;
}

export function geminiFinish(reason: unknown, tools: boolean): FinishReason {
  switch (reason) {
    case 'MAX_TOKENS':
      return 'length';
    case 'SAFETY':
    case 'RECITATION':
    case 'BLOCKLIST':
    case 'PROHIBITED_CONTENT':
    case 'SPII':
    case 'IMAGE_SAFETY':
      return 'content_filter';
    default:
      return tools ? 'tool_calls' : 'stop';
  }
}

function geminiUsage(u: Json | undefined): { input: number; output: number; cached: number } {
  return {
    input: num(u?.promptTokenCount) + num(u?.toolUsePromptTokenCount),
    output: num(u?.candidatesTokenCount) + num(u?.thoughtsTokenCount),
    cached: num(u?.cachedContentTokenCount),
  };
}

/** The first candidate's answer parts (thoughts left out). */
function candidateParts(body: Json): { parts: Json[]; finish: unknown } {
  const candidate = obj(Array.isArray(body.candidates) ? body.candidates[0] : undefined);
  const parts = obj(candidate?.content)?.parts;
  return {
    parts: (Array.isArray(parts) ? parts : []).map(obj).filter((p): p is Json => !!p && p.thought !== true),
    finish: candidate?.finishReason,
  };
}

function callOf(p: Json, id: string): ToolCall | undefined {
  const call = obj(p.functionCall);
  if (!call) return undefined;
  return { id: str(call.id) ?? id, name: str(call.name) ?? '', arguments: JSON.stringify(call.args ?? {}) };
}

export function geminiAnswer(body: Json, req: ChatRequest, id: string): ChatAnswer {
  const { parts, finish } = candidateParts(body);
  let text = '';
  let any = false;
  const calls: ToolCall[] = [];
  for (const p of parts) {
    if (typeof p.text === 'string') {
      text += p.text;
      any = true;
    }
    const call = callOf(p, `call_${id}_${calls.length}`);
    if (call) calls.push(call);
  }
  return {
    id: str(body.responseId) ?? id,
    model: str(body.modelVersion) ?? req.model,
    text: any ? text : null,
    toolCalls: calls,
    finish: geminiFinish(finish, calls.length > 0),
    usage: geminiUsage(obj(body.usageMetadata)),
  };
}

/** Gemini's SSE chunks into OpenAI chunks: each chunk's text parts and whole function calls. */
export function geminiStream(req: ChatRequest, id: string, created: number): ChatStream {
  const out = new ChunkWriter(id, req.model, created, req.includeUsage);
  let calls = 0;
  return {
    event({ data }: ProviderEvent): Json[] {
      if (obj(data.error)) {
        return [errorEnvelope(geminiError(num(obj(data.error)?.code) || 500, data))];
      }
      out.name(str(data.responseId), str(data.modelVersion));
      const chunks: Json[] = [];
      const { parts, finish } = candidateParts(data);
      for (const p of parts) {
        if (typeof p.text === 'string') chunks.push(...out.text(p.text));
        const call = callOf(p, `call_${id}_${calls}`);
        if (call) chunks.push(...out.toolStart(`c${calls++}`, call.id, call.name, call.arguments));
      }
      if (finish !== undefined && finish !== null) out.setFinish(geminiFinish(finish, out.anyTool));
      const u = obj(data.usageMetadata);
      if (u) out.setUsage(geminiUsage(u));
      return chunks;
    },
    end: () => out.end(),
  };
}

/** Google's `{error:{code,message,status}}`. */
export function geminiError(status: number, body: unknown): ErrorFields {
  const inner = obj(Array.isArray(body) ? body[0] : body)?.error;
  return {
    message: errorMessage(Array.isArray(body) ? body[0] : body, `gemini answered ${status}`),
    type: errorType(status),
    code: str(obj(inner)?.status) ?? null,
  };
}
