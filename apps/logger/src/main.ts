// Entry point: settings from the environment, then run until SIGTERM/SIGINT.
import { runMain } from '@aigw/runtime';
import { createApp } from './app.js';
import { loadLoggerConfig } from './config.js';

await runMain({
  name: 'logger',
  loadConfig: () => loadLoggerConfig(),
  createApp: (config) => createApp(config),
  shutdownTimeoutMs: (config) => config.SHUTDOWN_TIMEOUT_MS + 2_000,
});
