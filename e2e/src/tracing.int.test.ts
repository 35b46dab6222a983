// Issue 21, tracing end to end: with the OpenTelemetry SDK on (an in-memory exporter in place of
// OTLP), one request through the gateway is one trace holding the gateway's span, its call to the
// provider and the logger's ingest span (the trace context rides in the request event over NATS),
// whose batch insert holds the pg spans. A proxied request does not call the control plane (the
// gateway serves from its snapshot); a config request's call to its target is traced the same way.
// The gRPC instrumentation that traces the snapshot stream across the two is checked where it
// applies, in plain Node (packages/telemetry/src/bootstrap.test.ts): vitest's module runner imports
// drivers by file path, which the ESM loader hook does not match.
import { startTelemetry } from '@aigw/telemetry';
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, describe, expect } from 'vitest';

// Tracing starts before the apps, the test kit and their drivers are imported: the instrumentations
// patch http, @grpc/grpc-js, pg and ioredis as they load (as main.ts does in production).
const exporter = new InMemorySpanExporter();
const telemetry = await startTelemetry({
  serviceName: 'aigw-e2e',
  spanProcessors: [new SimpleSpanProcessor(exporter)],
});
const { test } = await import('@aigw/testkit');
const { chatUntilServed, createTenant, pollUntil, startLogsStack } = await import(
  './logs-stack.test-support.js'
);

// SpanKind values of @opentelemetry/api.
const SERVER = 1;
const CLIENT = 2;
const CONSUMER = 4;

/** A request header the HTTP instrumentation recorded (headersToSpanAttributes). */
const headerValue = (span: ReadableSpan, header: string): unknown =>
  span.attributes[`http.request.header.${header}`];

afterAll(() => telemetry.shutdown());

describe('traces across the apps', () => {
  test('one gateway request is one trace with the gateway, provider call and logger spans', async ({
    pg,
    nats,
  }) => {
    const stack = await startLogsStack({ pg, nats });
    try {
      const tenant = await createTenant(stack.admin, stack.mock, 'Tracing');
      const key = await stack.admin.createKey(tenant.workspaceId, 'tracing');
      await chatUntilServed(stack, tenant, key.key, 'trace-e2e-warmup');
      const traceId = 'trace-e2e-one-request';
      const res = await fetch(`${stack.gatewayBase}/v1/chat/completions`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-service-api-key': key.key,
          'x-service-provider': tenant.provider,
          'x-service-trace-id': traceId,
        },
        body: JSON.stringify({
          model: 'gpt-4o-mini',
          messages: [{ role: 'user', content: 'hi' }],
          max_tokens: 3,
        }),
      });
      expect(res.status).toBe(200);
      await res.text();

      // The gateway's server span for this request, found by its x-service-trace-id.
      const { value: spans } = await pollUntil(
        async () => exporter.getFinishedSpans(),
        (all) =>
          all.some((s) => s.name === 'aigw.logger.ingest' && s.attributes['aigw.trace_id'] === traceId),
        { boundMs: 20_000, intervalMs: 50, what: 'the logger ingest span of the request' },
      );
      const gatewaySpans = spans.filter(
        (s) =>
          s.kind === SERVER &&
          JSON.stringify(headerValue(s, 'x-service-trace-id')) === JSON.stringify([traceId]),
      );
      expect(gatewaySpans).toHaveLength(1);
      const gateway = gatewaySpans[0] as ReadableSpan;
      expect(gateway.attributes['url.path'] ?? gateway.attributes['http.target']).toBe(
        '/v1/chat/completions',
      );
      const trace = spans.filter((s) => s.spanContext().traceId === gateway.spanContext().traceId);

      // The provider call: the gateway's client span and the (in-process) mock provider's server span.
      const providerCall = trace.find(
        (s) => s.kind === CLIENT && s.parentSpanContext?.spanId === gateway.spanContext().spanId,
      );
      expect(providerCall).toBeDefined();
      expect(
        trace.some(
          (s) => s.kind === SERVER && s.parentSpanContext?.spanId === providerCall?.spanContext().spanId,
        ),
      ).toBe(true);

      // The logger: its ingest span continues the gateway's trace, and stores the row under it.
      const ingest = trace.filter((s) => s.name === 'aigw.logger.ingest');
      expect(ingest).toHaveLength(1);
      expect(ingest[0]?.kind).toBe(CONSUMER);
      expect(trace.map((s) => s.spanContext().spanId)).toContain(ingest[0]?.parentSpanContext?.spanId);
      const logId = ingest[0]?.attributes['aigw.request_id'];
      const { rows } = await pg.pool.query<{ trace_id: string }>(
        'select trace_id from logs.request_logs where id = $1',
        [logId],
      );
      expect(rows).toEqual([{ trace_id: traceId }]);
      // The batch insert: a child of the ingest span when the batch held this event alone, else linked.
      const ingestSpanId = ingest[0]?.spanContext().spanId;
      const store = spans.find(
        (s) =>
          s.name === 'aigw.logger.store' &&
          (s.parentSpanContext?.spanId === ingestSpanId ||
            s.links.some((l) => l.context.spanId === ingestSpanId)),
      );
      expect(store).toBeDefined();
      // The insert itself, from the pg instrumentation, under the store span.
      expect(
        spans.some(
          (s) =>
            s.parentSpanContext?.spanId === store?.spanContext().spanId &&
            s.attributes['db.system.name'] === 'postgresql',
        ),
      ).toBe(true);

      // A config request calls its target through the same upstream client (undici): the same
      // client span under the gateway's span, and the provider's span under it (traceparent sent).
      const configTraceId = 'trace-e2e-config-request';
      const viaConfig = await fetch(`${stack.gatewayBase}/v1/chat/completions`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-service-api-key': key.key,
          'x-service-config': JSON.stringify({ provider: tenant.provider }),
          'x-service-trace-id': configTraceId,
        },
        body: JSON.stringify({
          model: 'gpt-4o-mini',
          messages: [{ role: 'user', content: 'hi' }],
          max_tokens: 3,
        }),
      });
      expect(viaConfig.status).toBe(200);
      await viaConfig.text();
      const { value: configSpans } = await pollUntil(
        async () => exporter.getFinishedSpans(),
        (all) =>
          all.some((s) => s.name === 'aigw.logger.ingest' && s.attributes['aigw.trace_id'] === configTraceId),
        { boundMs: 20_000, intervalMs: 50, what: 'the logger ingest span of the config request' },
      );
      const configGateway = configSpans.filter(
        (s) =>
          s.kind === SERVER &&
          JSON.stringify(headerValue(s, 'x-service-trace-id')) === JSON.stringify([configTraceId]),
      );
      expect(configGateway).toHaveLength(1);
      const configSpanId = configGateway[0]?.spanContext().spanId;
      const targetCalls = configSpans.filter(
        (s) =>
          s.kind === CLIENT &&
          s.parentSpanContext?.spanId === configSpanId &&
          String(s.attributes['url.full']).endsWith('/chat/completions'),
      );
      expect(targetCalls).toHaveLength(1);
      expect(
        configSpans.some(
          (s) => s.kind === SERVER && s.parentSpanContext?.spanId === targetCalls[0]?.spanContext().spanId,
        ),
      ).toBe(true);
    } finally {
      await stack.close();
    }
  });
});
