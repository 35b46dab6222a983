// Cache keys: what makes two requests "the same" (provider, upstream URL, canonical body, namespace,
// tenant scope) and never anything from headers, metadata or credentials.
import { canonicalJson, sha256Hex } from './canonical-json.js';
import { splitLastUserMessage } from './last-user-message.js';
import type { SemanticBucket } from './types.js';

/** Bumped when the key material changes, so old entries are simply never read again. */
const KEY_VERSION = 'v1';

/** Query parameters that carry credentials (Gemini-style `?key=`, Azure `api-key`, OAuth tokens). */
const CREDENTIAL_PARAMS = new Set(['key', 'api-key', 'api_key', 'apikey', 'access_token', 'x-api-key']);

export interface CacheKeyInput {
  /** The provider id (`openai`, `anthropic`, ...). */
  readonly provider: string;
  /** The upstream URL (credentials in it are ignored). */
  readonly url: string | URL;
  /** The parsed JSON body; a Buffer for a body that is not JSON (keyed by its bytes). */
  readonly body: unknown;
  /** `x-service-cache-namespace`; absent or '' for the default partition. */
  readonly namespace?: string | undefined;
  /**
   * Who may share entries: the workspace (or organisation) the request is billed to. Two scopes never
   * share an entry, so a paraphrase cannot pull another tenant's answer out of the semantic cache.
   */
  readonly scope?: string | undefined;
}

/** The URL without user info, fragment or credential parameters, its query sorted by name. */
export function canonicalUrl(input: string | URL): string {
  const url = new URL(String(input));
  const params = [...url.searchParams].filter(([name]) => !CREDENTIAL_PARAMS.has(name.toLowerCase()));
  // A stable sort: repeated parameters keep their relative order, which can matter to a server.
  params.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const query = new URLSearchParams(params).toString();
  return `${url.protocol}//${url.host}${url.pathname}${query ? `?${query}` : ''}`;
}

function bodyMaterial(body: unknown): string {
  if (Buffer.isBuffer(body) || body instanceof Uint8Array) return `b:${sha256Hex(Buffer.from(body))}`;
  return `j:${canonicalJson(body)}`;
}

function partition(scope: string, namespace: string): string {
  // Short and free of the namespace's own characters, yet the same for every key of the partition.
  return scope === '' && namespace === '' ? '-' : sha256Hex(canonicalJson([scope, namespace])).slice(0, 16);
}

/** `v1:<partition>:<sha256>`: the partition prefix lets an operator find one namespace's keys. */
export function simpleCacheKey(input: CacheKeyInput): string {
  const scope = input.scope ?? '';
  const namespace = input.namespace ?? '';
  const material = canonicalJson([KEY_VERSION, scope, namespace, input.provider, canonicalUrl(input.url)]);
  return `${KEY_VERSION}:${partition(scope, namespace)}:${sha256Hex(`${material}\n${bodyMaterial(input.body)}`)}`;
}

/**
 * The semantic side of a request: its question and its bucket. The bucket's `paramsKey` covers the
 * provider, URL and the whole body except the last user message's text, so a different model,
 * temperature, system prompt or earlier turn never matches. Undefined when there is no text question.
 */
export function semanticRequest(input: CacheKeyInput): { text: string; bucket: SemanticBucket } | undefined {
  const split = splitLastUserMessage(input.body);
  if (!split) return undefined;
  const body = input.body as Record<string, unknown>;
  const paramsKey = sha256Hex(
    canonicalJson([KEY_VERSION, input.provider, canonicalUrl(input.url), split.rest]),
  );
  return {
    text: split.text,
    bucket: {
      scope: input.scope ?? '',
      namespace: input.namespace ?? '',
      model: typeof body.model === 'string' ? body.model : '',
      paramsKey,
    },
  };
}
