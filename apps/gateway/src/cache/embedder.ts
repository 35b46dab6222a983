// The semantic cache's embeddings client: `POST <url>/embeddings` of an OpenAI-compatible API.
import type { Embed } from './types.js';
import { vectorFromBytes } from './vector.js';

export interface EmbedderSettings {
  /** Base URL of the API, e.g. `https://api.openai.com/v1` (the path `/embeddings` is appended). */
  readonly url: string;
  readonly apiKey?: string | undefined;
  readonly model: string;
  /** The whole call (connect, answer, body) must finish within this time. */
  readonly timeoutMs: number;
}

function vectorOf(body: unknown): Float32Array {
  const first = (body as { data?: Array<{ embedding?: unknown }> } | null)?.data?.[0]?.embedding;
  if (Array.isArray(first) && first.length > 0 && first.every((v) => typeof v === 'number')) {
    return Float32Array.from(first as number[]);
  }
  if (typeof first === 'string' && first !== '') {
    // `encoding_format: "base64"`: little-endian float32 bytes.
    return vectorFromBytes(Buffer.from(first, 'base64'));
  }
  throw new Error('the embeddings answer has no data[0].embedding');
}

/** Rejects on any failure (network, timeout, non-2xx, unexpected body): callers skip the semantic step. */
export function createEmbedder(settings: EmbedderSettings): Embed {
  const endpoint = `${settings.url.replace(/\/+$/, '')}/embeddings`;
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (settings.apiKey) headers.authorization = `Bearer ${settings.apiKey}`;
  return async (text) => {
    const response = await fetch(endpoint, {
      method: 'POST',
      headers,
      body: JSON.stringify({ model: settings.model, input: text }),
      signal: AbortSignal.timeout(settings.timeoutMs),
      redirect: 'error',
    });
    if (!response.ok) {
      await response.body?.cancel();
      throw new Error(`the embeddings API answered ${response.status}`);
    }
    return vectorOf(await response.json());
  };
}
