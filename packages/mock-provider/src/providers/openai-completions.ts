// OpenAI legacy text completions (JSON and SSE): each prompt is echoed back.
import { intField, requireJsonObject } from '../body.js';
import type { RouteContext } from '../context.js';
import { invalidRequest } from '../errors.js';
import { sendError, sendJson } from '../http-io.js';
import { sseFrame, writeStream } from '../stream.js';
import { countTokens, nowSeconds, randomId, splitChunks, truncateTokens } from '../text.js';
import { includeUsage } from './openai-chat.js';

/** Prompts of a completion body: a string, strings, or token arrays (rendered as space-joined numbers). */
function prompts(value: unknown): string[] | undefined {
  if (typeof value === 'string') return [value];
  if (!Array.isArray(value) || value.length === 0) return undefined;
  if (value.every((v) => typeof v === 'number')) return [value.join(' ')];
  if (value.every((v) => typeof v === 'string')) return value as string[];
  if (value.every((v) => Array.isArray(v))) return value.map((v) => (v as unknown[]).join(' '));
  return undefined;
}

export async function handleCompletions(ctx: RouteContext, defaultModel?: string): Promise<void> {
  const body = requireJsonObject(ctx);
  if (!body) return;
  const model = typeof body.model === 'string' ? body.model : defaultModel;
  if (model === undefined) {
    sendError(ctx, invalidRequest(ctx.style, "Missing required parameter: 'model'.", 'model'));
    return;
  }
  const inputs = prompts(body.prompt);
  if (!inputs) {
    sendError(ctx, invalidRequest(ctx.style, "Missing required parameter: 'prompt'.", 'prompt'));
    return;
  }
  const n = intField(body.n, 1, 128);
  const maxTokens = intField(body.max_tokens, 1, Number.MAX_SAFE_INTEGER);
  if (n === 'invalid' || maxTokens === 'invalid') {
    sendError(ctx, invalidRequest(ctx.style, "Invalid 'n' or 'max_tokens': expected a positive integer."));
    return;
  }
  const perPrompt = n ?? 1;
  const outputs = inputs.flatMap((prompt) => {
    const out = truncateTokens(prompt, maxTokens);
    return Array.from({ length: perPrompt }, () => ({
      text: out.text,
      finish: out.truncated ? 'length' : 'stop',
    }));
  });
  const promptTokens = inputs.reduce((sum, p) => sum + countTokens(p), 0);
  const completionTokens = outputs.reduce((sum, o) => sum + countTokens(o.text), 0);
  const usage = {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
  };
  const base = { id: randomId('cmpl-'), object: 'text_completion', created: nowSeconds(), model };

  if (body.stream !== true) {
    sendJson(ctx, 200, {
      ...base,
      choices: outputs.map((o, index) => ({ text: o.text, index, logprobs: null, finish_reason: o.finish })),
      usage,
    });
    return;
  }
  const withUsage = includeUsage(body);
  const frame = (choices: unknown[]) => sseFrame({ ...base, choices, ...(withUsage ? { usage: null } : {}) });
  const frames: string[] = [];
  outputs.forEach((o, index) => {
    for (const piece of splitChunks(o.text, ctx.knobs.chunks)) {
      frames.push(frame([{ text: piece, index, logprobs: null, finish_reason: null }]));
    }
    frames.push(frame([{ text: '', index, logprobs: null, finish_reason: o.finish }]));
  });
  if (withUsage) frames.push(sseFrame({ ...base, choices: [], usage }));
  frames.push(sseFrame('[DONE]'));
  await writeStream(ctx, frames);
}
