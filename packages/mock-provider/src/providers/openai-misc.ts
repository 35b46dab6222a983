// OpenAI models and moderations, and a Cohere-style rerank, all deterministic.
import { asString, contentText, intField, type JsonObject, requireJsonObject } from '../body.js';
import type { RouteContext } from '../context.js';
import { invalidRequest, openaiError } from '../errors.js';
import { sendError, sendJson } from '../http-io.js';
import { hashUnit, randomId } from '../text.js';

export const MOCK_MODELS: readonly string[] = [
  'gpt-4o',
  'gpt-4o-mini',
  'gpt-4.1',
  'o3-mini',
  'text-embedding-3-small',
  'text-embedding-3-large',
  'text-moderation-latest',
  'text-moderation-stable',
  'whisper-1',
  'gpt-4o-realtime-preview',
];

const modelObject = (id: string) => ({
  id,
  object: 'model',
  created: 1_700_000_000,
  owned_by: 'mock-provider',
});

export function handleListModels(ctx: RouteContext): void {
  sendJson(ctx, 200, { object: 'list', data: MOCK_MODELS.map(modelObject) });
}

export function handleGetModel(ctx: RouteContext): void {
  const id = ctx.params.id ?? '';
  if (!MOCK_MODELS.includes(id)) {
    sendError(
      ctx,
      openaiError(
        404,
        `The model '${id}' does not exist`,
        'invalid_request_error',
        'model_not_found',
        'model',
      ),
    );
    return;
  }
  sendJson(ctx, 200, modelObject(id));
}

/** The eleven moderation categories of spec 2.3, in its order. */
export const MODERATION_CATEGORIES = [
  'hate',
  'hate/threatening',
  'harassment',
  'harassment/threatening',
  'self-harm',
  'self-harm/intent',
  'self-harm/instructions',
  'sexual',
  'sexual/minors',
  'violence',
  'violence/graphic',
] as const;

/** A category is flagged when the input contains the whitespace-separated token `flag:<category>`. */
export function moderate(text: string) {
  const tokens = new Set(text.split(/\s+/));
  const categories: Record<string, boolean> = {};
  const scores: Record<string, number> = {};
  for (const category of MODERATION_CATEGORIES) {
    const hit = tokens.has(`flag:${category}`);
    categories[category] = hit;
    scores[category] = hit ? 0.99 : Math.round(hashUnit(`${category}\n${text}`) * 0.01 * 1e6) / 1e6;
  }
  return { flagged: Object.values(categories).some(Boolean), categories, category_scores: scores };
}

export function handleModerations(ctx: RouteContext): void {
  const body = requireJsonObject(ctx);
  if (!body) return;
  const input = body.input;
  let texts: string[] | undefined;
  if (typeof input === 'string') texts = [input];
  else if (Array.isArray(input) && input.every((i) => typeof i === 'string')) texts = input as string[];
  else if (Array.isArray(input)) texts = [contentText(input)];
  if (!texts || texts.length === 0) {
    sendError(ctx, invalidRequest('openai', "Missing required parameter: 'input'.", 'input'));
    return;
  }
  sendJson(ctx, 200, {
    id: randomId('modr-'),
    model: asString(body.model) ?? 'text-moderation-latest',
    results: texts.map(moderate),
  });
}

function words(text: string): Set<string> {
  return new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);
}

/** Relevance is the share of query words found in the document; ties keep input order. */
export function handleRerank(ctx: RouteContext): void {
  const body = requireJsonObject(ctx);
  if (!body) return;
  const query = asString(body.query);
  const docs = Array.isArray(body.documents)
    ? body.documents.map((d) => (typeof d === 'string' ? d : asString((d as JsonObject | null)?.text)))
    : undefined;
  if (!query || !docs || docs.some((d) => d === undefined)) {
    sendError(
      ctx,
      invalidRequest('openai', "'query' (string) and 'documents' (strings or {text}) are required."),
    );
    return;
  }
  const topN = intField(body.top_n, 1, Number.MAX_SAFE_INTEGER);
  if (topN === 'invalid') {
    sendError(ctx, invalidRequest('openai', "Invalid 'top_n'.", 'top_n'));
    return;
  }
  const q = words(query);
  const scored = (docs as string[]).map((text, index) => {
    const d = words(text);
    const hits = [...q].filter((w) => d.has(w)).length;
    return { index, relevance_score: q.size === 0 ? 0 : hits / q.size, text };
  });
  scored.sort((a, b) => b.relevance_score - a.relevance_score || a.index - b.index);
  sendJson(ctx, 200, {
    id: randomId('rerank-'),
    results: scored.slice(0, topN ?? scored.length).map(({ index, relevance_score, text }) => ({
      index,
      relevance_score,
      ...(body.return_documents === true ? { document: { text } } : {}),
    })),
    meta: { api_version: { version: '1' }, billed_units: { search_units: 1 } },
  });
}
