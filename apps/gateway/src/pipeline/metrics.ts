// Data-plane HTTP metrics without express: requests and duration by method and status. A request
// only bumps plain numbers of its (method, status) record; prom-client sees them when scraped.
// prom-client's labelled children still convert, validate and hash the labels on every inc() and
// observe(), which made metrics a visible part of a proxied request's CPU.
import type { ServerResponse } from 'node:http';
import { Counter, type Registry } from 'prom-client';

const BUCKETS = [0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300];

interface LabelRecord {
  readonly labels: { readonly method: string; readonly status: string };
  /** Requests not yet handed to the prom-client counter. */
  unflushed: number;
  count: number;
  sum: number;
  /** Observations per bucket (not cumulative); the last slot is above every bound. */
  readonly buckets: number[];
}

type Value = { labels: Record<string, string | number>; value: number; metricName: string };

/**
 * `gateway_request_duration_seconds`, exposed exactly as a prom-client Histogram with the same
 * name, help, buckets and label names would be (metrics.test.ts compares the two). prom-client's
 * registry takes any object with this shape.
 */
class DurationHistogram {
  readonly name = 'gateway_request_duration_seconds';
  readonly help = 'Data-plane request duration (until the response ended), by method and status';
  readonly type = 'histogram';
  readonly aggregator = 'sum';

  constructor(private readonly records: () => Iterable<LabelRecord>) {}

  private values(splay: boolean): Value[] {
    const values: Value[] = [];
    const bucket = `${this.name}_bucket`;
    for (const r of this.records()) {
      if (r.count === 0) continue;
      // prom-client keeps the labels apart ("shared") for the text format; get() puts `le` first.
      const shared = r.labels;
      const withLe = (le: string | number) => (splay ? { le, ...shared } : { le });
      let acc = 0;
      for (let i = 0; i < BUCKETS.length; i++) {
        acc += r.buckets[i] ?? 0;
        values.push(this.pair(withLe(BUCKETS[i] as number), acc, bucket, shared, splay));
      }
      values.push(this.pair(withLe('+Inf'), r.count, bucket, shared, splay));
      values.push(this.pair(splay ? { ...shared } : {}, r.sum, `${this.name}_sum`, shared, splay));
      values.push(this.pair(splay ? { ...shared } : {}, r.count, `${this.name}_count`, shared, splay));
    }
    return values;
  }

  private pair(
    labels: Record<string, string | number>,
    value: number,
    metricName: string,
    shared: Record<string, string>,
    splay: boolean,
  ): Value {
    return splay
      ? { labels, value, metricName }
      : ({ labels, sharedLabels: shared, value, metricName } as Value);
  }

  private shape(splay: boolean) {
    return {
      name: this.name,
      help: this.help,
      type: this.type,
      values: this.values(splay),
      aggregator: this.aggregator,
    };
  }

  async get() {
    return this.shape(true);
  }

  async getForPromString() {
    return this.shape(false);
  }

  reset(): void {
    for (const r of this.records()) {
      r.count = 0;
      r.sum = 0;
      r.buckets.fill(0);
    }
  }
}

const START = Symbol('aigw.metrics.start');
type Timed = ServerResponse & { [START]?: number };

export function dataPlaneMetrics(registry: Registry): (res: ServerResponse) => void {
  // By method, then status: no key string to build per request.
  const byMethod = new Map<string, Map<number, LabelRecord>>();
  /** In creation order: the order prom-client would list them in. */
  const all: LabelRecord[] = [];
  const records = (): Iterable<LabelRecord> => all;
  const counter = new Counter({
    name: 'gateway_requests_total',
    help: 'Data-plane requests answered, by method and status',
    labelNames: ['method', 'status'] as const,
    registers: [registry],
    collect() {
      for (const r of records()) {
        if (r.unflushed === 0) continue;
        this.inc(r.labels, r.unflushed);
        r.unflushed = 0;
      }
    },
  });
  // Requests not yet flushed are dropped by a reset too, as prom-client's own count would be.
  const resetCounter = counter.reset.bind(counter);
  counter.reset = () => {
    for (const r of all) r.unflushed = 0;
    resetCounter();
  };
  registry.registerMetric(new DurationHistogram(records) as unknown as Counter);

  const recordFor = (method: string, status: number): LabelRecord => {
    let byStatus = byMethod.get(method);
    if (!byStatus) {
      byStatus = new Map();
      byMethod.set(method, byStatus);
    }
    let r = byStatus.get(status);
    if (!r) {
      r = {
        labels: { method, status: String(status) },
        unflushed: 0,
        count: 0,
        sum: 0,
        buckets: new Array<number>(BUCKETS.length + 1).fill(0),
      };
      byStatus.set(status, r);
      all.push(r);
    }
    return r;
  };

  // One shared listener (no closure per request); the start time rides on the response.
  function onClose(this: Timed): void {
    const seconds = (performance.now() - (this[START] ?? 0)) / 1e3;
    const r = recordFor(this.req.method ?? 'GET', this.statusCode);
    r.unflushed++;
    r.count++;
    r.sum += seconds;
    let i = 0;
    while (i < BUCKETS.length && seconds > (BUCKETS[i] as number)) i++;
    r.buckets[i] = (r.buckets[i] ?? 0) + 1;
  }

  return (res: Timed) => {
    res[START] = performance.now();
    res.on('close', onClose);
  };
}
