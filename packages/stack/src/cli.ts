#!/usr/bin/env node
// `pnpm start`: run the whole stack in the foreground until Ctrl-C or SIGTERM.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { StackPorts } from './apps.js';
import { startStack } from './stack.js';

const rootDir = fileURLToPath(new URL('../../..', import.meta.url));
const out = (line: string) => process.stdout.write(`${line}\n`);

/** Port overrides, e.g. to run a second stack beside the default one. */
const PORT_SETTINGS: Record<keyof StackPorts, string> = {
  gateway: 'GATEWAY_PORT',
  controlPlane: 'CONTROL_PLANE_PORT',
  controlPlaneGrpc: 'CONTROL_PLANE_GRPC_PORT',
  logger: 'LOGGER_PORT',
  loggerGrpc: 'LOGGER_GRPC_PORT',
};

function portSetting(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1 || value > 65535)
    throw new Error(`${name} must be a port number, got ${raw}`);
  return value;
}

function portOverrides(env: NodeJS.ProcessEnv): Partial<StackPorts> {
  const ports: Partial<Record<keyof StackPorts, number>> = {};
  for (const [key, name] of Object.entries(PORT_SETTINGS) as Array<[keyof StackPorts, string]>) {
    const value = portSetting(env, name);
    if (value !== undefined) ports[key] = value;
  }
  return ports;
}

/** The demo provider's default port, next to the apps' (docs: README "Quick start"). */
const DEMO_PROVIDER_PORT = 8790;

/** AIGW_DEMO: on unless `0`, `false`, `off` or `no`. */
function demoOption(env: NodeJS.ProcessEnv): { port: number } | undefined {
  const raw = (env.AIGW_DEMO ?? '').trim().toLowerCase();
  if (['0', 'false', 'off', 'no'].includes(raw)) return undefined;
  if (!['', '1', 'true', 'on', 'yes'].includes(raw))
    throw new Error(`AIGW_DEMO must be 1 or 0 (on or off), got ${env.AIGW_DEMO}`);
  return { port: portSetting(env, 'DEMO_PROVIDER_PORT') ?? DEMO_PROVIDER_PORT };
}

try {
  const stack = await startStack({
    rootDir,
    dataDir: process.env.AIGW_DATA_DIR || join(rootDir, '.aigw'),
    env: process.env,
    ports: portOverrides(process.env),
    demo: demoOption(process.env),
    out,
  });
  let stopping = false;
  const shutdown = async (reason: string, exitCode: number) => {
    if (stopping) return;
    stopping = true;
    out(`[stack] ${reason}: stopping`);
    const codes = await stack.stop();
    out(`[stack] stopped: ${JSON.stringify(codes)}`);
    process.exit(exitCode);
  };
  process.on('SIGINT', () => void shutdown('SIGINT', 0));
  process.on('SIGTERM', () => void shutdown('SIGTERM', 0));
  void stack.crashed.then(({ app, code }) => shutdown(`${app} keeps crashing (last exit: ${code})`, 1));
  // `pnpm start` runs this under a shell: when that wrapper is killed (SIGTERM to pnpm), the
  // signal does not reach us and we would be orphaned with the apps running. Follow the parent.
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) void shutdown('parent process exited', 0);
  }, 500).unref();
} catch (err) {
  process.stderr.write(`[stack] cannot start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
