// One call of a config target: sends a body the gateway holds and resolves as soon as the answer's
// head is in (or the call failed), before anything reaches the client, so the strategy can still
// pass the answer over. The timeout keeps running while the answer streams on.
import type { IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import type { LookupFunction } from 'node:net';
import { AppError } from '@aigw/runtime';
import { gatewayError } from '../errors.js';
import { openUpstream } from '../upstream/upstream-request.js';

export interface UpstreamCallRequest {
  readonly method: string;
  readonly url: URL;
  readonly headers: OutgoingHttpHeaders;
  readonly body: Buffer;
  /** Connects only to addresses checked by the SSRF layer (custom hosts). */
  readonly lookup?: LookupFunction | undefined;
  /** Time allowed for the whole exchange, answer included (`request_timeout`). */
  readonly timeoutMs?: number | undefined;
  /** Idle limit on the upstream socket. */
  readonly idleTimeoutMs: number;
  /** The client went away: a call still waiting for its head is dropped (`CLIENT_CLOSED`). */
  readonly signal?: AbortSignal | undefined;
}

/** Why a call was dropped when the client went away (reported in the attempt, never sent). */
export const CLIENT_CLOSED = 'client_closed';

/** A call in flight: the answer's head, or why none came. */
export interface UpstreamExchange {
  readonly startedAt: number;
  /** When the head arrived; 0 when none did. */
  readonly firstByteAt: number;
  readonly response: IncomingMessage | undefined;
  /**
   * Why the exchange failed: before the head (no `response`), or later, while the answer was
   * streaming (the timeout elapsed; the response is destroyed then).
   */
  readonly error: AppError | undefined;
  /** Stops the exchange (the answer is passed over, or the client left). Idempotent. */
  abort(): void;
  /** Stops the timeout (the answer has been read to its end). */
  settle(): void;
}

/** Never rejects: a failure resolves with `error` set and no response. */
export function callUpstream(call: UpstreamCallRequest): Promise<UpstreamExchange> {
  return new Promise((resolve) => {
    const upstream = openUpstream(call);
    let timer: NodeJS.Timeout | undefined;
    let resolved = false;
    const exchange = {
      startedAt: Date.now(),
      firstByteAt: 0,
      response: undefined as IncomingMessage | undefined,
      error: undefined as AppError | undefined,
      abort() {
        clearTimeout(timer);
        exchange.response?.destroy();
        upstream.destroy();
      },
      settle() {
        clearTimeout(timer);
      },
    };
    const clientGone = () =>
      fail(new AppError(499, 'client_error', 'The client closed the request', { code: CLIENT_CLOSED }));
    const fail = (error: AppError) => {
      exchange.error ??= error;
      exchange.abort();
      if (!resolved) {
        resolved = true;
        call.signal?.removeEventListener('abort', clientGone);
        resolve(exchange);
      }
    };
    if (call.timeoutMs !== undefined) {
      const ms = call.timeoutMs;
      timer = setTimeout(
        () =>
          fail(gatewayError('request_timeout', `The target did not answer within its timeout of ${ms}ms`)),
        ms,
      );
    }
    upstream.on('timeout', () =>
      fail(gatewayError('upstream_timeout', 'The provider did not answer in time')),
    );
    upstream.on('error', (err: NodeJS.ErrnoException) => {
      fail(
        gatewayError('upstream_unreachable', `Could not reach the provider: ${err.code ?? err.message}`, {
          cause: err,
        }),
      );
    });
    upstream.on('response', (response) => {
      if (resolved) {
        response.destroy();
        return;
      }
      resolved = true;
      // From the head on, the relay notices a client that leaves.
      call.signal?.removeEventListener('abort', clientGone);
      exchange.firstByteAt = Date.now();
      exchange.response = response;
      // Until the answer is relayed or read, a failure is for whoever consumes it to notice.
      response.on('error', () => {});
      resolve(exchange);
    });
    if (call.signal?.aborted) {
      clientGone();
      return;
    }
    call.signal?.addEventListener('abort', clientGone, { once: true });
    upstream.end(call.body);
  });
}

/**
 * Reads an answer to its end, up to `max` bytes (the caller buffers it to run output guardrails).
 * Rejects when the answer is cut, too large, or the exchange failed meanwhile.
 */
export function readAnswer(exchange: UpstreamExchange, max: number): Promise<Buffer> {
  const response = exchange.response;
  if (!response) return Promise.reject(exchange.error);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    response.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        exchange.abort();
        reject(gatewayError('upstream_unreachable', `The provider's answer is larger than ${max} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    response.on('end', () => {
      exchange.settle();
      resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks));
    });
    response.on('aborted', () =>
      reject(exchange.error ?? gatewayError('upstream_unreachable', 'The provider closed the answer early')),
    );
    response.on('close', () => {
      if (!response.complete) {
        reject(
          exchange.error ?? gatewayError('upstream_unreachable', 'The provider closed the answer early'),
        );
      }
    });
  });
}
