// Running the `pnpm start` entry point (from source) as a terminal would: its own process group,
// output collected, lines waited for.
import { type ChildProcess, spawn } from 'node:child_process';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../../..', import.meta.url));
const cli = fileURLToPath(new URL('./cli.ts', import.meta.url));

export interface RunningStack {
  readonly child: ChildProcess;
  output(): string;
}

/** Runs the stack CLI with `env` added to this process's environment. */
export function runStack(env: Record<string, string>): RunningStack {
  let output = '';
  // A process group of its own, as `pnpm start` in a terminal is: Ctrl-C signals the whole group.
  const child = spawn(process.execPath, ['--conditions=@aigw/source', '--import', 'tsx', cli], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  return { child, output: () => output };
}

/** Whether a TCP connection to host:port is accepted. */
export function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Waits (up to a minute) until the output matches; fails at once when the stack exits. */
export async function waitForLine(output: () => string, pattern: RegExp, child: ChildProcess): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (pattern.test(output())) return;
    if (child.exitCode !== null) throw new Error(`stack exited early:\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no ${pattern} in output:\n${output()}`);
}
