// Stage: rate limits and budgets, admitted once per request (or realtime session) before anything
// is sent, and settled once after the answer with its usage (settle.ts). A config's targets have
// their own provider and virtual-key limits, admitted per call (routing/target-admissions.ts).
import { configRequestView, limitSubject } from '../access/index.js';
import { mediaModel } from '../formats/index.js';
import { admissionHeaders, type Limits, requestEstimate } from '../limits/index.js';
import type { RequestContext } from './request-context.js';

/**
 * `providerType`: the provider the request goes to; '' for a config, whose targets decide it.
 * Does nothing in standalone mode (no snapshot, no policies).
 */
export async function admitLimits(
  ctx: RequestContext,
  limits: Limits | undefined,
  providerType: string,
): Promise<void> {
  const access = ctx.access;
  if (!limits || !access) return;
  // What a media request asks for: its JSON, or the fields of an upload's form the body stage read.
  const asked = ctx.json ?? ctx.form;
  // A model-less image request is priced (and matched) as the provider's default image model.
  const subject = limitSubject(access, providerType, mediaModel(ctx.path, ctx.model, asked));
  const size = ctx.body?.length ?? Number(ctx.req.headers['content-length'] ?? 0);
  // A config's targets decide the provider and may send another model: the policies that depend on
  // them are admitted per call of a target (routing/target-admissions.ts), not here.
  const snapshot =
    access.route.kind === 'config'
      ? configRequestView(access.snapshot, subject.organisationId)
      : access.snapshot;
  ctx.admission = await limits.admit(snapshot, subject, requestEstimate(asked, size, ctx.path));
  ctx.limitHeaders = admissionHeaders(ctx.admission);
}
