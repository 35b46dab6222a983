// Request events (gateway -> logger): the JetStream publisher with its bounded local spool.

export type { LazyRequestEvent } from './batch-encoder.js';
export { DROP_REASONS, type DropReason, EVENT_METRIC_NAMES, type EventStats } from './event-metrics.js';
export {
  createEventPublisher,
  type EventPublisher,
  type EventPublisherOptions,
} from './event-publisher.js';
export { publishWithTraceParent } from './trace-parent.js';
