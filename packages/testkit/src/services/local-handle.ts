// The handle of a server this package started: stop it once (also when asked twice), then clean up.
import type { ReapedProcess } from './reaper.js';
import type { LocalServiceHandle, ServiceName } from './types.js';

export function localHandle(
  name: ServiceName,
  server: { readonly proc: ReapedProcess; readonly url: string },
  startedAt: number,
  cleanup: () => Promise<void>,
): LocalServiceHandle {
  let stopped: Promise<void> | undefined;
  return {
    name,
    kind: 'local',
    url: server.url,
    pid: server.proc.pid,
    startMs: Date.now() - startedAt,
    stop: () => {
      stopped ??= server.proc.stop().then(cleanup);
      return stopped;
    },
  };
}
