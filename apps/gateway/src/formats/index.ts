// Provider wire formats in one home: picks the format of a provider and path (or of a body's shape,
// for OpenAI-compatible providers and callers that know neither), and reads usage, model and
// answer text from JSON answers and event streams with it, and the media units (images, speech
// characters, audio seconds) image and audio requests are billed by.
import { anthropic } from './anthropic.js';
import { eventStreamPayloads } from './aws-event-stream.js';
import { bedrock } from './bedrock.js';
import { gemini } from './gemini.js';
import { bodyModel, obj, str, TEXT_PARTS, userTurnIn } from './json.js';
import { openai, usageOnRetrieval } from './openai.js';
import { forEachSseData, forEachSseEvent } from './sse.js';
import type { Json, Usage, UsagePart, UserMessageAt, WireFormat } from './types.js';
import { completeUsage, mergeUsage } from './usage.js';

export { eventStreamPayloads } from './aws-event-stream.js';
export {
  type Encoding,
  type EstimateInput,
  encodingFor,
  estimateTokens,
  estimateUsage,
  estimateUsageFromSizes,
  preloadTokenizers,
} from './estimate.js';
export { bodyModel, jsonOrUndefined } from './json.js';
export {
  answerMediaUnits,
  DEFAULT_IMAGE_MODEL,
  formFile,
  formRequest,
  type MediaEndpoint,
  type MediaUnits,
  measuredMediaUnits,
  mediaEndpoint,
  mediaModel,
  requestMediaUnits,
} from './media-units.js';
export { forEachSseData, forEachSseEvent, parseSse, type SseEvent, SseReader } from './sse.js';
export type { FormatId, Json, Usage, UsagePart, UserMessageAt, WireFormat } from './types.js';
export { completeUsage, mergeUsage } from './usage.js';
export { anthropic, bedrock, gemini, openai };

/**
 * Any format, by shape: for callers that know no provider (a response read from its bytes only).
 * OpenAI's usage is tried first (the most common); both it and Anthropic's may say `input_tokens`,
 * and OpenAI's reader leaves usage with Anthropic's cache counts (kept outside `input_tokens`) to
 * Anthropic's.
 */
export const anyFormat: WireFormat = {
  id: 'any',
  usage: (body) => openai.usage(body) ?? anthropic.usage(body) ?? bedrock.usage(body) ?? gemini.usage(body),
  eventUsage: (event) =>
    openai.eventUsage(event) ??
    anthropic.eventUsage(event) ??
    bedrock.eventUsage(event) ??
    gemini.eventUsage(event),
  text: (body) => openai.text(body) ?? anthropic.text(body) ?? bedrock.text(body) ?? gemini.text(body),
  eventText: (event) => openai.eventText(event) + anthropic.eventText(event) + gemini.eventText(event),
  model: (body) =>
    str(body.model) ??
    str(obj(body.message)?.model) ??
    str(obj(body.response)?.model) ??
    str(body.modelVersion),
  eventModel: (event) =>
    str(event.model) ??
    str(obj(event.message)?.model) ??
    str(obj(event.response)?.model) ??
    str(event.modelVersion),
  lastUserMessage(request: unknown): UserMessageAt | undefined {
    const body = obj(request);
    if (Array.isArray(body?.messages)) return openai.lastUserMessage(body);
    if (Array.isArray(body?.contents)) return gemini.lastUserMessage(body);
    return undefined;
  },
  userTurnText(request) {
    const body = obj(request);
    if (!body) return undefined;
    for (const list of [body.messages, body.contents, body.input]) {
      if (Array.isArray(list) && list.some((m) => obj(m) !== undefined)) {
        const turn = userTurnIn(list, (m) => m.content ?? m.parts, TEXT_PARTS);
        if (turn !== undefined) return turn;
      }
    }
    return openai.userTurnText({ prompt: body.prompt, input: body.input });
  },
  requestModel: (request, path) =>
    bodyModel(request) ?? bedrock.requestModel(undefined, path) ?? gemini.requestModel(undefined, path),
};

/**
 * The format of a provider's answers on a path. `provider` is the registry's provider type.
 * Bedrock InvokeModel and Vertex rawPredict speak the model family's format (Claude: Anthropic's);
 * Vertex's OpenAI-compatible endpoint speaks OpenAI's; every other provider is OpenAI-compatible.
 */
