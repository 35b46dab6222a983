// Forwards one HTTP request upstream and streams the answer back: bytes unchanged, SSE flushed
// chunk by chunk, backpressure respected, the upstream cancelled the moment the client goes away.
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { LookupFunction } from 'node:net';
import { Readable } from 'node:stream';
import type { AppError } from '@aigw/runtime';
import type { Dispatcher } from 'undici';
import { gatewayError, writeError } from '../errors.js';
import type { ChunkSink } from './capture.js';
import { rawResponseHeaderList, responseHeaderList } from './headers.js';
import { HeldBound } from './held-bound.js';
import { idleTimeoutError, isIdleTimeout, unreachableError } from './upstream-errors.js';
import { dispatchHeaders, headersFromRaw, poolFor, urlParts } from './upstream-pool.js';

export interface ForwardRequest {
  readonly method: string;
  readonly url: URL;
  readonly headers: OutgoingHttpHeaders;
  /** The client's request stream (streamed through) or a body the gateway already read. */
  readonly body: IncomingMessage | Buffer;
  /** Connects only to addresses checked by the SSRF layer (custom hosts). */
  readonly lookup?: LookupFunction | undefined;
  /** Total time allowed for the upstream exchange (x-service-request-timeout), if any. */
  readonly timeoutMs?: number | undefined;
  /** Idle limit on the upstream socket. */
  readonly idleTimeoutMs: number;
  /** Headers the gateway adds to the response (trace id, provider), first and in this order. */
  readonly extraResponseHeaders: Readonly<Record<string, string>>;
  /** Sees every response chunk as it passes (for usage and body capture); must be cheap. */
  readonly responseSink?: ChunkSink;
  readonly requestSink?: ChunkSink;
  /**
   * Streamed bodies beyond this many bytes are cut off with 413; a filter that would hold more than
   * this of the answer (read whole, or one unfinished event) refuses it with 502 or cuts the stream.
   */
  readonly maxBodyBytes: number;
  /**
   * Rewrites what the client receives of a 2xx answer (the sinks still see the provider's bytes);
   * asked once the response headers are known, undefined to relay the bytes unchanged.
   */
  readonly responseFilter?:
    | ((headers: IncomingMessage['headers'], status: number) => ResponseFilter | undefined)
    | undefined;
  /** The filter rewrites error answers too (a translated call's errors in the gateway's envelope). */
  readonly filterAllStatuses?: boolean;
}

/** Bytes in, bytes out, chunk by chunk; `end` returns what was held back. */
export interface ResponseFilter {
  push(chunk: Buffer): readonly Buffer[];
  end(): readonly Buffer[];
  /** The content type of what the filter writes, when it differs from the provider's. */
  readonly contentType?: string;
  /**
   * The filter writes only at the end (a JSON answer read whole): the head waits for it, so that
   * `status()` can still change the status (an answer it could not read is not a 200).
   */
  readonly whole?: boolean;
  /** The status to send, asked after `end()` of a whole filter; undefined keeps the provider's. */
  status?(): number | undefined;
}

export interface ForwardResult {
  /** Status sent to the client (0 when nothing was sent). */
  status: number;
  upstreamStartedAt: number;
  firstByteAt: number;
  endedAt: number;
  responseBytes: number;
  /** The answer's content type as the client received it (undefined: none, or no answer). */
  contentType: string | undefined;
  /** Why the exchange did not complete normally (gateway-made error or an interruption). */
  error?: { code: string; message: string; type: string };
  clientAborted: boolean;
}

/**
 * A client body that has already arrived whole: its declared length is all in the request's buffer
 * and the message is complete, so holding it costs no memory it does not already take. Sent as
 * one Buffer (head and body in one write), it skips the stream relay's objects, listeners and
 * turns: 123 against 180 µs of CPU a request, paired (docs/performance-journal.md, twelfth
 * session). Undefined for any other body (chunked, still
 * arriving, over the limit, or already read): that one streams.
 */
function arrivedWhole(req: IncomingMessage, maxBodyBytes: number): Buffer | undefined {
  const declared = req.headers['content-length'];
  if (declared === undefined || !req.complete || req.readableEnded) return undefined;
  if (req.headers['transfer-encoding'] !== undefined) return undefined;
  const length = Number(declared);
  if (!(length > 0 && length <= maxBodyBytes) || req.readableLength !== length) return undefined;
  return (req.read(length) as Buffer | null) ?? undefined;
}

/**
 * Resolves when the client's response is closed (finished, failed or aborted). Never rejects:
 * failures before the response started are answered with a gateway error envelope.
 */
export function forward(res: ServerResponse, fr: ForwardRequest): Promise<ForwardResult> {
  return new Promise((resolve) => new Forwarding(res, fr, resolve).start());
}

/** Why the gateway stopped an upstream exchange itself (never reported: result.error says why). */
class Cancelled extends Error {}

