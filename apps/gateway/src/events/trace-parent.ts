// With tracing on, each request event carries its request span's W3C traceparent (the event's
// trace_parent), so the logger's ingest span joins the gateway's trace. Installed only when tracing
// is on: with it off the publisher is called directly, no work per request.
import type { RequestEvent } from '@aigw/proto';
import { currentTraceParent } from '@aigw/telemetry';
import type { LazyRequestEvent } from './batch-encoder.js';

type Publish = (event: RequestEvent | LazyRequestEvent) => void;

/**
 * `publish` stamping the active span's traceparent on each event. Called where the pipeline
 * publishes (settle), which runs in the request's context: the HTTP server span is the active one.
 */
export function publishWithTraceParent(publish: Publish): Publish {
  return (event) => {
    const traceParent = currentTraceParent();
    if (traceParent === '') publish(event);
    else if (typeof event === 'function') publish(() => ({ ...event(), traceParent }));
    else publish({ ...event, traceParent });
  };
}
