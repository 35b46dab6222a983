// OpenAI embeddings: deterministic unit vectors per input, `dimensions` and base64 encoding honoured.
import { intField, requireJsonObject } from '../body.js';
import type { RouteContext } from '../context.js';
import { invalidRequest } from '../errors.js';
import { sendError, sendJson } from '../http-io.js';
import { countTokens, embeddingVector } from '../text.js';

/** Default vector size for a model name when `dimensions` is absent. */
export function defaultDimensions(model: string): number {
  return /large/.test(model) ? 3072 : 1536;
}

interface EmbeddingInput {
  text: string;
  tokens: number;
}

function inputs(value: unknown): EmbeddingInput[] | undefined {
  const fromTokens = (tokens: unknown[]) => ({ text: tokens.join(' '), tokens: tokens.length });
  if (typeof value === 'string')
    return value === '' ? undefined : [{ text: value, tokens: countTokens(value) }];
  if (!Array.isArray(value) || value.length === 0) return undefined;
  if (value.every((v) => typeof v === 'number')) return [fromTokens(value)];
  if (value.every((v) => typeof v === 'string' && v !== '')) {
    return (value as string[]).map((text) => ({ text, tokens: countTokens(text) }));
  }
  if (value.every((v) => Array.isArray(v) && v.length > 0)) return (value as unknown[][]).map(fromTokens);
  return undefined;
}

/** Little-endian float32 bytes, base64: what the API returns for `encoding_format: "base64"`. */
export function float32Base64(vector: readonly number[]): string {
  const buf = Buffer.alloc(vector.length * 4);
  for (const [i, v] of vector.entries()) buf.writeFloatLE(v, i * 4);
  return buf.toString('base64');
}

export function handleEmbeddings(ctx: RouteContext, defaultModel?: string): void {
  const body = requireJsonObject(ctx);
  if (!body) return;
  const model = typeof body.model === 'string' ? body.model : defaultModel;
  if (model === undefined) {
    sendError(ctx, invalidRequest(ctx.style, "Missing required parameter: 'model'.", 'model'));
    return;
  }
  const items = inputs(body.input);
  if (!items) {
    sendError(
      ctx,
      invalidRequest(
        ctx.style,
        "'input' must be a non-empty string, array of strings, or token array(s).",
        'input',
      ),
    );
    return;
  }
  const dims = intField(body.dimensions, 1, 8192);
  if (dims === 'invalid') {
    sendError(
      ctx,
      invalidRequest(ctx.style, "Invalid 'dimensions': expected an integer 1..8192.", 'dimensions'),
    );
    return;
  }
  const format = body.encoding_format ?? 'float';
  if (format !== 'float' && format !== 'base64') {
    sendError(
      ctx,
      invalidRequest(
        ctx.style,
        "Invalid 'encoding_format': expected 'float' or 'base64'.",
        'encoding_format',
      ),
    );
    return;
  }
  const size = dims ?? defaultDimensions(model);
  const tokens = items.reduce((sum, item) => sum + item.tokens, 0);
  sendJson(ctx, 200, {
    object: 'list',
    data: items.map((item, index) => {
      const vector = embeddingVector(item.text, size);
      return { object: 'embedding', index, embedding: format === 'base64' ? float32Base64(vector) : vector };
    }),
    model,
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  });
}
