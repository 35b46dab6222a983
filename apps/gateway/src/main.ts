// Entry point: tracing when OTEL_EXPORTER_OTLP_ENDPOINT is set (docs/tracing.md), then settings from
// the environment, then run until SIGTERM/SIGINT. The rest is imported after tracing starts, so the
// modules it instruments (http, gRPC, pg, ioredis) load patched; with tracing off nothing more loads.
import { startTelemetryFromEnv } from '@aigw/telemetry';

await startTelemetryFromEnv('aigw-gateway');
const { runMain } = await import('@aigw/runtime');
const { createApp } = await import('./app.js');
const { loadGatewayConfig } = await import('./config.js');

await runMain({
  name: 'gateway',
  loadConfig: () => loadGatewayConfig(),
  createApp: (config) => createApp(config),
  shutdownTimeoutMs: (config) => config.SHUTDOWN_TIMEOUT_MS + 2_000,
});
