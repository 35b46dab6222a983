// An upstream call whose answer the gateway reads before (or instead of) relaying it: config
// targets and MCP token calls. It sends a body the gateway holds on the undici pools of
// upstream-pool.ts (the plain pass-through's client: one client for every upstream call) and
// resolves as soon as the answer's head is in, so a strategy can still pass the answer over; the
// answer then streams as an `UpstreamAnswer`, with back-pressure down to the provider's socket.
// The call's timeout keeps running while the answer streams on.
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import type { LookupFunction } from 'node:net';
import { Readable } from 'node:stream';
import { AppError } from '@aigw/runtime';
import type { Dispatcher } from 'undici';
import { gatewayError } from '../errors.js';
import { idleTimeoutError, isIdleTimeout, unreachableError } from './upstream-errors.js';
import { dispatchHeaders, headersFromRaw, poolFor } from './upstream-pool.js';

export interface UpstreamCallRequest {
  readonly method: string;
  readonly url: URL;
  readonly headers: OutgoingHttpHeaders;
  readonly body: Buffer;
  /** Connects only to addresses checked by the SSRF layer (custom hosts). */
  readonly lookup?: LookupFunction | undefined;
  /** Time allowed for the whole exchange, answer included (`request_timeout`). */
  readonly timeoutMs?: number | undefined;
  /** Idle limit on the upstream connection (connect, head, each gap in the body). */
  readonly idleTimeoutMs: number;
  /** The client went away: a call still waiting for its head is dropped (`CLIENT_CLOSED`). */
  readonly signal?: AbortSignal | undefined;
}

/** Why a call was dropped when the client went away (reported in the attempt, never sent). */
export const CLIENT_CLOSED = 'client_closed';

/**
 * An answer as everything after the call reads it (the strategy's status checks, output
 * guardrails, the cache, the relay to the client, usage): its head, and its body as a stream.
 * It never emits 'error': an answer cut short (the provider closed it, the timeout, an abort) is
 * destroyed, and `complete` is still false at its 'close'. The exchange's `error` says why, if the
 * gateway knows.
 */
export interface UpstreamAnswer extends Readable {
  readonly statusCode: number;
  readonly statusMessage: string;
  readonly headers: IncomingHttpHeaders;
  /** Every byte of the answer arrived (read or not). */
  readonly complete: boolean;
}

/** A call in flight: the answer's head, or why none came. */
export interface UpstreamExchange {
  readonly startedAt: number;
  /** When the head arrived; 0 when none did. */
  readonly firstByteAt: number;
  readonly response: UpstreamAnswer | undefined;
  /**
   * Why the exchange failed: before the head (no `response`), or later, while the answer was
   * streaming (the timeout elapsed; the answer is destroyed then).
   */
  readonly error: AppError | undefined;
  /** Stops the exchange (the answer is passed over, or the client left). Idempotent. */
  abort(): void;
  /** Stops the timeout (the answer has been read to its end). */
  settle(): void;
}

/** Why the gateway stopped an exchange itself (never reported: `error` says why, if anything). */
class Cancelled extends Error {}

/** The body of one answer, fed by the exchange's handler; reading it resumes the provider. */
class AnswerStream extends Readable implements UpstreamAnswer {
  complete = false;
  /** The provider is paused until the reader wants more. */
  paused = false;

  constructor(
    readonly statusCode: number,
    readonly statusMessage: string,
    readonly headers: IncomingHttpHeaders,
    private readonly call: Exchange,
  ) {
    super();
  }

  override _read(): void {
    if (this.paused) {
      this.paused = false;
      this.call.resumeUpstream();
    }
  }

  override _destroy(err: Error | null, callback: (error?: Error | null) => void): void {
    // Destroyed before its end (passed over, the client left, a failure): the provider stops too.
    if (!this.complete) this.call.abort();
    callback(err);
  }
}

/** One call, as undici's dispatch handler (its plain callback interface, as forward.ts). */
class Exchange implements UpstreamExchange, Dispatcher.DispatchHandler {
  readonly startedAt = Date.now();
  firstByteAt = 0;
  response: AnswerStream | undefined;
  error: AppError | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** undici's abort for this request, once it is on a connection. */
  private abortUpstream: ((err?: Error) => void) | undefined;
  private resume: (() => void) | undefined;
  /** The gateway stopped the exchange (before undici had it on a connection, too). */
  private cancelled = false;
  /** undici is done with the request (its end, or an error). */
  private finished = false;
  private resolved = false;

