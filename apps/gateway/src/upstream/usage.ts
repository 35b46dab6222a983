// Token usage and the served model, read from a provider's JSON answer or from the final chunks of
// its event stream; estimated from text length when the provider reported none.
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  cachedInputTokens: number;
  estimated: boolean;
}

type Json = Record<string, unknown>;

const num = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);
const obj = (value: unknown): Json | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined;

/** Reads one usage object in any of the shapes providers use; undefined when it is none of them. */
function fromUsageObject(container: Json): Partial<Usage> | undefined {
  const openai = obj(container.usage);
  if (openai && ('prompt_tokens' in openai || 'completion_tokens' in openai)) {
    return {
      inputTokens: num(openai.prompt_tokens),
      outputTokens: num(openai.completion_tokens),
      totalTokens: num(openai.total_tokens),
      cachedInputTokens: num(obj(openai.prompt_tokens_details)?.cached_tokens),
    };
  }
  if (openai && ('input_tokens' in openai || 'output_tokens' in openai)) {
    return {
      inputTokens: num(openai.input_tokens),
      outputTokens: num(openai.output_tokens),
      cachedInputTokens: num(openai.cache_read_input_tokens),
    };
  }
  if (openai && ('inputTokens' in openai || 'outputTokens' in openai)) {
    return {
      inputTokens: num(openai.inputTokens),
      outputTokens: num(openai.outputTokens),
      totalTokens: num(openai.totalTokens),
    };
  }
  const gemini = obj(container.usageMetadata);
  if (gemini) {
    return {
      inputTokens: num(gemini.promptTokenCount),
      outputTokens: num(gemini.candidatesTokenCount),
      totalTokens: num(gemini.totalTokenCount),
      cachedInputTokens: num(gemini.cachedContentTokenCount),
    };
  }
  // Anthropic streams: message_start carries input usage inside `message`.
  const message = obj(container.message);
  return message ? fromUsageObject(message) : undefined;
}

function merge(into: Partial<Usage>, next: Partial<Usage>): void {
  for (const key of ['inputTokens', 'outputTokens', 'totalTokens', 'cachedInputTokens'] as const) {
    const value = next[key];
    if (value) into[key] = value;
  }
}

function complete(found: Partial<Usage>): Usage {
  const input = found.inputTokens ?? 0;
  const output = found.outputTokens ?? 0;
  return {
    inputTokens: input,
    outputTokens: output,
    totalTokens: found.totalTokens || input + output,
    cachedInputTokens: found.cachedInputTokens ?? 0,
    estimated: false,
  };
}

/**
 * Whether a `data:` line may carry usage (`usage`, `usageMetadata`, or Anthropic's `message`). OpenAI
 * puts `"usage":null` on every content chunk: a line whose every `sage` sits in such a mention
 * names none, and parsing it would yield nothing. A line with `\\u` escapes (a key could be spelled
 * with them) is always parsed.
 */
function mayCarryUsage(line: string): boolean {
  const first = line.indexOf('sage');
  if (first < 0) return false;
  if (!line.includes('"usage":null') || line.includes('\\u')) return true;
  // `sage` sits 2 characters into `"usage":null` (this said 3 before, so no line was ever skipped).
  for (let at = first; at >= 0; at = line.indexOf('sage', at + 4)) {
    if (!line.startsWith('"usage":null', at - 2)) return true;
  }
  return false;
}

/** Parses the JSON object of one `data:` line into `out` (at the front); true when it names a model. */
function takeLine(line: string, out: Json[]): boolean {
  const payload = line.slice(5).trim();
  if (!payload.startsWith('{')) return false;
  try {
    const parsed = obj(JSON.parse(payload));
    if (!parsed) return false;
    out.unshift(parsed);
    return typeof parsed.model === 'string' || typeof obj(parsed.message)?.model === 'string';
  } catch {
    // A line cut by the tail window or a non-JSON payload: not usage.
    return false;
  }
}

/**
 * JSON objects of the `data:` lines of an SSE buffer that can carry usage or the model. Lines
 * without either are skipped unparsed: a stream has one usage line and dozens of content lines.
 * The lines that may carry usage are found in one pass over the whole text (each `sage` outside a
 * `"usage":null`), not line by line; a text with `\\u` escapes goes line by line (sseObjectsByLine).
 */
