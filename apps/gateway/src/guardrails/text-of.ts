// The text a guardrail check reads: the user's latest turn on input, the model's answer on output
// (where each provider puts them is the formats module's business).
import { anyFormat, jsonText } from '../formats/index.js';
import type { GuardrailContext } from './types.js';

/**
 * Input: the latest user turn of a chat (OpenAI, Anthropic, Bedrock `messages`, Gemini `contents`,
 * Responses `input` items), else a completions `prompt` or an embeddings / Responses `input` string
 * or string list, else ''. Output: the assistant text of a known response shape, else the raw body.
 */
export function textOf(ctx: GuardrailContext): string {
  if (ctx.phase === 'input') return anyFormat.userTurnText(ctx.requestJson) ?? '';
  return jsonText(ctx.responseJson) ?? ctx.responseText ?? '';
}
