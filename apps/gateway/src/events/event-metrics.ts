// What the request-event publisher counts: plain numbers for stats(), mirrored into Prometheus
// metrics when a registry is given.
import { Counter, Gauge, type Registry } from 'prom-client';

export const DROP_REASONS = ['no_nats', 'spool_full', 'spool_write_error', 'encode_error', 'closed'] as const;
export type DropReason = (typeof DROP_REASONS)[number];

/** Metric names, as documented in docs/request-events.md. */
export const EVENT_METRIC_NAMES = {
  published: 'gateway_request_events_published_total',
  spooled: 'gateway_request_events_spooled_total',
  replayed: 'gateway_request_events_replayed_total',
  dropped: 'gateway_request_events_dropped_total',
  damagedSegments: 'gateway_request_events_spool_damaged_segments_total',
  unjournaled: 'gateway_request_events_unjournaled_total',
  spoolBytes: 'gateway_request_events_spool_bytes',
  inFlight: 'gateway_request_events_in_flight',
} as const;

export interface EventStats {
  /** Acked by JetStream on the first try. */
  readonly published: number;
  /** Written to the spool. */
  readonly spooled: number;
  /** Acked by JetStream from the spool. */
  readonly replayed: number;
  /** Lost: not configured, spool full, spool write failed, unencodable, or published after close. */
  readonly dropped: number;
  /** Spool files plus bytes waiting to be written to them. */
  readonly spoolBytes: number;
  /** Live publishes handed off by publish() and not yet acked (bounded by maxInFlight). */
  readonly inFlight: number;
  /** Spool segments that ended in a torn or corrupt record (the rest of such a segment is skipped). */
  readonly damagedSegments: number;
  /** Events whose journal write failed: published all the same, but a crash before their ack loses them. */
  readonly unjournaled: number;
}

interface PromCounters {
  readonly published: Counter;
  readonly spooled: Counter;
  readonly replayed: Counter;
  readonly dropped: Record<DropReason, ReturnType<Counter<'reason'>['labels']>>;
  readonly damagedSegments: Counter;
  readonly unjournaled: Counter;
}

export class EventCounters {
  published = 0;
  spooled = 0;
  replayed = 0;
  dropped = 0;
  damagedSegments = 0;
  unjournaled = 0;
  private readonly prom: PromCounters | undefined;

  constructor(registry: Registry | undefined, gauges: { spoolBytes(): number; inFlight(): number }) {
    this.prom = registry ? createPromCounters(registry, gauges) : undefined;
  }

  countPublished(events = 1): void {
    this.published += events;
    this.prom?.published.inc(events);
  }

  countSpooled(records: number): void {
    this.spooled += records;
    this.prom?.spooled.inc(records);
  }

  countReplayed(events = 1): void {
    this.replayed += events;
    this.prom?.replayed.inc(events);
  }

  countDropped(reason: DropReason, records = 1): void {
    this.dropped += records;
    this.prom?.dropped[reason].inc(records);
  }

  countUnjournaled(events: number): void {
    this.unjournaled += events;
    this.prom?.unjournaled.inc(events);
  }

  countDamagedSegment(): void {
    this.damagedSegments += 1;
    this.prom?.damagedSegments.inc();
  }
}

function createPromCounters(
  registry: Registry,
  gauges: { spoolBytes(): number; inFlight(): number },
): PromCounters {
  const registers = [registry];
  const counter = (name: string, help: string) => new Counter({ name, help, registers });
  const dropped = new Counter({
    name: EVENT_METRIC_NAMES.dropped,
    help: 'Request events lost, by reason',
    labelNames: ['reason'] as const,
    registers,
  });
  new Gauge({
    name: EVENT_METRIC_NAMES.spoolBytes,
    help: 'Bytes in the request-event spool (files plus bytes waiting to be written)',
    registers,
    collect() {
      this.set(gauges.spoolBytes());
    },
  });
  new Gauge({
    name: EVENT_METRIC_NAMES.inFlight,
    help: 'Request-event publishes handed off and not yet acked by JetStream',
    registers,
    collect() {
      this.set(gauges.inFlight());
    },
  });
  const byReason = Object.fromEntries(
    DROP_REASONS.map((reason) => {
      const child = dropped.labels(reason);
      // Every reason is exported from the start (as 0), so alerts on rate() see the series.
      child.inc(0);
      return [reason, child];
    }),
  ) as PromCounters['dropped'];
  return {
    published: counter(EVENT_METRIC_NAMES.published, 'Request events acked by JetStream on the first try'),
    spooled: counter(EVENT_METRIC_NAMES.spooled, 'Request events written to the local spool'),
    replayed: counter(EVENT_METRIC_NAMES.replayed, 'Spooled request events acked by JetStream'),
    dropped: byReason,
    damagedSegments: counter(
      EVENT_METRIC_NAMES.damagedSegments,
      'Spool segments that ended in a torn or corrupt record (the rest was skipped)',
    ),
    unjournaled: counter(
      EVENT_METRIC_NAMES.unjournaled,
      'Request events whose journal write failed (a crash before their ack would lose them)',
    ),
  };
}
