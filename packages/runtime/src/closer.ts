// Stops what an app started, in reverse order, once, even if one step fails.
import type { Logger } from 'pino';

export class Closer {
  private readonly steps: Array<{ name: string; close: () => Promise<void> | void }> = [];
  private closing: Promise<void> | undefined;

  constructor(private readonly log: Logger) {}

  /** Register a resource right after it started, so a failed start still closes what is open. */
  add(name: string, close: () => Promise<void> | void): void {
    this.steps.push({ name, close });
  }

  get closed(): boolean {
    return this.closing !== undefined;
  }

  closeAll(): Promise<void> {
    this.closing ??= (async () => {
      for (const step of this.steps.reverse()) {
        try {
          await step.close();
        } catch (err) {
          this.log.error({ err, step: step.name }, 'error while stopping');
        }
      }
    })();
    return this.closing;
  }
}
