// What a response filter may hold (a JSON answer read whole, an unfinished stream event) must not
// grow with whatever the provider sends: the bytes it took in since it last gave anything out are
// counted against a bound (MAX_BODY_BYTES), and past it the answer is refused or cut off. One rule
// for forward.ts's filters and the config leaves' translated answers (routing/translated-exchange.ts).
import type { AppError } from '@aigw/runtime';
import { gatewayError } from '../errors.js';

export class HeldBound {
  #held = 0;

  constructor(
    private readonly filter: { readonly whole?: boolean },
    private readonly max: number,
  ) {}

  /**
   * Counts a chunk the filter took in and the parts it gave out for it; the error to answer with
   * once the filter holds more than the bound, undefined until then.
   */
  exceeded(chunkBytes: number, partsOut: number): AppError | undefined {
    this.#held = partsOut > 0 ? 0 : this.#held + chunkBytes;
    if (this.#held <= this.max) return undefined;
    return gatewayError(
      'upstream_unreachable',
      this.filter.whole
        ? `The provider's answer is larger than ${this.max} bytes`
        : `A provider's stream event is larger than ${this.max} bytes`,
    );
  }
}
