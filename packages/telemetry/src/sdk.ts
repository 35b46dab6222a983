// The OpenTelemetry Node SDK with the HTTP, undici, gRPC, pg and ioredis instrumentations. Loaded (dynamic
// import) only when tracing is on: with it off none of this code, nor the SDK, is ever imported.
//
// The apps are ES modules, so the instrumentations see `import`s only through import-in-the-middle's
// loader hook, registered here before the SDK starts; it wraps only the modules the instrumentations
// ask for (the message channel), never the rest.
import type { IncomingMessage } from 'node:http';
import { register } from 'node:module';
import { GrpcInstrumentation } from '@opentelemetry/instrumentation-grpc';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import type { NodeSDK } from '@opentelemetry/sdk-node';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { createAddHookMessageChannel } from 'import-in-the-middle';

export interface SdkOptions {
  readonly serviceName: string;
  /** Tests: span processors (an in-memory exporter). Unset: OTLP, configured by the OTEL_* variables. */
  readonly spanProcessors?: SpanProcessor[];
}

/** Health probes and scrapes every few seconds on every pod: not worth a trace each. */
const UNTRACED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

function untraced(req: IncomingMessage): boolean {
  const path = (req.url ?? '').split('?', 1)[0] ?? '';
  return UNTRACED_PATHS.has(path);
}

export async function startSdk(options: SdkOptions): Promise<NodeSDK> {
  const { registerOptions, waitForAllMessagesAcknowledged } = createAddHookMessageChannel();
  register('import-in-the-middle/hook.mjs', import.meta.url, registerOptions);
  // The instrumentations hook module loading as they are constructed: before the SDK is imported,
  // since the SDK's own OTLP/gRPC exporter loads @grpc/grpc-js (the apps' copy), which must load patched.
  const instrumentations = [
    new HttpInstrumentation({
      ignoreIncomingRequestHook: untraced,
      // The gateway's x-service-trace-id (the client's, or generated and returned) on its span:
      // the request log row carries the same id, so a trace and a log find each other.
      headersToSpanAttributes: {
        server: { requestHeaders: ['x-service-trace-id'], responseHeaders: ['x-service-trace-id'] },
      },
    }),
    new GrpcInstrumentation(),
    // Only inside a traced operation: background polls (outbox, exports) would be a trace each.
    new PgInstrumentation({ requireParentSpan: true }),
    new IORedisInstrumentation({ requireParentSpan: true }),
    // The gateway's pass-through calls providers with undici (not node:http): its client span and
    // the `traceparent` sent upstream come from here (diagnostics channels, no module patching).
    new UndiciInstrumentation({ requireParentforSpans: true }),
  ];
  await waitForAllMessagesAcknowledged();
  const { NodeSDK } = await import('@opentelemetry/sdk-node');
  const sdk = new NodeSDK({
    serviceName: options.serviceName,
    ...(options.spanProcessors ? { spanProcessors: options.spanProcessors } : {}),
    // Traces only: metrics stay on /metrics (Prometheus), logs on stdout.
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations,
  });
  sdk.start();
  await waitForAllMessagesAcknowledged();
  return sdk;
}
