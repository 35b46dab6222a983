// Sends the answer the strategy chose to the client: an upstream answer streamed through (bytes
// unchanged, event streams flushed at once), a body the gateway holds, or a gateway error.
import type { IncomingHttpHeaders, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { AppError } from '@aigw/runtime';
import { errorAnswer } from '../errors.js';
import type { ChunkSink } from '../upstream/capture.js';
import { responseHeaders } from '../upstream/headers.js';
import type { UpstreamExchange } from '../upstream/upstream-exchange.js';

export interface RelayResult {
  /** Status sent to the client (0 when nothing was sent). */
  status: number;
  endedAt: number;
  responseBytes: number;
  /** The answer's content type as the client received it. */
  contentType: string | undefined;
  /** Why the answer did not complete normally. */
  error?: { code: string; message: string; type: string };
  clientAborted: boolean;
  /** The whole answer reached the client. */
  complete: boolean;
}

function closed(res: ServerResponse, result: RelayResult, onClose?: () => void): Promise<RelayResult> {
  return new Promise((resolve) => {
    res.once('close', () => {
      result.endedAt = Date.now();
      result.complete = res.writableFinished && result.error === undefined;
      if (!res.writableFinished) result.clientAborted = result.error === undefined;
      onClose?.();
      resolve(result);
    });
  });
}

/** Streams the exchange's answer to the client; resolves when the client's response is closed. */
export function relay(
  res: ServerResponse,
  exchange: UpstreamExchange,
  extraHeaders: Readonly<Record<string, string>>,
  sinks: readonly ChunkSink[],
): Promise<RelayResult> {
  const upRes = exchange.response;
  if (!upRes) throw new Error('relay needs an answer');
  const result: RelayResult = {
    status: upRes.statusCode,
    endedAt: 0,
    responseBytes: 0,
    contentType: upRes.headers['content-type'],
    clientAborted: false,
    complete: false,
  };
  const done = closed(res, result, () => {
    if (!upRes.complete) exchange.abort();
  });
  const interrupted = () => {
    const error = exchange.error;
    result.error ??= error
      ? { code: error.code ?? 'error', message: error.message, type: error.type }
      : {
          code: 'upstream_interrupted',
          message: 'The provider closed the response early',
          type: 'upstream_error',
        };
    res.destroy();
  };
  res.writeHead(result.status, upRes.statusMessage, responseHeaders(upRes.headers, extraHeaders));
  if (upRes.headers['content-type']?.startsWith('text/event-stream')) res.flushHeaders();
  upRes.on('data', (chunk: Buffer) => {
    result.responseBytes += chunk.length;
    for (const sink of sinks) sink.push(chunk);
  });
  upRes.on('end', () => exchange.settle());
  // A cut answer is destroyed, never failed with 'error' (upstream-exchange.ts).
  upRes.on('close', () => {
    if (!upRes.complete) interrupted();
  });
  upRes.pipe(res);
  return done;
}

/** Sends a body the gateway holds (an answer read for output guardrails, with its status). */
export function sendBody(
  res: ServerResponse,
  status: number,
  headers: IncomingHttpHeaders,
  body: Buffer,
  extraHeaders: Readonly<Record<string, string>>,
  sinks: readonly ChunkSink[],
): Promise<RelayResult> {
  const result: RelayResult = {
    status,
    endedAt: 0,
    responseBytes: body.length,
    contentType: headers['content-type'],
    clientAborted: false,
    complete: false,
  };
  const done = closed(res, result);
  const out: OutgoingHttpHeaders = responseHeaders(headers, extraHeaders);
  out['content-length'] = String(body.length);
  res.writeHead(status, out);
  for (const sink of sinks) sink.push(body);
  res.end(body);
  return done;
}

/** Answers with a gateway error envelope (the error's own headers, then the gateway's). */
export function sendError(
  res: ServerResponse,
  error: AppError,
  extraHeaders: Readonly<Record<string, string>>,
  sinks: readonly ChunkSink[] = [],
): Promise<RelayResult> {
  const answer = errorAnswer(error);
  return sendBody(res, answer.status, answer.headers, answer.body, extraHeaders, sinks);
}
