// Waits for an app of this project to report ready (packages/runtime health.ts): a gateway is not
// ready until it holds a snapshot, and until then it answers 503 `snapshot_not_loaded`, which a
// test polling for "anything but 401" would take for an answer.

import { waitFor } from './wait-for.js';

/** Resolves once `<base>/readyz` answers 200; the error names the last answer seen. */
export async function waitReady(base: string, timeoutMs = 30_000): Promise<void> {
  let last = 'no answer';
  try {
    await waitFor(
      async () => {
        try {
          const res = await fetch(`${base}/readyz`, { signal: AbortSignal.timeout(2_000) });
          last = `${res.status} ${await res.text()}`;
          return res.status === 200 ? true : undefined;
        } catch (err) {
          last = String(err);
          return undefined;
        }
      },
      `${base}/readyz`,
      timeoutMs,
      20,
    );
  } catch (err) {
    throw new Error(`${(err as Error).message}; last answer: ${last}`);
  }
}
