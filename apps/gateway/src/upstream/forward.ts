// Forwards one HTTP request upstream and streams the answer back: bytes unchanged, SSE flushed
// chunk by chunk, backpressure respected, the upstream cancelled the moment the client goes away.
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { LookupFunction } from 'node:net';
import type { AppError } from '@aigw/runtime';
import { gatewayError, writeError } from '../errors.js';
import type { ChunkSink } from './capture.js';
import { responseHeaderList } from './headers.js';
import { openUpstream } from './upstream-request.js';

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
  /** Streamed bodies beyond this many bytes are cut off with 413. */
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
  responseHeaders: IncomingMessage['headers'];
  /** Why the exchange did not complete normally (gateway-made error or an interruption). */
  error?: { code: string; message: string; type: string };
  clientAborted: boolean;
}

/**
 * Resolves when the client's response is closed (finished, failed or aborted). Never rejects:
 * failures before the response started are answered with a gateway error envelope.
 */
export function forward(res: ServerResponse, fr: ForwardRequest): Promise<ForwardResult> {
  return new Promise((resolve) => {
    const result: ForwardResult = {
      status: 0,
      upstreamStartedAt: Date.now(),
      firstByteAt: 0,
      endedAt: 0,
      responseBytes: 0,
      responseHeaders: {},
      clientAborted: false,
    };
    const upstream = openUpstream(fr);
    let timer: NodeJS.Timeout | undefined;

    const fail = (error: AppError) => {
      result.error ??= { code: error.code ?? 'error', message: error.message, type: error.type };
      upstream.destroy();
      if (res.headersSent) {
        res.destroy();
        return;
      }
      result.status = error.status;
      writeError(res, error, fr.extraResponseHeaders);
    };

    if (fr.timeoutMs !== undefined) {
      timer = setTimeout(() => {
        fail(
          gatewayError(
            'request_timeout',
            `Request exceeded the timeout sent in the request: ${fr.timeoutMs}ms`,
          ),
        );
      }, fr.timeoutMs);
    }

    res.once('close', () => {
      clearTimeout(timer);
      result.endedAt = Date.now();
      if (!res.writableFinished) {
        result.clientAborted = result.error === undefined;
        upstream.destroy();
      }
      resolve(result);
    });

    upstream.on('timeout', () =>
      fail(gatewayError('upstream_timeout', 'The provider did not answer in time')),
    );
    upstream.on('error', (err: NodeJS.ErrnoException) => {
      if (result.error || res.destroyed) return;
      fail(
        gatewayError('upstream_unreachable', `Could not reach the provider: ${err.code ?? err.message}`, {
          cause: err,
        }),
      );
    });

    upstream.on('response', (upRes) => {
      if (res.headersSent || res.destroyed) {
        upRes.destroy();
        return;
      }
      result.firstByteAt = Date.now();
      result.status = upRes.statusCode ?? 502;
      result.responseHeaders = upRes.headers;
      const filter =
        fr.responseFilter && (fr.filterAllStatuses || (result.status >= 200 && result.status < 300))
          ? fr.responseFilter(upRes.headers, result.status)
          : undefined;
      const headerList = responseHeaderList(upRes.headers, fr.extraResponseHeaders);
      // A filtered body has another length: it goes out chunked.
      if (filter) removeHeader(headerList, 'content-length');
      if (filter?.contentType !== undefined) {
        removeHeader(headerList, 'content-type');
        headerList.push('content-type', filter.contentType);
        // What the client got (and the sinks saw) is read in this type at the end.
        result.responseHeaders = { ...upRes.headers, 'content-type': filter.contentType };
      }
      if (!filter?.whole) res.writeHead(result.status, upRes.statusMessage, headerList);
      // Event streams: the client must see the stream open at once. Events that came in the same
      // read as the headers take them out in one write; otherwise the headers go alone right after
      // this turn of the event loop (one write less per stream than flushing them here).
      if (result.responseHeaders['content-type']?.startsWith('text/event-stream')) {
        setImmediate(() => {
          if (result.responseBytes === 0 && !res.writableEnded && !res.destroyed) res.flushHeaders();
        });
      }
      // What a data listener plus `upRes.pipe(res)` did, in one listener: pipe() adds and removes
      // eight listeners per response. A full client buffer pauses the provider until it drains; a
      // closed client gets no more writes (the 'close' handler above cancels the upstream).
      let paused = false;
      const drained = () => {
        paused = false;
        upRes.resume();
      };
      upRes.on('data', (chunk: Buffer) => {
        result.responseBytes += chunk.length;
        fr.responseSink?.push(chunk);
        if (res.destroyed) return;
        let flushed = true;
        if (filter) for (const part of filter.push(chunk)) flushed = res.write(part) && flushed;
        else flushed = res.write(chunk);
        if (!flushed && !paused) {
          paused = true;
          upRes.pause();
          res.once('drain', drained);
        }
      });
      upRes.once('end', () => {
        if (res.destroyed) return;
        if (filter?.whole) {
          const parts = filter.end();
          const status = filter.status?.() ?? result.status;
          result.status = status;
          headerList.push('content-length', String(parts.reduce((n, p) => n + p.length, 0)));
          res.writeHead(status, status === upRes.statusCode ? upRes.statusMessage : undefined, headerList);
          for (const part of parts) res.write(part);
        } else if (filter) for (const part of filter.end()) res.write(part);
        res.end();
      });
      upRes.on('aborted', () => {
        result.error ??= {
          code: 'upstream_interrupted',
          message: 'The provider closed the response early',
          type: 'upstream_error',
        };
        res.destroy();
      });
      upRes.on('error', () => res.destroy());
    });

    if (Buffer.isBuffer(fr.body)) {
      fr.requestSink?.push(fr.body);
      upstream.end(fr.body);
    } else {
      // The body relayed as `body.pipe(upstream)` did, in the one data listener: nothing more is
      // written once the body is too large or the upstream is gone, and the client's body keeps
      // flowing (and is dropped) so that its connection stays usable.
      const body = fr.body;
      let received = 0;
      let cut = false;
      let paused = false;
      const drained = () => {
        upstream.off('drain', drained);
        upstream.off('close', drained);
        paused = false;
        body.resume();
      };
      body.on('data', (chunk: Buffer) => {
        received += chunk.length;
        fr.requestSink?.push(chunk);
        if (received > fr.maxBodyBytes) {
          cut = true;
          fail(gatewayError('payload_too_large', `The request body is larger than ${fr.maxBodyBytes} bytes`));
          return;
        }
        if (upstream.destroyed) return;
        if (!upstream.write(chunk) && !paused && !upstream.destroyed) {
          paused = true;
          body.pause();
          upstream.on('drain', drained);
          upstream.on('close', drained);
        }
      });
      const ended = () => {
        if (!cut && !upstream.destroyed) upstream.end();
      };
      if (body.readableEnded) process.nextTick(ended);
      else body.once('end', ended);
      body.on('aborted', () => upstream.destroy());
      body.on('error', () => upstream.destroy());
    }
  });
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
