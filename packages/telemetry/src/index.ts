// OpenTelemetry for the apps. This entry point is light on purpose (the API only): the SDK and the
// instrumentations load only when tracing is on (startTelemetry), so with it off they cost nothing.
import { loadTelemetryConfig } from './config.js';
import type { SdkOptions } from './sdk.js';
import { markTelemetryEnabled, telemetryEnabled } from './state.js';

export { loadTelemetryConfig, type TelemetryConfig } from './config.js';
export { inMessagesSpan, type MessageSpan, startMessageSpan } from './message-spans.js';
export { telemetryEnabled } from './state.js';
export { contextFromTraceParent, currentTraceParent } from './trace-context.js';

export interface Telemetry {
  /** Flushes what is buffered and stops exporting. */
  shutdown(): Promise<void>;
}

/**
 * Starts tracing: OTLP export per the OTEL_* variables, or `spanProcessors` (tests). Call it before
 * importing the modules it instruments (http, @grpc/grpc-js, pg, ioredis): main.ts imports the app
 * dynamically after it. Once per process.
 */
export async function startTelemetry(options: SdkOptions): Promise<Telemetry> {
  if (telemetryEnabled()) throw new Error('telemetry already started in this process');
  const { startSdk } = await import('./sdk.js');
  const sdk = await startSdk(options);
  markTelemetryEnabled();
  return { shutdown: () => sdk.shutdown() };
}

/** main.ts: tracing when OTEL_EXPORTER_OTLP_ENDPOINT is set, else nothing at all (undefined). */
export async function startTelemetryFromEnv(serviceName: string): Promise<Telemetry | undefined> {
  let config: ReturnType<typeof loadTelemetryConfig>;
  try {
    config = loadTelemetryConfig();
  } catch (err) {
    process.stderr.write(
      `${serviceName}: cannot start, ${err instanceof Error ? err.message : String(err)}\n`,
    );
    process.exit(1);
  }
  if (!config.endpoint) return undefined;
  return startTelemetry({ serviceName });
}
