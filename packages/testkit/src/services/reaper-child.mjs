// Reaper: runs one server process and guarantees it dies when the process that asked for it goes away.
// Plain JS on purpose: it runs under bare `node` from both the src and the dist layout.
//
// Protocol: argv[2] is a JSON spec; the parent holds our stdin pipe open for as long as it wants the
// server. When that pipe closes (parent stopped us, exited, crashed or was SIGKILLed) we send the
// server its stop signal, SIGKILL its process group after the grace period, and exit. Lines of JSON on
// stdout tell the parent the server pid and, later, how it exited.
import { spawn } from 'node:child_process';
import { openSync, rmSync } from 'node:fs';

const spec = JSON.parse(process.argv[2] ?? '{}');
const send = (message) => {
  try {
    process.stdout.write(`${JSON.stringify(message)}\n`);
  } catch {
    // The parent is gone; the stdin watcher below does the cleanup.
  }
};
process.stdout.on('error', () => undefined);
process.stderr.on('error', () => undefined);

const log = openSync(spec.logFile, 'a');
const server = spawn(spec.command, spec.args, {
  cwd: spec.cwd,
  env: process.env,
  uid: spec.uid ?? undefined,
  gid: spec.gid ?? undefined,
  // Own process group: the final SIGKILL reaches helpers the server forked, and a terminal Ctrl-C
  // goes to the parent (which decides the shutdown order) instead of straight to the server.
  detached: true,
  stdio: ['ignore', log, log],
});

let stopping = false;
let killTimer;
const signalServer = (signal, group) => {
  try {
    process.kill(group ? -server.pid : server.pid, signal);
  } catch {
    // Already gone.
  }
};
const shutdown = () => {
  if (stopping || server.pid === undefined) return;
  stopping = true;
  signalServer(spec.stopSignal ?? 'SIGTERM', false);
  killTimer = setTimeout(() => signalServer('SIGKILL', true), spec.graceMs ?? 10_000);
};

server.on('spawn', () => send({ pid: server.pid }));
server.on('error', (err) => {
  send({ error: err.message });
  process.exit(1);
});
server.on('exit', (code, signal) => {
  clearTimeout(killTimer);
  // Helpers left in the group (Postgres backends after a postmaster crash) must not outlive it either.
  if (server.pid !== undefined) signalServer('SIGKILL', true);
  // Temporary directories go too, even when the parent died before it could remove them. Not after
  // a crash on our own: the parent reads the log in there to say why.
  for (const path of stopping ? (spec.removeOnExit ?? []) : []) {
    try {
      rmSync(path, { recursive: true, force: true });
    } catch {
      // Best effort: the parent removes them too when it is alive.
    }
  }
  send({ exit: code, signal });
  process.exit(0);
});

process.stdin.on('end', shutdown);
process.stdin.on('close', shutdown);
process.stdin.on('error', shutdown);
process.stdin.resume();

// Ctrl-C and a closed terminal are the parent's to handle; it closes our stdin when it is done.
process.on('SIGINT', () => undefined);
process.on('SIGHUP', () => undefined);
process.on('SIGTERM', shutdown);
