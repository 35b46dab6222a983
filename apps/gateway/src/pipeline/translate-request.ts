// Stage, between the body and the limits: the unified API's request transform (translate/). An
// OpenAI-shaped request to a provider whose native API differs is rewritten into that API here; the
// call stage sends the rewritten body and translates the answer back as it streams. The request
// event keeps what the client sent and what it received (both in the client's shape).
import { translationFor } from '../translate/translation.js';
import type { PlainTarget, RequestContext } from './request-context.js';

export function translateRequest(ctx: RequestContext, target: PlainTarget): void {
  const translation = translationFor({
    method: ctx.method,
    path: ctx.path,
    providerId: target.provider.id,
    cloud: target.base.cloud,
    json: ctx.json,
  });
  if (!translation) return;
  ctx.translation = translation;
  if (ctx.body) ctx.facts.request.push(ctx.body);
}
