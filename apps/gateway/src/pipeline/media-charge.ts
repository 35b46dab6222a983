// The media charge of the request's own call (plain, or the request-level side of a config):
// formats/media-charge.ts reads it from the call as this request's context holds it.
import { mediaEndpoint } from '../formats/index.js';
import { type MediaAnswer, type MediaCharge, mediaChargeOf } from '../formats/media-charge.js';
import type { RequestContext } from './request-context.js';
import { heldUpload } from './upload-capture.js';

export type { MediaAnswer, MediaCharge } from '../formats/media-charge.js';

/** `mediaChargeOf` the request's own call (plain, or the request-level side of a config). */
export function mediaCharge(
  ctx: RequestContext,
  answer: MediaAnswer,
): MediaCharge | Promise<MediaCharge | undefined> | undefined {
  // Every non-media request leaves here, before anything is read or allocated.
  if (!mediaEndpoint(ctx.path)) return undefined;
  const { requestContentType, request } = ctx.facts;
  return mediaChargeOf({
    path: ctx.path,
    status: ctx.result?.status ?? 0,
    failed: Boolean(ctx.result?.error),
    json: ctx.json ?? ctx.form,
    contentType: requestContentType,
    head: () => request.head(),
    upload: () => heldUpload(ctx),
    model: ctx.model,
    answer,
  });
}