export function formatFor(provider: string, path: string): WireFormat {
  switch (provider) {
    case 'anthropic':
      return anthropic;
    case 'bedrock':
      if (path.includes('/converse')) return bedrock;
      return /^\/model\/[^/]*anthropic\./.test(path) ? anthropic : bedrock;
    case 'vertex-ai':
    case 'google':
      if (path.includes('/publishers/anthropic/')) return anthropic;
      if (path.includes('/chat/completions')) return openai;
      return gemini;
    default:
      return openai;
  }
}

/** The format a body's shape says, for OpenAI-compatible providers that answer in another one. */
export function detectFormat(body: unknown): WireFormat | undefined {
  const o = obj(body);
  if (!o) return Array.isArray(body) && body.length > 0 ? detectFormat(body[0]) : undefined;
  if (Array.isArray(o.choices) || o.object === 'response' || 'prompt_tokens' in (obj(o.usage) ?? {}))
    return openai;
  const type = str(o.type);
  if (type === 'message' || type?.startsWith('message_') || type?.startsWith('content_block'))
    return anthropic;
  if (type?.startsWith('response.')) return openai;
  if (o.usageMetadata !== undefined || Array.isArray(o.candidates)) return gemini;
  if (obj(o.output)?.message !== undefined || 'inputTokens' in (obj(o.usage) ?? {})) return bedrock;
  if (o.contentBlockDelta !== undefined || o.metadata !== undefined) return bedrock;
  return undefined;
}

/** Every string under `value` (texts of parts, nested items), appended to `out`. */
function collectText(value: unknown, out: string[]): void {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const item of value) collectText(item, out);
  else {
    const o = obj(value);
    if (!o) return;
    if (typeof o.text === 'string') out.push(o.text);
    else collectText(o.content ?? o.parts, out);
  }
}

/**
 * The text a model reads from a request, for the token estimate when the provider reported no
 * usage: system prompts and instructions, every message's text parts (not only the last user
 * turn), a prompt or input, and tool definitions as JSON (they are billed as input too).
 */
export function requestText(request: unknown): string {
  const body = obj(request);
  if (!body) return '';
  const out: string[] = [];
  for (const key of [
    'system',
    'instructions',
    'systemInstruction',
    'messages',
    'contents',
    'prompt',
    'input',
  ]) {
    collectText(body[key], out);
  }
  if (Array.isArray(body.tools) && body.tools.length > 0) out.push(JSON.stringify(body.tools));
  return out.join('\n');
}

export interface AnswerFacts {
  usage: Usage | undefined;
  model: string | undefined;
  /**
   * The id of the object this usage belongs to, when that object reports it again whenever it is
   * read (`usageOnRetrieval`: a batch, a background Response): it is charged once under that id.
   */
  chargedOnce?: string | undefined;
}

/** `chargedOnce` of an answer object (or of the Response a stream event carries) with usage. */
function chargedOnceOf(o: Json): string | undefined {
  return usageOnRetrieval(o) ? str(o.id) : undefined;
}

/** Usage and model of a parsed JSON answer; an array (Gemini's stream without alt=sse) is read as
 *  the list of its chunks. */
export function jsonFacts(body: unknown, format: WireFormat = anyFormat): AnswerFacts {
  if (Array.isArray(body)) {
    const found: UsagePart = {};
    let any = false;
    let model: string | undefined;
    for (const item of body) {
      const event = obj(item);
      if (!event) continue;
      const usage = format.eventUsage(event);
      if (usage) {
        mergeUsage(found, usage);
        any = true;
      }
      model = format.eventModel(event) ?? model;
    }
    return { usage: any ? completeUsage(found) : undefined, model };
  }
  const o = obj(body);
  if (!o) return { usage: undefined, model: undefined };
  const usage = format.usage(o);
  if (!usage) return { usage: undefined, model: format.model(o) };
  const facts: AnswerFacts = { usage: completeUsage(usage), model: format.model(o) };
  const once = chargedOnceOf(o);
  if (once !== undefined) facts.chargedOnce = once;
  return facts;
}

/**
 * `jsonFacts` of a retrieval's answer (GET, HEAD, DELETE): its usage only when no creation reported
 * it before and it can be charged once (`chargedOnce`: a batch, a background Response, by id); the
 * model it names either way.
 */
export function retrievalFacts(body: unknown): AnswerFacts {
  const facts = jsonFacts(body);
  return facts.chargedOnce !== undefined ? facts : { usage: undefined, model: facts.model };
}