  constructor(
    private readonly call: UpstreamCallRequest,
    private readonly resolve: (exchange: UpstreamExchange) => void,
  ) {}

  start(): void {
    const { call } = this;
    if (call.signal?.aborted) {
      this.clientGone();
      return;
    }
    if (call.timeoutMs !== undefined) {
      const ms = call.timeoutMs;
      this.timer = setTimeout(
        () =>
          this.fail(
            gatewayError('request_timeout', `The target did not answer within its timeout of ${ms}ms`),
          ),
        ms,
      );
    }
    call.signal?.addEventListener('abort', this.clientGone, { once: true });
    const url = call.url;
    const body = call.body.length > 0 ? call.body : null;
    poolFor(url, call.idleTimeoutMs, call.lookup).dispatch(
      {
        method: call.method as Dispatcher.HttpMethod,
        path: `${url.pathname}${url.search}`,
        headers: dispatchHeaders(call.headers, body) as Record<string, string | string[]>,
        body,
      },
      this,
    );
  }

  readonly abort = (): void => {
    clearTimeout(this.timer);
    if (!this.cancelled) {
      this.cancelled = true;
      if (!this.finished) this.abortUpstream?.(new Cancelled('cancelled by the gateway'));
    }
    const answer = this.response;
    if (answer && !answer.destroyed) answer.destroy();
  };

  readonly settle = (): void => {
    clearTimeout(this.timer);
  };

  resumeUpstream(): void {
    this.resume?.();
  }

  private readonly clientGone = (): void => {
    this.fail(new AppError(499, 'client_error', 'The client closed the request', { code: CLIENT_CLOSED }));
  };

  /** The exchange failed: stopped, and handed over with its error if its head had not come yet. */
  private fail(error: AppError): void {
    this.error ??= error;
    this.abort();
    this.handOver();
  }

  private handOver(): void {
    if (this.resolved) return;
    this.resolved = true;
    // From the head on, the relay notices a client that leaves.
    this.call.signal?.removeEventListener('abort', this.clientGone);
    this.resolve(this);
  }

  onConnect(abort: (err?: Error) => void): void {
    if (this.cancelled) abort(new Cancelled('cancelled by the gateway'));
    else this.abortUpstream = abort;
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[], resume: () => void, statusText: string): boolean {
    // 1xx informational answers: node:http did not hand them over either.
    if (statusCode < 200) return true;
    if (this.resolved) return false;
    this.resume = resume;
    this.firstByteAt = Date.now();
    this.response = new AnswerStream(statusCode, statusText, headersFromRaw(rawHeaders), this);
    this.handOver();
    return true;
  }

  // A reader that does not keep up pauses the provider (false) until it reads again (_read).
  onData(chunk: Buffer): boolean {
    const answer = this.response;
    if (!answer || answer.destroyed || answer.push(chunk)) return true;
    answer.paused = true;
    return false;
  }

  onComplete(): void {
    this.finished = true;
    const answer = this.response;
    if (!answer || answer.destroyed) return;
    answer.complete = true;
    answer.push(null);
  }

  onError(err: Error): void {
    this.finished = true;
    if (this.cancelled) return;
    if (isIdleTimeout(err)) {
      this.fail(idleTimeoutError());
    } else if (this.response) {
      // Cut while streaming: the reader sees an incomplete answer (upstream_interrupted).
      this.response.destroy();
    } else {
      this.fail(unreachableError(err));
    }
  }
}

/** Calls upstream; never rejects: a failure resolves with `error` set and no response. */
export function openExchange(call: UpstreamCallRequest): Promise<UpstreamExchange> {
  return new Promise((resolve) => new Exchange(call, resolve).start());
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
    response.on('close', () => {
      if (!response.complete) {
        reject(
          exchange.error ?? gatewayError('upstream_unreachable', 'The provider closed the answer early'),
        );
      }
    });
  });
}
