// Amazon Bedrock: the Converse / ConverseStream shape (camelCase `usage`, `output.message`,
// `contentBlockDelta` events) and InvokeModel bodies, which are the model family's own shape:
// Claude answers in Anthropic's (anthropic.ts), Llama, Titan and Mistral in theirs.
import { anthropic } from './anthropic.js';
import { bodyModel, contentText, lastUserIn, num, obj, str, TEXT_PARTS, userTurnIn } from './json.js';
import type { Json, UsagePart, WireFormat } from './types.js';

const MODEL_PATH = /^\/model\/([^/]{1,512})\//;

/** Converse `usage`: `inputTokens` leaves out cache reads and writes (AWS TokenUsage), added back. */
function converseUsage(body: Json): UsagePart | undefined {
  const u = obj(body.usage);
  if (!u || !('inputTokens' in u || 'outputTokens' in u)) return undefined;
  const read = num(u.cacheReadInputTokens);
  const write = num(u.cacheWriteInputTokens);
  return {
    inputTokens: num(u.inputTokens) + read + write,
    outputTokens: num(u.outputTokens),
    totalTokens: num(u.totalTokens),
    cachedInputTokens: read,
    cacheWriteInputTokens: write,
  };
}

/** InvokeModel bodies of the non-Anthropic families, and the invocation metrics Bedrock appends. */
function invokeUsage(body: Json): UsagePart | undefined {
  const metrics = obj(body['amazon-bedrock-invocationMetrics']);
  if (metrics) {
    // Like Converse, the input count leaves out cache reads and writes.
    const read = num(metrics.cacheReadInputTokenCount);
    const write = num(metrics.cacheWriteInputTokenCount);
    return {
      inputTokens: num(metrics.inputTokenCount) + read + write,
      outputTokens: num(metrics.outputTokenCount),
      cachedInputTokens: read,
      cacheWriteInputTokens: write,
    };
  }
  // Meta Llama.
  if ('prompt_token_count' in body || 'generation_token_count' in body) {
    return { inputTokens: num(body.prompt_token_count), outputTokens: num(body.generation_token_count) };
  }
  // Amazon Titan text (results[].tokenCount) and embeddings (input count only).
  if ('inputTextTokenCount' in body) {
    let output = 0;
    if (Array.isArray(body.results)) for (const r of body.results) output += num(obj(r)?.tokenCount);
    return { inputTokens: num(body.inputTextTokenCount), outputTokens: output };
  }
  return undefined;
}

function usage(body: Json): UsagePart | undefined {
  return converseUsage(body) ?? anthropic.usage(body) ?? invokeUsage(body);
}

function texts(list: unknown, key: string): string | undefined {
  if (!Array.isArray(list) || list.length === 0) return undefined;
  const out: string[] = [];
  for (const item of list) {
    const value = obj(item)?.[key];
    if (typeof value !== 'string') return undefined;
    out.push(value);
  }
  return out.join('\n');
}

function text(body: Json): string | undefined {
  const message = obj(obj(body.output)?.message);
  if (message) return contentText(message.content, TEXT_PARTS);
  const claude = anthropic.text(body);
  if (claude !== undefined) return claude;
  if (typeof body.generation === 'string') return body.generation;
  // Titan `results[].outputText`, Mistral `outputs[].text`: only lists made entirely of such items
  // (a moderation answer's `results` is no answer text).
  const titan = texts(body.results, 'outputText');
  return titan ?? texts(body.outputs, 'text');
}

/** ConverseStream `contentBlockDelta` ({delta:{text}}), or a decoded Claude stream event. */
function eventText(event: Json): string {
  const delta = obj(event.delta);
  if (typeof delta?.text === 'string') return delta.text;
  return anthropic.eventText(event) || (typeof event.generation === 'string' ? event.generation : '');
}

export const bedrock: WireFormat = {
  id: 'bedrock',
  usage,
  eventUsage: usage,
  text,
  eventText,
  // Converse answers do not name the model; Claude's InvokeModel answers do.
  model: (body) => str(body.model),
  eventModel: (event) => anthropic.eventModel(event),
  lastUserMessage: (request) => lastUserIn(request, 'messages', 'content'),
  userTurnText(request) {
    const messages = obj(request)?.messages;
    return Array.isArray(messages) ? userTurnIn(messages, (m) => m.content, TEXT_PARTS) : undefined;
  },
  requestModel(request, path) {
    const own = bodyModel(request);
    if (own !== undefined) return own;
    const match = path === undefined ? null : MODEL_PATH.exec(path);
    if (match?.[1] === undefined) return undefined;
    try {
      return decodeURIComponent(match[1]);
    } catch {
      return match[1];
    }
  },
};