function sseObjects(text: string): Json[] {
  if (text.includes('\\u')) return sseObjectsByLine(text);
  /** Start offsets of the lines holding such a `sage`. */
  const usageLines = new Set<number>();
  for (let at = text.indexOf('sage'); at >= 0; at = text.indexOf('sage', at + 4)) {
    if (!text.startsWith('"usage":null', at - 2)) usageLines.add(text.lastIndexOf('\n', at) + 1);
  }
  const out: Json[] = [];
  let modelSeen = false;
  // The lines of text.split('\n'), last first, cut out only when needed.
  for (let end = text.length; ; ) {
    const start = end === 0 ? 0 : text.lastIndexOf('\n', end - 1) + 1;
    if (text.startsWith('data:', start)) {
      const usage = usageLines.has(start);
      const line = usage || !modelSeen ? text.slice(start, end) : '';
      if ((usage || (!modelSeen && line.includes('"model"'))) && takeLine(line, out)) modelSeen = true;
    }
    if (start === 0) break;
    end = start - 1;
  }
  return out;
}

/** sseObjects() line by line: for texts where a key may be spelled with escapes. */
function sseObjectsByLine(text: string): Json[] {
  const out: Json[] = [];
  let modelSeen = false;
  const lines = text.split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!;
    if (!line.startsWith('data:')) continue;
    const usage = mayCarryUsage(line);
    const model = !modelSeen && line.includes('"model"');
    if ((usage || model) && takeLine(line, out)) modelSeen = true;
  }
  return out;
}

/** The last `"usage": {...}` object in a text whose beginning is cut off (large JSON bodies). */
function trailingUsage(text: string): Partial<Usage> | undefined {
  const at = text.lastIndexOf('"usage"');
  if (at < 0) return undefined;
  const start = text.indexOf('{', at);
  if (start < 0) return undefined;
  let depth = 0;
  for (let i = start; i < text.length; i++) {
    if (text[i] === '{') depth++;
    else if (text[i] === '}' && --depth === 0) {
      try {
        return fromUsageObject({ usage: JSON.parse(text.slice(start, i + 1)) });
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

export interface ResponseFacts {
  usage: Usage | undefined;
  model: string | undefined;
}

/** Usage and model from the head (whole JSON body) or tail (stream end) of a response. */
export function readResponseFacts(
  contentType: string | undefined,
  head: Buffer | undefined,
  tail: Buffer,
): ResponseFacts {
  if (contentType?.startsWith('text/event-stream')) {
    const found: Partial<Usage> = {};
    let model: string | undefined;
    let any = false;
    for (const event of sseObjects(tail.toString('utf8'))) {
      const usage = fromUsageObject(event);
      if (usage) {
        merge(found, usage);
        any = true;
      }
      if (typeof event.model === 'string') model = event.model;
      else if (typeof obj(event.message)?.model === 'string') model = obj(event.message)?.model as string;
    }
    return { usage: any ? complete(found) : undefined, model };
  }
  if (!contentType?.includes('json')) return { usage: undefined, model: undefined };
  if (!head) {
    const usage = trailingUsage(tail.toString('utf8'));
    return { usage: usage ? complete(usage) : undefined, model: undefined };
  }
  try {
    const body = obj(JSON.parse(head.toString('utf8')));
    if (!body) return { usage: undefined, model: undefined };
    const usage = fromUsageObject(body);
    return {
      usage: usage ? complete(usage) : undefined,
      model: typeof body.model === 'string' ? body.model : undefined,
    };
  } catch {
    return { usage: undefined, model: undefined };
  }
}

/** Rough count (4 characters a token) used only when the provider reported no usage. */
export function estimateUsage(requestText: number, responseText: number): Usage {
  const inputTokens = Math.ceil(requestText / 4);
  const outputTokens = Math.ceil(responseText / 4);
  return {
    inputTokens,
    outputTokens,
    totalTokens: inputTokens + outputTokens,
    cachedInputTokens: 0,
    estimated: true,
  };
}
