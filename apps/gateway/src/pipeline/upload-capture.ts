// The whole upload of a transcription or translation that streams to the provider (control-plane
// mode): kept while it passes, so that settle can read the audio's duration from the file when the
// answer reports none (formats/media-charge.ts). Every other request keeps only the usual capture.
import { mediaEndpoint } from '../formats/index.js';
import { BodyCapture } from '../upstream/capture.js';
import type { RequestContext } from './request-context.js';

/**
 * The request capture (the first bytes for the request event, the last ones) that also holds
 * references to every chunk, up to `maxBytes`: the body limit, past which the call fails anyway.
 */
export class UploadCapture extends BodyCapture {
  #chunks: Buffer[] | undefined = [];

  constructor(
    limit: number,
    private readonly maxBytes: number,
  ) {
    super(limit);
  }

  override push(chunk: Buffer): void {
    const before = this.total;
    super.push(chunk);
    // Sealed (nothing counted) or dropped past the bound: nothing more is kept.
    if (this.total === before || !this.#chunks) return;
    if (this.total > this.maxBytes) this.#chunks = undefined;
    else this.#chunks.push(chunk);
  }

  /** The whole body as it was sent (joined once, on demand); undefined past the bound. */
  whole(): Buffer | undefined {
    const chunks = this.#chunks;
    if (!chunks) return undefined;
    if (chunks.length !== 1) this.#chunks = [Buffer.concat(chunks)];
    return this.#chunks?.[0] ?? Buffer.alloc(0);
  }
}

/**
 * Before a plain call streams its body: a transcription or translation upload in control-plane mode
 * (where its cost is priced) is kept whole. A body a stage already read is in `ctx.body`.
 */
export function keepUpload(ctx: RequestContext, captureLimit: number, maxBytes: number): void {
  if (!ctx.access || ctx.body !== undefined || mediaEndpoint(ctx.path) !== 'transcription') return;
  if (ctx.facts.request.total > 0) return;
  ctx.facts.request = new UploadCapture(captureLimit, maxBytes);
}

/** The whole request body when the gateway holds it: read by a stage, or kept by `keepUpload`. */
export function heldUpload(ctx: RequestContext): Buffer | undefined {
  if (ctx.body !== undefined) return ctx.body;
  const capture = ctx.facts.request;
  return capture instanceof UploadCapture ? capture.whole() : undefined;
}
