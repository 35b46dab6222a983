import { describe, expect, it } from 'vitest';
import { loadTelemetryConfig } from './config.js';

describe('loadTelemetryConfig', () => {
  it('is off without OTEL_EXPORTER_OTLP_ENDPOINT, and when it is empty', () => {
    expect(loadTelemetryConfig({}).endpoint).toBeUndefined();
    expect(loadTelemetryConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: ' ' }).endpoint).toBeUndefined();
  });

  it('is on with an http(s) endpoint', () => {
    expect(loadTelemetryConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }).endpoint).toBe(
      'http://collector:4318',
    );
  });

  it('rejects an endpoint that is not an http(s) URL, without echoing it', () => {
    expect(() => loadTelemetryConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4317' })).toThrow(
      'OTEL_EXPORTER_OTLP_ENDPOINT must be an http:// or https:// URL',
    );
  });
});
