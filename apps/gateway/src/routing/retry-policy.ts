// When a target is called again and how long the gateway waits first: exponential backoff with
// jitter, or what the provider's `retry-after` / `retry-after-ms` asks for when the config says so.
import type { IncomingHttpHeaders } from 'node:http';
import type { RetrySettings } from '@aigw/config-schema';

/** First backoff; each later one doubles. */
export const RETRY_BASE_DELAY_MS = 200;
/** Longest single backoff wait. */
export const RETRY_MAX_BACKOFF_MS = 5_000;
/** Longest `retry-after` honoured; a provider asking for more is not retried (a fallback moves on). */
export const RETRY_AFTER_MAX_MS = 30_000;
/** From a request's first call, calls and waits counted: no retry starts past this; the last answer stands. */
export const RETRY_BUDGET_MS = 60_000;

/**
 * Milliseconds the provider asks to wait: `retry-after-ms` (OpenAI, Azure), else `retry-after` in
 * seconds or as an HTTP date. Undefined when neither is present and valid.
 */
export function retryAfterMs(headers: IncomingHttpHeaders | undefined, now = Date.now()): number | undefined {
  if (!headers) return undefined;
  const ms = single(headers['retry-after-ms']);
  if (ms !== undefined && /^\d+(?:\.\d+)?$/.test(ms)) return Math.ceil(Number(ms));
  const after = single(headers['retry-after']);
  if (after === undefined) return undefined;
  if (/^\d+$/.test(after)) return Number(after) * 1000;
  const date = Date.parse(after);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function single(value: string | string[] | undefined): string | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  const trimmed = text?.trim();
  return trimmed === undefined || trimmed === '' ? undefined : trimmed;
}

/**
 * Backoff before retry `n` (1 for the first retry): base x 2^(n-1), capped, with "equal jitter"
 * (half fixed, half random), so clients that failed together do not come back together.
 */
export function backoffMs(n: number, random: () => number = Math.random): number {
  const ceiling = Math.min(RETRY_MAX_BACKOFF_MS, RETRY_BASE_DELAY_MS * 2 ** Math.max(0, n - 1));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

/** Whether an answer (or a failure, by its gateway status) is one the target's retry setting retries. */
export function isRetriedStatus(status: number, retry: RetrySettings): boolean {
  return retry.on_status_codes.includes(status);
}

/**
 * The wait before retry `n`, or undefined when the provider asked for longer than the gateway
 * waits. `retry-after` counts only with `use_retry_after_header`; otherwise, and when the answer
 * has none, the backoff applies.
 */
export function retryDelayMs(
  n: number,
  retry: RetrySettings,
  headers: IncomingHttpHeaders | undefined,
  random: () => number = Math.random,
  now = Date.now(),
): number | undefined {
  if (retry.use_retry_after_header) {
    const asked = retryAfterMs(headers, now);
    if (asked !== undefined) return asked > RETRY_AFTER_MAX_MS ? undefined : asked;
  }
  return backoffMs(n, random);
}
