// A warning that may fire on every request (drops, failed publishes), said at most once per interval
// with counts of what happened since, so an outage is visible without flooding the log.
import type { Logger } from '@aigw/runtime';

export class RateLimitedLog {
  private counts = new Map<string, number>();
  private lastDetail: string | undefined;
  private lastEmit = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly log: Logger,
    private readonly message: string,
    private readonly intervalMs: number,
    private readonly context: () => Record<string, unknown> = () => ({}),
  ) {}

  /** Counts one occurrence under `key`; `detail` (an error message, never event content) is kept. */
  note(key: string, detail?: string): void {
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
    if (detail !== undefined) this.lastDetail = detail;
    if (performance.now() - this.lastEmit >= this.intervalMs) this.emit();
  }

  /** Says what was held back, once the interval has passed (call from a timer). */
  tick(): void {
    if (this.counts.size > 0 && performance.now() - this.lastEmit >= this.intervalMs) this.emit();
  }

  /** Says what was held back now (on close). */
  flush(): void {
    if (this.counts.size > 0) this.emit();
  }

  private emit(): void {
    const counts = Object.fromEntries(this.counts);
    const detail = this.lastDetail;
    this.counts = new Map();
    this.lastDetail = undefined;
    this.lastEmit = performance.now();
    this.log.warn(
      { ...this.context(), counts, ...(detail === undefined ? {} : { err: detail }) },
      this.message,
    );
  }
}
