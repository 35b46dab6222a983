// What undici's errors mean to the gateway's clients: the same gateway errors (codes, statuses,
// node:http's names for socket errors) for every upstream call, streamed through or read.
import type { AppError } from '@aigw/runtime';
import { gatewayError } from '../errors.js';

// undici's error codes that mean a wait ran past the idle limit (node:http's socket 'timeout').
const TIMEOUT_CODES: ReadonlySet<string> = new Set([
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** The error ran past the upstream idle limit (connect, head, a gap in the body). */
export function isIdleTimeout(err: Error): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return code !== undefined && TIMEOUT_CODES.has(code);
}

/** 504 `upstream_timeout`: the provider went quiet for longer than the idle limit. */
export function idleTimeoutError(): AppError {
  return gatewayError('upstream_timeout', 'The provider did not answer in time');
}

/**
 * 502 `upstream_unreachable` for a call that failed before the answer's head, named as node:http
 * named it (`ECONNRESET` for a connection the provider closed, "socket hang up"; the socket's own
 * code otherwise: `ECONNREFUSED`, `ENOTFOUND`, a TLS code).
 */
export function unreachableError(err: Error): AppError {
  const code = (err as NodeJS.ErrnoException).code;
  const reason = code === 'UND_ERR_SOCKET' || code === 'UND_ERR_CLOSED' ? 'ECONNRESET' : code;
  return gatewayError('upstream_unreachable', `Could not reach the provider: ${reason ?? err.message}`, {
    cause: err,
  });
}

/** An error from the idle limit or a failed connection, as the gateway reports it. */
export function upstreamError(err: Error): AppError {
  return isIdleTimeout(err) ? idleTimeoutError() : unreachableError(err);
}
