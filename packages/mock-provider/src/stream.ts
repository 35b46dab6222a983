// Writes a streamed response frame by frame, applying chunkDelayMs, stallAfterChunks and cutAfterChunks.
import { setTimeout as sleep } from 'node:timers/promises';
import type { RouteContext } from './context.js';

/** One SSE frame: `event:` line when named, then a single `data:` line. */
export function sseFrame(data: unknown, event?: string): string {
  const payload = typeof data === 'string' ? data : JSON.stringify(data);
  return `${event ? `event: ${event}\n` : ''}data: ${payload}\n\n`;
}

/** Resolves once the frame is flushed, or once the connection is gone (a destroyed socket never calls back). */
function writeFlushed(ctx: RouteContext, frame: string | Buffer): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      ctx.res.off('close', done);
      resolve();
    };
    ctx.res.once('close', done);
    ctx.res.write(frame, done);
  });
}

/**
 * Every frame counts as one chunk for the knobs (role/usage/stop frames included), because that is what
 * a client reading the wire sees. A stall leaves the response open until the client or close() ends it.
 */
export async function writeStream(
  ctx: RouteContext,
  frames: ReadonlyArray<string | Buffer>,
  contentType = 'text/event-stream; charset=utf-8',
): Promise<void> {
  const { res, knobs } = ctx;
  if (res.headersSent || res.destroyed) return;
  res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-cache', connection: 'keep-alive' });
  res.flushHeaders();
  for (const [index, frame] of frames.entries()) {
    if (knobs.cutAfterChunks !== undefined && index >= knobs.cutAfterChunks) {
      res.destroy();
      return;
    }
    if (knobs.stallAfterChunks !== undefined && index >= knobs.stallAfterChunks) return;
    if (index > 0 && knobs.chunkDelayMs > 0) await sleep(knobs.chunkDelayMs);
    if (res.destroyed) return;
    await writeFlushed(ctx, frame);
  }
  // Exactly N frames: the client got them all but never sees the stream end properly.
  if (knobs.cutAfterChunks === frames.length) {
    res.destroy();
    return;
  }
  if (knobs.stallAfterChunks === frames.length) return;
  res.end();
}
