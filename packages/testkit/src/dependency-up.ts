// What an app of this project reports about a dependency it serves without (packages/runtime
// health.ts): its `dependency_up{dependency}` gauge, read from /metrics.

import { waitFor } from './wait-for.js';
/** True or false as `<base>/metrics` reports `dependency` of `app`; undefined when not reported. */
export async function dependencyUp(
  base: string,
  app: string,
  dependency: string,
): Promise<boolean | undefined> {
  const metrics = await (await fetch(`${base}/metrics`)).text();
  const line = new RegExp(`^dependency_up\\{dependency="${dependency}",app="${app}"\\} ([01])$`, 'm').exec(
    metrics,
  );
  return line ? line[1] === '1' : undefined;
}

/** Waits until `<base>/metrics` reports `dependency` of `app` up (or down). */
export async function waitForDependency(
  base: string,
  app: string,
  dependency: string,
  up: boolean,
  timeoutMs = 10_000,
): Promise<void> {
  await waitFor(
    async () => ((await dependencyUp(base, app, dependency)) === up ? true : undefined),
    `${app} reporting ${dependency} ${up ? 'up' : 'down'}`,
    timeoutMs,
  );
}
