// A child app process: output prefixed line by line, readiness polling, graceful stop.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';

export interface AppProcess {
  readonly name: string;
  readonly child: ChildProcess;
  /** Resolves with the exit code (or the signal name) when the process ends. */
  readonly exited: Promise<number | string>;
  /** SIGTERM, then SIGKILL after `graceMs`. Resolves when the process is gone. */
  stop(graceMs: number): Promise<number | string>;
}

export function spawnApp(
  name: string,
  entry: string,
  env: NodeJS.ProcessEnv,
  out: (line: string) => void,
  nodeFlags: readonly string[] = [],
): AppProcess {
  // Its own process group: Ctrl-C in a terminal signals the foreground group, and the stack (not the
  // terminal) must be the one to stop the apps, once each, in order, with a drain.
  const child = spawn(process.execPath, [...nodeFlags, entry], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  out(`[stack] ${name} started (pid ${child.pid})`);
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on('line', (line) => out(`[${name}] ${line}`));
  }
  const exited = once(child, 'exit').then(
    ([code, signal]) => (code ?? signal ?? 'unknown') as number | string,
  );
  return {
    name,
    child,
    exited,
    async stop(graceMs) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
        timer.unref();
        const result = await exited;
        clearTimeout(timer);
        return result;
      }
      return exited;
    },
  };
}

/** Polls `url` until it answers 200; rejects when the process exits first or time runs out. */
export async function waitReady(url: string, app: AppProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exited: number | string | undefined;
  void app.exited.then((code) => {
    exited = code;
  });
  let last = 'no answer';
  while (Date.now() < deadline) {
    if (exited !== undefined) throw new Error(`${app.name} exited (${exited}) before it was ready`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      if (res.status === 200) return;
      last = `${res.status} ${await res.text()}`;
    } catch (err) {
      last = err instanceof Error ? err.message : String(err);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${app.name} not ready after ${timeoutMs} ms: ${last}`);
}
