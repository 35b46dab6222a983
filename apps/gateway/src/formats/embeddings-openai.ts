// OpenAI's embeddings shape as the canonical form of embeddings translations: the request read and
// checked once (text inputs only), and the list answer written back with usage when the provider
// reported it (else the gateway estimates it, docs/unified-api.md).
import { TranslationError } from './chat-openai.js';
import { obj, str } from './json.js';
import type { Json } from './types.js';

export interface EmbeddingsRequest {
  readonly model: string;
  readonly inputs: readonly string[];
  readonly dimensions: number | undefined;
  readonly base64: boolean;
  readonly present: ReadonlySet<string>;
}

/** Read for every provider; `dimensions` only where the provider module says it maps it. */
const READ = new Set(['model', 'input', 'encoding_format']);

export function readEmbeddingsRequest(json: unknown): EmbeddingsRequest {
  const body = obj(json);
  if (!body) throw new TranslationError('body', 'the body must be a JSON object');
  const present = new Set<string>();
  for (const key in body) if (body[key] !== null && body[key] !== undefined) present.add(key);
  const model = str(body.model);
  if (model === undefined) throw new TranslationError('model', 'model is required');
  const input = body.input;
  const inputs = typeof input === 'string' ? [input] : input;
  if (!Array.isArray(inputs) || inputs.length === 0 || !inputs.every((i) => typeof i === 'string')) {
    throw new TranslationError(
      'input',
      'input must be a string or a non-empty list of strings (token arrays are not translated)',
    );
  }
  const dimensions = body.dimensions;
  if (
    dimensions !== undefined &&
    dimensions !== null &&
    (!Number.isInteger(dimensions) || (dimensions as number) < 1)
  ) {
    throw new TranslationError('dimensions', 'dimensions must be a positive integer');
  }
  const format = body.encoding_format;
  if (format !== undefined && format !== null && format !== 'float' && format !== 'base64') {
    throw new TranslationError('encoding_format', 'encoding_format must be float or base64');
  }
  return {
    model,
    inputs: inputs as string[],
    dimensions: (dimensions as number | null | undefined) ?? undefined,
    base64: format === 'base64',
    present,
  };
}

/** Refuses what neither the reader nor the provider module maps. */
export function refuseUnmappedEmbeddings(
  req: EmbeddingsRequest,
  provider: string,
  extra: readonly string[] = [],
): void {
  for (const key of req.present) {
    if (READ.has(key) || extra.includes(key)) continue;
    throw new TranslationError(
      key,
      `${key} is not supported when an OpenAI embeddings request is translated for ${provider}`,
    );
  }
}

/** Float32 little-endian, base64: what OpenAI sends for `encoding_format: "base64"`. */
function base64Of(vector: readonly number[]): string {
  const buf = Buffer.alloc(vector.length * 4);
  for (const [i, v] of vector.entries()) buf.writeFloatLE(v, i * 4);
  return buf.toString('base64');
}

export function embeddingsJson(
  req: EmbeddingsRequest,
  vectors: readonly (readonly number[])[],
  inputTokens: number | undefined,
): Json {
  const out: Json = {
    object: 'list',
    data: vectors.map((v, index) => ({
      object: 'embedding',
      index,
      embedding: req.base64 ? base64Of(v) : v,
    })),
    model: req.model,
  };
  if (inputTokens !== undefined) out.usage = { prompt_tokens: inputTokens, total_tokens: inputTokens };
  return out;
}

/** A list of numbers, or undefined. */
export function vectorOf(value: unknown): number[] | undefined {
  return Array.isArray(value) && value.every((n) => typeof n === 'number') ? (value as number[]) : undefined;
}
