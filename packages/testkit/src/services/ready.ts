// Waiting for a freshly spawned server to accept connections, or failing with its log.
import type { ReapedProcess } from './reaper.js';

export class ServerStartError extends Error {
  constructor(
    message: string,
    /** True when the server exited during startup (a port taken between probe and bind, a bad flag). */
    readonly exitedEarly: boolean,
  ) {
    super(message);
    this.name = 'ServerStartError';
  }
}

/**
 * Polls `probe` until it resolves true. Fails as soon as the server exits, or after `timeoutMs`,
 * with the tail of the server log in the message.
 */
export async function waitUntilReady(
  what: string,
  server: ReapedProcess,
  probe: () => Promise<boolean>,
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError = '';
  for (;;) {
    if (!server.isRunning()) {
      throw new ServerStartError(`${what} exited during startup. Log tail:\n${server.logTail()}`, true);
    }
    try {
      if (await probe()) return;
    } catch (err) {
      lastError = err instanceof Error ? err.message : String(err);
    }
    if (Date.now() > deadline) {
      await server.stop();
      throw new ServerStartError(
        `${what} did not accept connections within ${timeoutMs} ms (last error: ${lastError || 'none'}). Log tail:\n${server.logTail()}`,
        false,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Retries `start` when the server lost the race for a probed free port to another process. */
export async function withPortRetry<T>(
  portFixed: boolean,
  start: () => Promise<T>,
  attempts = 3,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start();
    } catch (err) {
      const lostPort =
        err instanceof ServerStartError && err.exitedEarly && /address already in use/i.test(err.message);
      if (portFixed || attempt >= attempts || !lostPort) throw err;
    }
  }
}
