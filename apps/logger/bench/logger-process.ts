// The logger under measurement as a process of its own (src/main.ts through tsx, as in production
// but without a build), so that its CPU is read from /proc without the publisher's.
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const appDir = fileURLToPath(new URL('..', import.meta.url));

export interface LoggerProcess {
  readonly pid: number;
  /** Freezes (SIGSTOP) or thaws (SIGCONT) the process: a backlog builds up while it is frozen. */
  freeze(): void;
  thaw(): void;
  /** SIGTERM, then waits for the exit (the logger drains what it is storing). */
  stop(): Promise<void>;
}

/** Spawns the logger and resolves once it logged `logger listening` (ingest is running by then). */
export async function startLoggerProcess(
  env: Record<string, string>,
  nodeArgs: readonly string[] = [],
): Promise<LoggerProcess> {
  // node itself, not the tsx wrapper, so that the pid read and signalled is the logger's.
  const child: ChildProcess = spawn(
    process.execPath,
    [...nodeArgs, '--import', 'tsx', '--conditions=@aigw/source', 'src/main.ts'],
    { cwd: appDir, env: { ...process.env, ...env, LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const lines = createInterface({ input: child.stdout! });
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`logger exited with ${code} before listening`)));
    lines.on('line', (line) => {
      if (line.includes('"logger listening"')) resolve();
      else if (/"level":"(warn|error|fatal)"/.test(line)) process.stderr.write(`${line}\n`);
    });
  });
  return {
    pid: child.pid!,
    freeze: () => child.kill('SIGSTOP'),
    thaw: () => child.kill('SIGCONT'),
    async stop() {
      child.kill('SIGCONT');
      child.kill('SIGTERM');
      await exited;
    },
  };
}
