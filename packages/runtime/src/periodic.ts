// A background job run every interval and never alongside itself: a run still going when the timer
// fires is not overlapped by another.
export interface Periodic {
  /** Runs the job at once, then every interval (the timer does not keep the process alive). */
  start(): void;
  /** Stops the timer and waits for a run in progress. */
  stop(): Promise<void>;
}

/** `run` handles its own failures (a rejection is dropped, so it must log it first). */
export function periodic(intervalMs: number, run: () => Promise<unknown>): Periodic {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | undefined;
  function tick(): void {
    if (running) return;
    running = run()
      .catch(() => undefined)
      .finally(() => {
        running = undefined;
      });
  }
  return {
    start() {
      if (timer) return;
      tick();
      timer = setInterval(tick, intervalMs);
      timer.unref();
    },
    async stop() {
      clearInterval(timer);
      timer = undefined;
      await running;
    },
  };
}