/**
 * One exchange, as undici's dispatch handler (its plain callback interface: no wrapper object per
 * request): the answer's head, chunks and end go straight to the client's response.
 */
class Forwarding implements Dispatcher.DispatchHandler {
  private readonly result: ForwardResult;
  private timer: NodeJS.Timeout | undefined;
  /** undici's abort for this request, once it is on a connection. */
  private abortUpstream: ((err?: Error) => void) | undefined;
  /** Set when the gateway stopped the exchange (before undici had it on a connection, too). */
  private cancelled = false;
  private headersIn = false;
  private filter: ResponseFilter | undefined;
  /** What the filter holds, against MAX_BODY_BYTES. */
  private held: HeldBound | undefined;
  private headerList: (string | string[])[] = [];
  private statusText = '';
  private resumeUpstream: (() => void) | undefined;
  private pausedDown = false;
  /** The client's body as undici reads it (streamed requests). */
  private upload: Readable | undefined;

  constructor(
    private readonly res: ServerResponse,
    private readonly fr: ForwardRequest,
    private readonly resolve: (result: ForwardResult) => void,
  ) {
    this.result = {
      status: 0,
      upstreamStartedAt: Date.now(),
      firstByteAt: 0,
      endedAt: 0,
      responseBytes: 0,
      contentType: undefined,
      clientAborted: false,
    };
  }

  start(): void {
    const { fr, res } = this;
    if (fr.timeoutMs !== undefined) {
      this.timer = setTimeout(() => {
        this.fail(
          gatewayError(
            'request_timeout',
            `Request exceeded the timeout sent in the request: ${fr.timeoutMs}ms`,
          ),
        );
      }, fr.timeoutMs);
    }
    res.once('close', () => {
      clearTimeout(this.timer);
      this.result.endedAt = Date.now();
      if (!res.writableFinished) {
        this.result.clientAborted = this.result.error === undefined;
        this.cancel();
      }
      this.resolve(this.result);
    });
    let body: Buffer | Readable | null;
    const whole = Buffer.isBuffer(fr.body) ? fr.body : arrivedWhole(fr.body, fr.maxBodyBytes);
    if (whole) {
      fr.requestSink?.push(whole);
      body = whole;
    } else {
      body = this.streamBody(fr.body as IncomingMessage);
    }
    const url = fr.url;
    poolFor(url, fr.idleTimeoutMs, fr.lookup).dispatch(
      {
        method: fr.method as Dispatcher.HttpMethod,
        path: urlParts(url).path,
        headers: dispatchHeaders(fr.headers, body instanceof Readable ? undefined : body) as Record<
          string,
          string | string[]
        >,
        body,
      },
      this,
    );
  }

  /** Stops the upstream exchange (now, or as soon as undici puts it on a connection). */
  private cancel(): void {
    if (this.cancelled) return;
    this.cancelled = true;
    this.abortUpstream?.(new Cancelled('cancelled by the gateway'));
    // Not on a connection yet: the client's body must not wait for undici.
    this.upload?.destroy();
  }

  private fail(error: AppError): void {
    const { res, result } = this;
    result.error ??= { code: error.code ?? 'error', message: error.message, type: error.type };
    this.cancel();
    if (res.headersSent) {
      res.destroy();
      return;
    }
    result.status = error.status;
    writeError(res, error, this.fr.extraResponseHeaders);
  }

  /**
   * The client's body as undici reads it, relayed as `body.pipe(upstream)` did: nothing more is
   * sent once the body is too large or the upstream is gone, and the client's body keeps flowing
   * (and is dropped) so that its connection stays usable. Null when the request has no body.
   */
  private streamBody(body: IncomingMessage): Readable | null {
    const declared = body.headers['content-length'];
    if (
      body.readableEnded ||
      (body.headers['transfer-encoding'] === undefined && (declared === undefined || declared === '0'))
    ) {
      return null;
    }
    const fr = this.fr;
    let received = 0;
    let paused = false;
    const resume = () => {
      if (paused) {
        paused = false;
        body.resume();
      }
    };
    const out = new Readable({ read: resume });
    out.once('close', resume);
    this.upload = out;
    body.on('data', (chunk: Buffer) => {
      received += chunk.length;
      fr.requestSink?.push(chunk);
      if (received > fr.maxBodyBytes) {
        this.fail(
          gatewayError('payload_too_large', `The request body is larger than ${fr.maxBodyBytes} bytes`),
        );
        return;
      }
      if (out.destroyed || this.cancelled) return;
      if (!out.push(chunk) && !paused) {
        paused = true;
        body.pause();
      }
    });
    body.once('end', () => {
      if (!out.destroyed && !this.cancelled) out.push(null);
    });
    body.on('aborted', () => this.cancel());
    body.on('error', () => this.cancel());
    return out;
  }

