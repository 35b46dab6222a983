// Starting server processes so that they can never outlive the process that started them.
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, existsSync, fstatSync, openSync, readSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export interface ReapedSpec {
  readonly command: string;
  readonly args: readonly string[];
  /** stdout and stderr of the server are appended here (read back for error messages). */
  readonly logFile: string;
  readonly cwd?: string;
  readonly env?: NodeJS.ProcessEnv;
  /** Run the server as this user (Postgres refuses to run as root). */
  readonly uid?: number;
  readonly gid?: number;
  /** Signal for an orderly stop (Postgres: SIGINT = fast shutdown). Default SIGTERM. */
  readonly stopSignal?: NodeJS.Signals;
  /** Time between the stop signal and SIGKILL of the process group. Default 10 s. */
  readonly graceMs?: number;
  /** Directories the reaper deletes once the server is gone (its temporary run directory). */
  readonly removeOnExit?: readonly string[];
}

export interface ReapedProcess {
  /** Pid of the server itself (not of the reaper). */
  readonly pid: number;
  readonly reaperPid: number;
  readonly logFile: string;
  /** Resolves when the server and its reaper are gone. */
  readonly exited: Promise<{ code: number | null; signal: string | null }>;
  isRunning(): boolean;
  /** Orderly stop: resolves once the server has exited. */
  stop(): Promise<void>;
  /** The last `bytes` of the server's log, for error messages. */
  logTail(bytes?: number): string;
}

/** Reaper pids of servers still running, for the exit and signal handlers. */
const live = new Set<number>();

export async function spawnReaped(spec: ReapedSpec): Promise<ReapedProcess> {
  const child = spawn(process.execPath, [reaperScript(), JSON.stringify(spec)], {
    env: spec.env ?? process.env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  // Ending the pipe of a reaper that already exited raises EPIPE here; its exit is handled via 'close'.
  child.stdin?.on('error', () => undefined);
  let reaperStderr = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    reaperStderr = (reaperStderr + chunk).slice(-4000);
  });
  let serverExit: { code: number | null; signal: string | null } = { code: null, signal: null };
  const lines = createInterface({ input: child.stdout! });
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => {
    child.once('close', () => resolve(serverExit));
  });

  const pid = await new Promise<number>((resolve, reject) => {
    lines.on('line', (line) => {
      const message = parse(line);
      if (typeof message.pid === 'number') resolve(message.pid);
      if (typeof message.error === 'string')
        reject(new Error(`could not start ${spec.command}: ${message.error}`));
      if ('exit' in message)
        serverExit = { code: numberOrNull(message.exit), signal: stringOrNull(message.signal) };
    });
    child.once('error', reject);
    child.once('close', (code) =>
      reject(
        new Error(`reaper for ${spec.command} exited (${code}) before starting it: ${reaperStderr.trim()}`),
      ),
    );
  });

  const reaperPid = child.pid!;
  live.add(reaperPid);
  installExitHandlers();
  let running = true;
  void exited.then(() => {
    running = false;
    live.delete(reaperPid);
    if (live.size === 0) uninstallExitHandlers();
  });
  // A forgotten server must not keep the caller's event loop alive: our exit handler and the
  // reaper's stdin watch stop it when the caller exits.
  setReferenced(child, false);

  return {
    pid,
    reaperPid,
    logFile: spec.logFile,
    exited,
    isRunning: () => running,
    stop: async () => {
      if (!running) return;
      setReferenced(child, true);
      child.stdin?.end();
      await exited;
    },
    logTail: (bytes = 4000) => readTail(spec.logFile, bytes),
  };
}

function reaperScript(): string {
  // src/services/reaper-child.mjs sits next to this module in src; dist reaches back into src.
  const candidates = ['./reaper-child.mjs', '../../src/services/reaper-child.mjs'];
  for (const candidate of candidates) {
    const file = fileURLToPath(new URL(candidate, import.meta.url));
    if (existsSync(file)) return file;
  }
  throw new Error(`reaper-child.mjs not found next to ${fileURLToPath(import.meta.url)}`);
}

function setReferenced(child: ChildProcess, referenced: boolean): void {
  for (const handle of [child, child.stdin, child.stdout, child.stderr]) {
    const target = handle as { ref?: () => void; unref?: () => void } | null;
    if (referenced) target?.ref?.();
    else target?.unref?.();
  }
}

/**
 * Tells every reaper to stop its server now, without waiting for our stdin pipes to close. The
 * reaper (not us) signals the server, so it knows the exit was asked for and removes the run directory.
 */
function signalAllNow(): void {
  for (const reaperPid of live) {
    try {
      process.kill(reaperPid, 'SIGTERM');
    } catch {
      // Already gone.
    }
  }
}

function onSignal(signal: NodeJS.Signals): void {
  // Another listener (vitest, the stack CLI) owns the shutdown order and will stop us in time.
  if (process.listenerCount(signal) > 1) return;
  signalAllNow();
  uninstallExitHandlers();
  process.kill(process.pid, signal);
}

let installed = false;
const onSigint = () => onSignal('SIGINT');
const onSigterm = () => onSignal('SIGTERM');

function installExitHandlers(): void {
  if (installed) return;
  installed = true;
  process.on('exit', signalAllNow);
  process.on('SIGINT', onSigint);
  process.on('SIGTERM', onSigterm);
}

function uninstallExitHandlers(): void {
  if (!installed) return;
  installed = false;
  process.off('exit', signalAllNow);
  process.off('SIGINT', onSigint);
  process.off('SIGTERM', onSigterm);
}

function parse(line: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(line);
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function numberOrNull(value: unknown): number | null {
  return typeof value === 'number' ? value : null;
}

function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

function readTail(file: string, bytes: number): string {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const size = fstatSync(fd).size;
    const length = Math.min(size, bytes);
    const buffer = Buffer.alloc(length);
    readSync(fd, buffer, 0, length, size - length);
    return buffer.toString('utf8');
  } catch {
    return '';
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
