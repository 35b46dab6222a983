// Stage, after the answer is complete (off the client's path): settle the admission with the
// answer's usage (tokens, and the media units of image and audio calls) and publish the request
// event. The event is built later, by the publisher, from what is frozen here (a late 'aborted' or
// chunk after the close must not change it).
import type { RequestEvent } from '@aigw/proto';
import { usageOf } from '../limits/index.js';
import { type ResponseFacts, readResponseFacts } from '../upstream/usage.js';
import { estimateAnswer, needsEstimate } from './estimate-answer.js';
import { type MediaCharge, mediaCharge } from './media-charge.js';
import type { RequestContext } from './request-context.js';
import { buildRequestEvent } from './request-event.js';
import { claimedFacts, type UsageClaims } from './usage-claims.js';

export type Publish = (event: () => RequestEvent) => void;

export function settleAndPublish(ctx: RequestContext, publish: Publish, claims: UsageClaims): void {
  const completedAt = Date.now();
  const { facts } = ctx;
  facts.request.seal();
  facts.response.seal();
  const outcome = ctx.result && { ...ctx.result };
  if (ctx.usage) facts.responseFacts = ctx.usage;
  // Model calls: a plain or config request, or a prompt completion (MCP messages and realtime
  // turns are charged by their own stages).
  if ((ctx.kind !== 'http' && ctx.kind !== 'prompt') || !outcome) {
    finish(ctx, publish, outcome, completedAt, undefined);
    return;
  }
  // What the client got (the event reports it) and a config's held answer, the provider's own
  // (settle charges it): usage an earlier answer claimed (usage-claims.ts) is a repeat in both.
  const held = ctx.heldAnswer;
  const read = claimedFacts(
    ctx,
    claims,
    facts.responseFacts ??
      readResponseFacts(outcome.contentType, facts.response.complete(), facts.response.tail(), ctx.method),
  );
  const heldRead =
    held && claimedFacts(ctx, claims, readResponseFacts(held.contentType, held.body, held.body, ctx.method));
  if (read instanceof Promise || heldRead instanceof Promise) {
    Promise.all([read, heldRead]).then(
      ([answer, provider]) => settleRead(ctx, publish, outcome, completedAt, answer, provider),
      () => settleRead(ctx, publish, outcome, completedAt, NO_FACTS, held && NO_FACTS),
    );
    return;
  }
  settleRead(ctx, publish, outcome, completedAt, read, heldRead);
}

const NO_FACTS: ResponseFacts = Object.freeze({ usage: undefined, model: undefined });

function settleRead(
  ctx: RequestContext,
  publish: Publish,
  outcome: RequestContext['result'],
  completedAt: number,
  read: ResponseFacts,
  heldRead: ResponseFacts | undefined,
): void {
  ctx.facts.responseFacts = read;
  if (heldRead === undefined && needsEstimate(ctx, read)) {
    // The tokenizer may still be loading: settle and publish once the estimate is made.
    estimateAnswer(ctx, read).then(
      (estimated) => {
        ctx.facts.responseFacts = estimated;
        finish(ctx, publish, outcome, completedAt, undefined);
      },
      () => finish(ctx, publish, outcome, completedAt, undefined),
    );
    return;
  }
  finish(ctx, publish, outcome, completedAt, heldRead);
}

/** `heldRead`: the facts of a config's held answer, which settle charges instead of the client's. */
function finish(
  ctx: RequestContext,
  publish: Publish,
  outcome: RequestContext['result'],
  completedAt: number,
  heldRead: ResponseFacts | undefined,
  measured?: MediaCharge | null,
): void {
  const { facts } = ctx;
  const admission = ctx.admission;
  if (ctx.kind === 'realtime') {
    // Each turn was charged as it ended (realtime-session.ts): the last admission only releases.
    if (admission) void admission.settle(undefined);
    const charges = ctx.turnCharges ?? admission?.usageCharges;
    if (charges) facts.usageCharges = charges;
  } else {
    const held = ctx.heldAnswer;
    // The answer is read only on an image or audio path (every other request skips it).
    const media =
      measured === undefined
        ? mediaCharge(ctx, () =>
            held
              ? { contentType: held.contentType, body: held.body }
              : { contentType: outcome?.contentType, body: facts.response.complete() },
          )
        : (measured ?? undefined);
    // A transcription's duration read from its file: settle and publish once it is read.
    if (media instanceof Promise) {
      void media.then((read) => finish(ctx, publish, outcome, completedAt, heldRead, read ?? null));
      return;
    }
    // The request event prices the same units as the budgets' settlement, and names the model an
    // upload's form asked for (its body streamed, or is not JSON).
    if (media) {
      facts.media = media;
      if (facts.modelRequested === undefined) facts.modelRequested = media.named.slice(0, 256);
    }
    if (admission) {
      const model = ctx.model || (media?.model ?? '');
      // A config's held answer is charged as the provider gave it; otherwise what settleAndPublish read.
      const read = heldRead ?? facts.responseFacts ?? NO_FACTS;
      void admission.settle(usageOf(read, model, facts.provider, media?.units));
      const charges = admission.usageCharges;
      const targets = ctx.targetCharges;
      facts.usageCharges = targets ? () => [...charges(), ...targets()] : charges;
    }
  }
  publish(() => buildRequestEvent(facts, outcome, completedAt));
}
