// The stack's supervision of one app (issue 23 item 8): an app that exits on its own is started again
// after 1 s, doubling, and said so; after MAX_CRASHES exits within CRASH_WINDOW_MS the stack gives up
// on it (and `pnpm start` stops). Fake timers and stand-in processes: the whole-stack behaviour with
// real processes is in stack.int.test.ts and faults.int.test.ts.
import type { ChildProcess } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AppProcess } from './process.js';
import { CRASH_WINDOW_MS, MAX_CRASHES, supervise } from './stack.js';

/** A stand-in app process whose exit the test decides. */
function fakeApp(): AppProcess & { exit(code: number | string): void } {
  let exit: (code: number | string) => void = () => undefined;
  const exited = new Promise<number | string>((resolve) => {
    exit = resolve;
  });
  return {
    name: 'gateway',
    child: {} as ChildProcess,
    exited,
    exit,
    stop: async () => {
      exit(0);
      return 0;
    },
  };
}

describe('supervise', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('restarts a crashed app with doubling backoff, and gives up after MAX_CRASHES exits within the window', async () => {
    const started: ReturnType<typeof fakeApp>[] = [];
    const lines: string[] = [];
    const gaveUp = vi.fn();
    supervise(
      () => {
        const app = fakeApp();
        started.push(app);
        return app;
      },
      { stopping: () => false, out: (line) => lines.push(line), gaveUp },
    );
    expect(started).toHaveLength(1);
    const backoffs: number[] = [];
    for (let crash = 1; crash < MAX_CRASHES; crash++) {
      started.at(-1)?.exit('SIGKILL');
      await vi.advanceTimersByTimeAsync(0);
      const said = /restarting it in (\d+) s/.exec(lines.at(-1) ?? '');
      backoffs.push(Number(said?.[1]));
      // Not before its backoff...
      await vi.advanceTimersByTimeAsync(Number(said?.[1]) * 1000 - 1);
      expect(started).toHaveLength(crash);
      // ...and then at once.
      await vi.advanceTimersByTimeAsync(1);
      expect(started).toHaveLength(crash + 1);
    }
    expect(backoffs).toEqual([1, 2, 4, 8]);
    expect(lines[0]).toBe(
      `[stack] gateway exited (SIGKILL); restarting it in 1 s (crash 1 of ${MAX_CRASHES} allowed within ${CRASH_WINDOW_MS / 1000} s)`,
    );
    expect(gaveUp).not.toHaveBeenCalled();

    started.at(-1)?.exit(1);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(gaveUp).toHaveBeenCalledWith(1);
    expect(lines.at(-1)).toBe(`[stack] gateway exited (1) ${MAX_CRASHES} times within 60 s: giving up`);
    expect(started).toHaveLength(MAX_CRASHES);
  });

  it('forgets crashes older than the window: an app that crashes now and then is always restarted', async () => {
    const started: ReturnType<typeof fakeApp>[] = [];
    const gaveUp = vi.fn();
    supervise(
      () => {
        const app = fakeApp();
        started.push(app);
        return app;
      },
      { stopping: () => false, out: () => undefined, gaveUp },
    );
    for (let crash = 0; crash < MAX_CRASHES * 2; crash++) {
      started.at(-1)?.exit('SIGKILL');
      await vi.advanceTimersByTimeAsync(CRASH_WINDOW_MS + 1);
    }
    expect(gaveUp).not.toHaveBeenCalled();
    expect(started).toHaveLength(MAX_CRASHES * 2 + 1);
  });

  it('does not restart an app that exits because the stack is stopping', async () => {
    let stopping = false;
    const started: AppProcess[] = [];
    const supervised = supervise(
      () => {
        const app = fakeApp();
        started.push(app);
        return app;
      },
      { stopping: () => stopping, out: () => undefined, gaveUp: vi.fn() },
    );
    stopping = true;
    await supervised.stop(1_000);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(started).toHaveLength(1);
  });
});
