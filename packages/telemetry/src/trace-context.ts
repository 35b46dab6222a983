// Trace context carried in messages (the request event's trace_parent field): the W3C traceparent
// of the active span, and the context one names.
// The propagator is the global one the SDK registers (W3C trace context); without the SDK it does nothing.
import { type Context, context, propagation, trace } from '@opentelemetry/api';

const getter = {
  get: (carrier: Record<string, string>, key: string) => carrier[key],
  keys: (carrier: Record<string, string>) => Object.keys(carrier),
};
const setter = {
  set: (carrier: Record<string, string>, key: string, value: string) => {
    carrier[key] = value;
  },
};

/**
 * The active span's `traceparent` ('' without one, e.g. tracing off). The span may have ended (a
 * request event is published once the response is complete): its context still parents others.
 */
export function currentTraceParent(): string {
  if (!trace.getActiveSpan()) return '';
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier, setter);
  return carrier.traceparent ?? '';
}

/** The context a `traceparent` names (the active context when it is empty or malformed). */
export function contextFromTraceParent(traceParent: string): Context {
  if (!traceParent) return context.active();
  return propagation.extract(context.active(), { traceparent: traceParent }, getter);
}
