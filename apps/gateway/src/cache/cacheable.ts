// Which endpoints the cache may answer: model calls whose answer depends only on the request body.
// Never files, batches, fine-tuning, audio (multipart uploads), realtime or stateful APIs.

/** Path segments that mark uploads, jobs or server-side state: never cached, wherever they appear. */
const NEVER = new Set([
  'files',
  'uploads',
  'batches',
  'fine_tuning',
  'fine-tunes',
  'fine-tuning',
  'audio',
  'realtime',
  'images',
  'assistants',
  'threads',
  'vector_stores',
  'responses',
  'batchPredictionJobs',
]);

/**
 * The last path segment of a cacheable call, as the client sends it below `/v1`
 * and as the provider receives it: OpenAI-compatible APIs (`/chat/completions`, `/completions`,
 * `/embeddings`, `/moderations`, `/rerank`), Anthropic `/messages`, Cohere `/v2/chat`, `/v2/embed`,
 * Ollama `/api/chat`, `/api/generate`, `/api/embed`, Bedrock `/model/<id>/converse` and `/invoke`
 * (and their stream variants).
 */
const ENDINGS = new Set([
  'completions',
  'embeddings',
  'embed',
  'moderations',
  'rerank',
  'messages',
  'chat',
  'generate',
  'converse',
  'converse-stream',
  'invoke',
  'invoke-with-response-stream',
]);

/** Vertex / Gemini custom methods (`.../models/<model>:generateContent`). */
const VERTEX_METHODS = new Set([
  'generateContent',
  'streamGenerateContent',
  'embedContent',
  'batchEmbedContents',
  'predict',
  'rawPredict',
  'streamRawPredict',
]);

/**
 * `path` is the path below the gateway's `/v1` or the upstream URL's path (either works: both end
 * the same way), without the query. Only POST is ever cached.
 */
export function isCacheableRequest(method: string, path: string): boolean {
  if (method.toUpperCase() !== 'POST') return false;
  let decoded: string;
  try {
    decoded = decodeURIComponent(path.split('?', 1)[0] ?? '');
  } catch {
    return false;
  }
  const segments = decoded.split('/').filter((s) => s !== '');
  if (segments.some((s) => NEVER.has(s))) return false;
  const last = segments.at(-1);
  if (last === undefined) return false;
  const colon = last.lastIndexOf(':');
  if (colon > 0) return VERTEX_METHODS.has(last.slice(colon + 1));
  return ENDINGS.has(last);
}
