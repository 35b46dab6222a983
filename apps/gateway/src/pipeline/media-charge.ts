// The media units a finished image or audio call is charged (images, speech characters, audio
// seconds; formats/media-units.ts reads them), and the model they are priced as: budgets' settle
// and the request event's cost take both from here, so they agree.
import { requestModel } from '../access/index.js';
import { formRequest, measuredMediaUnits, mediaEndpoint } from '../formats/index.js';
import type { RequestContext } from './request-context.js';
import type { MediaCharge } from './request-event.js';

export type { MediaCharge } from './request-event.js';

/**
 * Units of a call that succeeded (2xx, no error) on a media path; undefined otherwise (a refused or
 * failed call made nothing and is not charged). `answer`: its content type and the body the
 * provider sent, when whole; asked for only on a media path.
 */
export function mediaCharge(
  ctx: RequestContext,
  answer: () => { readonly contentType: string | undefined; readonly body: Buffer | undefined },
): MediaCharge | undefined {
  const status = ctx.result?.status ?? 0;
  if (status < 200 || status >= 300 || ctx.result?.error || !mediaEndpoint(ctx.path)) return undefined;
  const { contentType, body } = answer();
  const { requestContentType, request } = ctx.facts;
  // A multipart upload (image edits and variations, transcriptions) streams through unread: its
  // model, n, size and quality are form fields in the captured head of the request.
  const asked = ctx.json ?? formRequest(requestContentType, request.head());
  const units = measuredMediaUnits(ctx.path, asked, contentType?.includes('json') ? parsed(body) : undefined);
  if (!units) return undefined;
  // The form read above names the model of an upload; requestModel reads it from there first.
  const model = ctx.model || requestModel(ctx.path, requestContentType, undefined, asked);
  return { units, model };
}

function parsed(body: Buffer | undefined): unknown {
  if (!body || body.length === 0) return undefined;
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}