/** Answer text of a parsed JSON answer (an array: its chunks' text, concatenated). */
export function jsonText(body: unknown, format: WireFormat = anyFormat): string | undefined {
  if (Array.isArray(body)) {
    // Undefined unless some item is an answer chunk: any other JSON array has no answer text.
    let text: string | undefined;
    for (const item of body) {
      const event = obj(item);
      if (!event) continue;
      const piece = format.eventText(event);
      if (piece !== '' || format.text(event) !== undefined) text = (text ?? '') + piece;
    }
    return text;
  }
  const o = obj(body);
  return o ? format.text(o) : undefined;
}

/**
 * Whether an event's data may carry usage (`usage`, `usageMetadata`, Anthropic's `message`).
 * OpenAI puts `"usage":null` on every content chunk when include_usage is on: data whose every
 * `sage` sits in such a mention names none, and parsing it would yield nothing. Data with `\u`
 * escapes (a key could be spelled with them) is always parsed: `escapes` says whether the text
 * holding the data has any (checked once per text by the caller).
 */
export function mayCarryUsage(data: string, escapes = data.includes('\\u')): boolean {
  if (escapes && data.includes('\\u')) return true;
  // `sage` sits 2 characters into `"usage":null`.
  for (let at = data.indexOf('sage'); at >= 0; at = data.indexOf('sage', at + 4)) {
    if (!data.startsWith('"usage":null', at - 2)) return true;
  }
  return false;
}

function parseObject(data: string): Json | undefined {
  try {
    return obj(JSON.parse(data));
  } catch {
    // An event cut by the tail window, or a non-JSON payload: nothing to read.
    return undefined;
  }
}

/** Whether event data is a JSON object (after leading whitespace), without parsing it. */
function opensObject(data: string): boolean {
  for (let i = 0; i < data.length; i++) {
    const c = data.charCodeAt(i);
    if (c === 123 /* { */) return true;
    if (c !== 32 && c !== 9 && c !== 10 && c !== 13) return false;
  }
  return false;
}

/**
 * Usage and model of an event stream (whole, or the tail of one: an event cut at the front does
 * not parse and is skipped). Only events that may carry usage, and the last that names a model,
 * are JSON-parsed: a stream has one usage event and dozens of content events.
 */
export function streamFacts(body: string | Buffer, format: WireFormat = anyFormat): AnswerFacts {
  const text = typeof body === 'string' ? body : body.toString('utf8');
  const escapes = text.includes('\\u');
  const datas: string[] = [];
  forEachSseData(text, (data) => datas.push(data), { dispatchAtEnd: true });
  // Walked last to first: the last event naming the model is the first one met.
  const parsed: Json[] = [];
  let model: string | undefined;
  for (let i = datas.length - 1; i >= 0; i--) {
    const data = datas[i] as string;
    const usage = mayCarryUsage(data, escapes);
    const wantModel = model === undefined && data.includes('"model');
    if ((!usage && !wantModel) || !opensObject(data)) continue;
    const event = parseObject(data);
    if (!event) continue;
    if (usage) parsed.push(event);
    if (model === undefined) model = format.eventModel(event);
  }
  const found: UsagePart = {};
  let any = false;
  let once: string | undefined;
  for (let i = parsed.length - 1; i >= 0; i--) {
    const event = parsed[i] as Json;
    const usage = format.eventUsage(event);
    if (usage) {
      mergeUsage(found, usage);
      any = true;
      // A Responses stream's last event carries the whole Response (a background one: charged once).
      const response = obj(event.response);
      if (response) once = chargedOnceOf(response) ?? once;
    }
  }
  if (!any) return { usage: undefined, model };
  const facts: AnswerFacts = { usage: completeUsage(found), model };
  if (once !== undefined) facts.chargedOnce = once;
  return facts;
}

/**
 * Usage and model of a Bedrock AWS event stream (ConverseStream's `metadata` event, or the Claude
 * events and invocation metrics of InvokeModelWithResponseStream), whole or its tail.
 */
export function awsEventStreamFacts(body: Buffer, format: WireFormat = bedrock): AnswerFacts {
  return jsonFacts(eventStreamPayloads(body), format);
}

/** The answer text of an event stream: every event's text, in order. */
export function streamText(body: string | Buffer, format: WireFormat = anyFormat): string {
  let text = '';
  forEachSseEvent(
    body,
    (event) => {
      if (!opensObject(event.data)) return;
      const parsed = parseObject(event.data);
      if (parsed) text += format.eventText(parsed);
    },
    { dispatchAtEnd: true },
  );
  return text;
}