  onConnect(abort: (err?: Error) => void): void {
    if (this.cancelled) abort(new Cancelled('cancelled by the gateway'));
    else this.abortUpstream = abort;
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[], resume: () => void, statusText: string): boolean {
    // 1xx informational answers: node:http did not pass them on either.
    if (statusCode < 200) return true;
    const { res, fr, result } = this;
    if (res.headersSent || res.destroyed) {
      this.cancel();
      return false;
    }
    this.headersIn = true;
    this.resumeUpstream = resume;
    this.statusText = statusText;
    result.firstByteAt = Date.now();
    result.status = statusCode;
    // Without a filter the head goes out as the provider's lines are (the usual answer); a filter
    // reads the headers as node:http would have given them.
    const plain = fr.responseFilter ? undefined : rawResponseHeaderList(rawHeaders, fr.extraResponseHeaders);
    let filter: ResponseFilter | undefined;
    let headerList: (string | string[])[];
    if (plain) {
      headerList = plain.list;
      result.contentType = plain.contentType;
    } else {
      const headers = headersFromRaw(rawHeaders);
      result.contentType = headers['content-type'];
      filter =
        fr.responseFilter && (fr.filterAllStatuses || (statusCode >= 200 && statusCode < 300))
          ? fr.responseFilter(headers, statusCode)
          : undefined;
      headerList = responseHeaderList(headers, fr.extraResponseHeaders);
      // A filtered body has another length: it goes out chunked.
      if (filter) removeHeader(headerList, 'content-length');
      if (filter?.contentType !== undefined) {
        removeHeader(headerList, 'content-type');
        headerList.push('content-type', filter.contentType);
        // What the client got (and the sinks saw) is read in this type at the end.
        result.contentType = filter.contentType;
      }
    }
    this.filter = filter;
    this.headerList = headerList;
    if (!filter?.whole) res.writeHead(statusCode, statusText, headerList);
    // Event streams: the client must see the stream open at once. Events that came in the same
    // read as the headers take them out in one write; otherwise the headers go alone right after
    // this turn of the event loop (one write less per stream than flushing them here).
    if (result.contentType?.startsWith('text/event-stream')) {
      setImmediate(() => {
        if (result.responseBytes === 0 && !res.writableEnded && !res.destroyed) res.flushHeaders();
      });
    }
    return true;
  }

  /** The client's buffer drained: the provider may send again. */
  private readonly drained = () => {
    this.pausedDown = false;
    this.resumeUpstream?.();
  };

  // A full client buffer pauses the provider (false) until it drains; a closed client gets no more
  // writes (the 'close' listener cancels the upstream).
  onData(chunk: Buffer): boolean {
    const { res, result, filter } = this;
    result.responseBytes += chunk.length;
    this.fr.responseSink?.push(chunk);
    if (res.destroyed || this.cancelled) return true;
    let flushed = true;
    if (filter) {
      const parts = filter.push(chunk);
      this.held ??= new HeldBound(filter, this.fr.maxBodyBytes);
      const tooLarge = this.held.exceeded(chunk.length, parts.length);
      if (tooLarge) {
        this.fail(tooLarge);
        return true;
      }
      for (const part of parts) flushed = res.write(part) && flushed;
    } else flushed = res.write(chunk);
    if (flushed) return true;
    if (!this.pausedDown) {
      this.pausedDown = true;
      res.once('drain', this.drained);
    }
    return false;
  }

  onComplete(): void {
    const { res, result, filter, headerList } = this;
    // Refused mid-answer (fail() answered already), or the client left.
    if (res.destroyed || this.cancelled) return;
    if (filter?.whole) {
      const parts = filter.end();
      const upstreamStatus = result.status;
      const status = filter.status?.() ?? upstreamStatus;
      result.status = status;
      headerList.push('content-length', String(parts.reduce((n, p) => n + p.length, 0)));
      res.writeHead(status, status === upstreamStatus ? this.statusText : undefined, headerList);
      for (const part of parts) res.write(part);
    } else if (filter) for (const part of filter.end()) res.write(part);
    res.end();
  }

  onError(err: Error): void {
    const { res, result } = this;
    if (this.cancelled || result.error || res.destroyed) return;
    if (isIdleTimeout(err)) {
      this.fail(idleTimeoutError());
    } else if (this.headersIn) {
      result.error = {
        code: 'upstream_interrupted',
        message: 'The provider closed the response early',
        type: 'upstream_error',
      };
      res.destroy();
    } else {
      this.fail(unreachableError(err));
    }
  }
}

/** Drops a header (lower-case name) from a flat `[name, value, ...]` list. */
function removeHeader(list: (string | string[])[], name: string): void {
  for (let i = 0; i < list.length; i += 2) {
    if (typeof list[i] === 'string' && (list[i] as string).toLowerCase() === name) {
      list.splice(i, 2);
      return;
    }
  }
}
