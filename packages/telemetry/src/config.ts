// Telemetry settings: the only place this package reads process.env. Tracing is on exactly when
// OTEL_EXPORTER_OTLP_ENDPOINT is set; the SDK reads its other OTEL_* variables itself (protocol,
// headers, sampler: the OpenTelemetry specification's names, docs/tracing.md).
// No zod and no @aigw/runtime here: this runs before the modules tracing must patch are loaded.

export interface TelemetryConfig {
  /** OTLP endpoint (http/protobuf by default, OTEL_EXPORTER_OTLP_PROTOCOL to change); undefined: off. */
  readonly endpoint: string | undefined;
}

export function loadTelemetryConfig(env: NodeJS.ProcessEnv = process.env): TelemetryConfig {
  const endpoint = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || undefined;
  if (endpoint !== undefined) {
    let protocol: string | undefined;
    try {
      protocol = new URL(endpoint).protocol;
    } catch {
      protocol = undefined;
    }
    if (protocol !== 'http:' && protocol !== 'https:')
      throw new Error('OTEL_EXPORTER_OTLP_ENDPOINT must be an http:// or https:// URL');
  }
  return Object.freeze({ endpoint });
}
