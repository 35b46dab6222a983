import { describe, expect, it } from 'vitest';
import { periodic } from './periodic.js';

describe('periodic', () => {
  it('runs at once, never alongside itself, and stop() waits for the run in progress', async () => {
    let runs = 0;
    let active = 0;
    let overlapped = false;
    let release: () => void = () => {};
    const job = periodic(5, async () => {
      runs += 1;
      active += 1;
      if (active > 1) overlapped = true;
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      active -= 1;
    });
    job.start();
    expect(runs).toBe(1);
    // Many intervals pass while the first run is held: no second run starts.
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(runs).toBe(1);
    let stopped = false;
    const stopping = job.stop().then(() => {
      stopped = true;
    });
    await Promise.resolve();
    expect(stopped).toBe(false);
    release();
    await stopping;
    expect(stopped).toBe(true);
    expect(overlapped).toBe(false);
    expect(active).toBe(0);
  });

  it('keeps going after a failed run', async () => {
    let runs = 0;
    const job = periodic(5, async () => {
      runs += 1;
      throw new Error('boom');
    });
    job.start();
    await new Promise((resolve) => setTimeout(resolve, 40));
    await job.stop();
    expect(runs).toBeGreaterThan(1);
  });
});
