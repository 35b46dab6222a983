// Entry point: settings from the environment, then run until SIGTERM/SIGINT.
import { runMain } from '@aigw/runtime';
import { createApp } from './app.js';
import { loadGatewayConfig } from './config.js';

await runMain({
  name: 'gateway',
  loadConfig: () => loadGatewayConfig(),
  createApp: (config) => createApp(config),
  shutdownTimeoutMs: (config) => config.SHUTDOWN_TIMEOUT_MS + 2_000,
});
