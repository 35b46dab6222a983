// The limits of the targets a config request calls (control-plane mode): one admission per upstream
// call of a target that has limits of its own or target policies (the request-level admission of a
// config request names no provider), and their settlement once the answer went out (the answering
// call's with its usage, the others' with none, which releases their reservations). docs/limits.md, "Config targets".
import type { UsageCharge } from '@aigw/proto';
import type { LeafResolver } from '../access/index.js';
import type { ActualUsage, Admission, Limits } from '../limits/index.js';
import { requestEstimate } from '../limits/index.js';

/** What an admission needs of a prepared leaf. */
export interface AdmittedLeaf {
  readonly provider: string;
  readonly ref: Parameters<LeafResolver['targetLimits']>[0]['ref'];
  readonly model: string;
  readonly json: unknown;
  readonly body: Buffer;
}

export class TargetAdmissions {
  readonly #admitted: { readonly attempt: object; readonly admission: Admission }[] = [];
  #settled = false;
  /** A target's admission was decided without Redis (`x-service-limits-degraded`). */
  degraded = false;

  constructor(
    private readonly limits: Limits,
    private readonly resolver: LeafResolver,
  ) {}

  /** Some call was admitted, so settle has something to do. */
  get any(): boolean {
    return this.#admitted.length > 0;
  }

  /**
   * Admits one call of the leaf's target, or throws the limits' gateway error (429/412), which the
   * caller turns into a failed attempt. Undefined: no admission of its own (the request's covers it).
   */
  async admit(leaf: AdmittedLeaf): Promise<Admission | undefined> {
    const scope = this.resolver.targetLimits({ providerType: leaf.provider, ref: leaf.ref }, leaf.model);
    if (!scope) return undefined;
    const admission = await this.limits.admit(
      scope.snapshot,
      scope.subject,
      requestEstimate(leaf.json, leaf.body.length),
    );
    if (admission.degraded) this.degraded = true;
    return admission;
  }

  /** Ties an admission to the attempt it was made for (settle finds the answering one by it). */
  record(attempt: object, admission: Admission): void {
    this.#admitted.push({ attempt, admission });
  }

  /** Once, after the answer: `usage` goes to the answering attempt's admission only. */
  settle(answered: object | undefined, usage: ActualUsage | undefined): void {
    if (this.#settled) return;
    this.#settled = true;
    for (const { attempt, admission } of this.#admitted) {
      void admission.settle(attempt === answered ? usage : undefined);
    }
  }

  /** The budget counters the targets' admissions charged (RequestEvent.usage_charges). */
  usageCharges(): UsageCharge[] {
    return this.#admitted.flatMap(({ admission }) => admission.usageCharges());
  }
}
