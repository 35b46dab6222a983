// The mock's tool calling, one rule for every chat shape (OpenAI, Anthropic, Converse, Gemini, Cohere): a request that offers tools and whose
// last turn is not a tool result calls them (the forced one, else every offered tool, in order: a
// parallel call), each with the arguments `{"input": <the echo text>}`; after a tool result it
// answers with text as usual. `none` calls nothing.
import { randomId } from './text.js';

export interface MockToolCall {
  readonly id: string;
  readonly name: string;
  readonly args: { readonly input: string };
}

export interface ToolOffer {
  /** Offered tool names, in order. */
  readonly names: readonly string[];
  /** A forced tool, `none`, or undefined (auto / any). */
  readonly choice?: { readonly tool: string } | 'none' | undefined;
  /** The last turn carries a tool result. */
  readonly afterResult: boolean;
}

export function mockToolCalls(offer: ToolOffer, echo: string): MockToolCall[] {
  if (offer.names.length === 0 || offer.afterResult || offer.choice === 'none') return [];
  const names = offer.choice === undefined ? offer.names : [offer.choice.tool];
  return names.map((name) => ({ id: randomId('call_mock_', 8), name, args: { input: echo } }));
}

/** The text of a JSON-mode answer: the echo as a JSON object. */
export function jsonAnswer(echo: string): string {
  return JSON.stringify({ input: echo });
}

type Json = Record<string, unknown>;
const obj = (v: unknown): Json | undefined =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : undefined;
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const lastOf = (v: unknown): Json | undefined => obj(list(v).at(-1));

/** Anthropic Messages (also Bedrock invoke and Vertex rawPredict). */
export function anthropicOffer(body: Json): ToolOffer {
  const choice = obj(body.tool_choice);
  const content = list(lastOf(body.messages)?.content);
  return {
    names: list(body.tools).map((t) => String(obj(t)?.name ?? '')),
    choice:
      choice?.type === 'tool' ? { tool: String(choice.name) } : choice?.type === 'none' ? 'none' : undefined,
    afterResult: content.some((b) => obj(b)?.type === 'tool_result'),
  };
}

/** Bedrock Converse. */
export function converseOffer(body: Json): ToolOffer {
  const config = obj(body.toolConfig);
  const forced = obj(obj(config?.toolChoice)?.tool);
  return {
    names: list(config?.tools).map((t) => String(obj(obj(t)?.toolSpec)?.name ?? '')),
    choice: forced ? { tool: String(forced.name) } : undefined,
    afterResult: list(lastOf(body.messages)?.content).some((b) => obj(b)?.toolResult !== undefined),
  };
}

/** Gemini generateContent. */
export function geminiOffer(body: Json): ToolOffer {
  const names: string[] = [];
  for (const tool of list(body.tools)) {
    for (const fn of list(obj(tool)?.functionDeclarations)) names.push(String(obj(fn)?.name ?? ''));
  }
  const calling = obj(obj(body.toolConfig)?.functionCallingConfig);
  const allowed = list(calling?.allowedFunctionNames);
  return {
    names,
    choice:
      calling?.mode === 'NONE'
        ? 'none'
        : calling?.mode === 'ANY' && allowed.length === 1
          ? { tool: String(allowed[0]) }
          : undefined,
    afterResult: list(lastOf(body.contents)?.parts).some((p) => obj(p)?.functionResponse !== undefined),
  };
}

/** OpenAI chat and Cohere v2 chat (the same message and tool shape). */
export function openaiOffer(body: Json): ToolOffer {
  const choice = body.tool_choice;
  const forced = obj(obj(choice)?.function)?.name;
  return {
    names: list(body.tools).map((t) => String(obj(obj(t)?.function)?.name ?? '')),
    choice:
      typeof forced === 'string'
        ? { tool: forced }
        : choice === 'none' || choice === 'NONE'
          ? 'none'
          : undefined,
    afterResult: lastOf(body.messages)?.role === 'tool',
  };
}
