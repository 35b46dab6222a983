// Helpers of the NATS outage measurement (nats-outage.measure.ts): open-loop traffic at a fixed rate
// with a unique trace id per request, and a once-a-second watch of the three apps' readiness and the
// gateway's request-event metrics while NATS goes away and comes back.

/** The window a request was sent in: before the outage, while NATS was away, after it was back. */
export type Phase = 'before' | 'outage' | 'after';

export interface SentRequest {
  readonly traceId: string;
  readonly phase: Phase;
  /** HTTP status, once answered. */
  status?: number;
  /** Set when no HTTP answer came (connection error, client timeout). */
  error?: string;
  latencyMs?: number;
}

export interface Traffic {
  readonly sent: readonly SentRequest[];
  /** Stops sending and waits for every request in flight to be answered. */
  stop(): Promise<void>;
}

/**
 * Sends `send(traceId)` `rate` times a second on a fixed schedule (open loop: a slow answer does not
 * slow the sending), request i with trace id `<prefix>-<i>`, tagged with `phase()` at send time.
 */
export function startTraffic(
  rate: number,
  prefix: string,
  phase: () => Phase,
  send: (traceId: string) => Promise<number>,
): Traffic {
  const sent: SentRequest[] = [];
  const inFlight = new Set<Promise<void>>();
  const periodMs = 1000 / rate;
  let sending = true;
  const loop = (async () => {
    const t0 = performance.now();
    for (let i = 0; sending; i++) {
      const wait = t0 + i * periodMs - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      if (!sending) break;
      const request: SentRequest = { traceId: `${prefix}-${i}`, phase: phase() };
      sent.push(request);
      const started = performance.now();
      const done: Promise<void> = send(request.traceId)
        .then(
          (status) => {
            request.status = status;
            request.latencyMs = performance.now() - started;
          },
          (err: unknown) => {
            request.error = err instanceof Error ? err.message : String(err);
          },
        )
        .finally(() => inFlight.delete(done));
      inFlight.add(done);
    }
  })();
  return {
    sent,
    async stop() {
      sending = false;
      await loop;
      await Promise.all([...inFlight]);
    },
  };
}

/** Sum of a metric over its label sets in a Prometheus text exposition. */
export function metricSum(text: string, name: string): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith(`${name}{`) || line.startsWith(`${name} `)) {
      sum += Number(line.slice(line.lastIndexOf(' ') + 1));
    }
  }
  return sum;
}

export const EVENT_COUNTERS = [
  'gateway_request_events_published_total',
  'gateway_request_events_spooled_total',
  'gateway_request_events_replayed_total',
  'gateway_request_events_dropped_total',
  'gateway_request_events_unjournaled_total',
  'gateway_request_events_spool_damaged_segments_total',
] as const;

export type EventCounters = Record<(typeof EVENT_COUNTERS)[number], number>;

export async function gatewayMetrics(gatewayBase: string): Promise<string> {
  return (await fetch(`${gatewayBase}/metrics`, { signal: AbortSignal.timeout(5_000) })).text();
}

export async function eventCounters(gatewayBase: string): Promise<EventCounters> {
  const text = await gatewayMetrics(gatewayBase);
  return Object.fromEntries(EVENT_COUNTERS.map((name) => [name, metricSum(text, name)])) as EventCounters;
}

/** A readiness change of one app, `at` in ms since the watch started. */
export interface Transition {
  readonly app: string;
  readonly at: number;
  readonly state: string;
}

export interface Watch {
  readonly transitions: readonly Transition[];
  /** Highest `gateway_request_events_spool_bytes` seen. */
  readonly spoolPeakBytes: number;
  stop(): Promise<void>;
}

/** `<status>` of `/readyz`, with the checks failing and the dependencies degraded that it names. */
async function readiness(base: string): Promise<string> {
  try {
    // Past the apps' own check timeout (2 s), so that a check that hangs shows as a failing check.
    const res = await fetch(`${base}/readyz`, { signal: AbortSignal.timeout(5_000) });
    const body = (await res.json().catch(() => ({}))) as {
      checks?: Record<string, { ok: boolean }>;
      degraded?: Record<string, unknown>;
    };
    const failing = Object.entries(body.checks ?? {}).filter(([, check]) => !check.ok);
    const degraded = Object.keys(body.degraded ?? {});
    return [
      String(res.status),
      ...(failing.length > 0 ? [`failing:${failing.map(([name]) => name).join(',')}`] : []),
      ...(degraded.length > 0 ? [`degraded:${degraded.join(',')}`] : []),
    ].join(' ');
  } catch (err) {
    return `unreachable (${err instanceof Error ? err.message : String(err)})`;
  }
}

/** Polls each app's `/readyz` and the gateway's spool gauge once a second; records every change. */
export function watchStack(apps: Readonly<Record<string, string>>, gatewayBase: string, t0: number): Watch {
  const transitions: Transition[] = [];
  const last = new Map<string, string>();
  let spoolPeakBytes = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const tick = performance.now();
      await Promise.all(
        Object.entries(apps).map(async ([app, base]) => {
          const state = await readiness(base);
          if (last.get(app) !== state) {
            last.set(app, state);
            transitions.push({ app, at: Math.round(performance.now() - t0), state });
          }
        }),
      );
      try {
        const spool = metricSum(await gatewayMetrics(gatewayBase), 'gateway_request_events_spool_bytes');
        spoolPeakBytes = Math.max(spoolPeakBytes, spool);
      } catch {
        // the gateway busy past the timeout: the next sample counts
      }
      const wait = 1_000 - (performance.now() - tick);
      if (wait > 0 && running) await new Promise((resolve) => setTimeout(resolve, wait));
    }
  })();
  return {
    transitions,
    get spoolPeakBytes() {
      return spoolPeakBytes;
    },
    async stop() {
      running = false;
      await loop;
    },
  };
}
