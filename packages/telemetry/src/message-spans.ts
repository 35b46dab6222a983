// Spans for work on messages that carry a trace context (request events): one CONSUMER span per
// message continuing its producer's trace, and a span around the write that handles several of them.
import {
  type Context,
  context,
  type Link,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import { contextFromTraceParent } from './trace-context.js';

const tracer = () => trace.getTracer('aigw');

export interface MessageSpan {
  /** Ends the span; with `error`, as failed. */
  end(error?: string): void;
  readonly span: Span;
}

/** A span continuing the trace `traceParent` names (a root span when it is empty). */
export function startMessageSpan(
  name: string,
  traceParent: string,
  attributes: Record<string, string | number>,
  startTime?: number,
): MessageSpan {
  const span = tracer().startSpan(
    name,
    { kind: SpanKind.CONSUMER, attributes, ...(startTime === undefined ? {} : { startTime }) },
    contextFromTraceParent(traceParent),
  );
  return {
    span,
    end(error) {
      if (error !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: error });
      span.end();
    },
  };
}

/**
 * Runs `work` in a span for the messages' common work (a batch insert): the child of the one
 * message's span when there is one (its database spans then join that trace), else linked to each.
 */
export async function inMessagesSpan<T>(
  name: string,
  messages: readonly MessageSpan[],
  attributes: Record<string, string | number>,
  work: () => Promise<T>,
): Promise<T> {
  const only = messages.length === 1 ? messages[0] : undefined;
  const parent: Context = only ? trace.setSpan(context.active(), only.span) : context.active();
  const links: Link[] = only ? [] : messages.map((m) => ({ context: m.span.spanContext() }));
  const span = tracer().startSpan(name, { attributes, links }, parent);
  try {
    return await context.with(trace.setSpan(parent, span), work);
  } catch (err) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
    throw err;
  } finally {
    span.end();
  }
}
