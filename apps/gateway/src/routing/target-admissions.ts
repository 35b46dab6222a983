// The limits of the targets a config request calls (control-plane mode): one admission per upstream
// call of a target that has limits of its own or target policies (the request-level admission of a
// config request names no provider), and their settlement once the answer went out (the answering
// call's with its usage, the others' with none, which releases their reservations). An image or
// audio call reserves and settles the media units the request's own admission does (one reader:
// formats/media-units.ts, formats/media-charge.ts). docs/limits.md, "Config targets".
import type { UsageCharge } from '@aigw/proto';
import type { LeafResolver } from '../access/index.js';
import { formRequest, mediaEndpoint, mediaModel } from '../formats/index.js';
import { type MediaCharge, mediaChargeOf } from '../formats/media-charge.js';
import { requestModel } from '../formats/request-model.js';
import type { Admission, Limits } from '../limits/index.js';
import { requestEstimate, usageOf } from '../limits/index.js';
import { type ResponseFacts, readResponseFacts } from '../upstream/usage.js';

/** What an admission needs of a prepared leaf. */
export interface AdmittedLeaf {
  readonly provider: string;
  readonly ref: Parameters<LeafResolver['targetLimits']>[0]['ref'];
  readonly model: string;
  /** The model a managed Azure deployment serves: counted instead of the body's `model`. */
  readonly servedModel?: string | undefined;
  readonly json: unknown;
  readonly body: Buffer;
}

/** The request the config runs on, as a media charge reads it. */
export interface AdmittedRequest {
  /** A retrieval's answer is charged only for usage no creation reported (upstream/usage.ts). */
  readonly method: string;
  /** Below `/v1`. */
  readonly path: string;
  readonly contentType: string | undefined;
  /** The answer's facts as charged: usage an earlier answer claimed is a repeat (pipeline/usage-claims.ts). */
  readonly claimUsage?: ((facts: ResponseFacts) => ResponseFacts | Promise<ResponseFacts>) | undefined;
}

/** The answer that went out, as its settle reads it (whole, or its first and last bytes). */
export interface SettledAnswer {
  readonly contentType: string | undefined;
  /** The first bytes of the answer, or all of it. */
  readonly head: Buffer | undefined;
  readonly tail: Buffer | undefined;
  /** `head` is the whole answer. */
  readonly whole: boolean;
}

/** What settle reads of the attempt an admission was made for (leaf-call.ts's AttemptRecord). */
export interface AdmittedAttempt {
  readonly provider: string;
  readonly model: string;
  readonly statusCode: number;
  readonly error?: unknown;
}

interface Admitted {
  readonly leaf: AdmittedLeaf;
  readonly admission: Admission;
}

export class TargetAdmissions {
  readonly #admitted: (Admitted & { readonly attempt: AdmittedAttempt })[] = [];
  /** Admissions made, until `record` ties them to their attempt. */
  readonly #leaves = new WeakMap<Admission, AdmittedLeaf>();
  #settled = false;
  /** A target's admission was decided without Redis (`x-service-limits-degraded`). */
  degraded = false;

  constructor(
    private readonly limits: Limits,
    private readonly resolver: LeafResolver,
    private readonly request: AdmittedRequest,
  ) {
    this.#media = mediaEndpoint(request.path) !== undefined;
  }

  /** An image or audio path: calls reserve and settle media units (every other call skips them). */
  readonly #media: boolean;

  /** Some call was admitted, so settle has something to do. */
  get any(): boolean {
    return this.#admitted.length > 0;
  }

  /**
   * Admits one call of the leaf's target, or throws the limits' gateway error (429/412), which the
   * caller turns into a failed attempt. Undefined: no admission of its own (the request's covers it).
   */
  async admit(leaf: AdmittedLeaf): Promise<Admission | undefined> {
    const { path, contentType } = this.request;
    // An image or audio call: its units and model are read as the request's admission reads them
    // (a form's fields too: a config holds the whole body), the model-less image request priced as
    // the provider's default. Every other call is admitted on its body's model and size only.
    const media = this.#media;
    const asked = media ? (leaf.json ?? formRequest(contentType, leaf.body)) : leaf.json;
    const named = leaf.servedModel || leaf.model;
    const model = media
      ? mediaModel(path, named || requestModel(path, contentType, undefined, asked), asked)
      : named;
    const scope = this.resolver.targetLimits({ providerType: leaf.provider, ref: leaf.ref }, model);
    if (!scope) return undefined;
    const admission = await this.limits.admit(
      scope.snapshot,
      scope.subject,
      requestEstimate(asked, leaf.body.length, path),
    );
    if (admission.degraded) this.degraded = true;
    this.#leaves.set(admission, leaf);
    return admission;
  }

  /** Ties an admission to the attempt it was made for (settle finds the answering one by it). */
  record(attempt: AdmittedAttempt, admission: Admission): void {
    const leaf = this.#leaves.get(admission);
    if (leaf) this.#admitted.push({ attempt, admission, leaf });
  }

  /**
   * Once, after the answer: the answering attempt's admission is charged its tokens and media
   * units, the others release their reservations. Resolves once every settlement is handed to the
   * limits (a transcription's duration may have to be read from its upload first), so the request
   * event reads the charges after it.
   */
  async settle(answered: AdmittedAttempt | undefined, answer: SettledAnswer | undefined): Promise<void> {
    if (this.#settled) return;
    this.#settled = true;
    const entry = answered && this.#admitted.find((a) => a.attempt === answered);
    let usage: Parameters<Admission['settle']>[0];
    if (entry && answer?.tail) {
      const charge = this.#media ? this.#mediaCharge(entry, answer) : undefined;
      const media = charge instanceof Promise ? await charge : charge;
      const model = entry.leaf.servedModel || entry.attempt.model || (media?.model ?? '');
      const read = readResponseFacts(answer.contentType, answer.head, answer.tail, this.request.method);
      const charged = this.request.claimUsage ? await this.request.claimUsage(read) : read;
      usage = usageOf(charged, model, entry.attempt.provider, media?.units);
    }
    for (const { attempt, admission } of this.#admitted) {
      void admission.settle(attempt === answered ? usage : undefined);
    }
  }

  /** The media charge of the answering call (formats/media-charge.ts, as the request's own). */
  #mediaCharge(entry: Admitted & { readonly attempt: AdmittedAttempt }, answer: SettledAnswer) {
    const { leaf, attempt } = entry;
    return mediaChargeOf({
      path: this.request.path,
      status: attempt.statusCode,
      failed: attempt.error !== undefined,
      json: leaf.json,
      contentType: this.request.contentType,
      head: () => leaf.body,
      upload: () => leaf.body,
      model: leaf.model,
      answer: () => ({ contentType: answer.contentType, body: answer.whole ? answer.head : undefined }),
    }) satisfies MediaCharge | Promise<MediaCharge | undefined> | undefined;
  }

  /** The budget counters the targets' admissions charged (RequestEvent.usage_charges). */
  usageCharges(): UsageCharge[] {
    return this.#admitted.flatMap(({ admission }) => admission.usageCharges());
  }
}
