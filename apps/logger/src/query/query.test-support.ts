// Test support for the query side: a deterministic data set of request events stored through the
// ingest's own row translation and store (rollups included), a LogsService on a real gRPC server,
// and reference computations over the raw events that query results must equal.
import { openDatabase } from '@aigw/db';
import {
  CacheStatus,
  type CallerContext,
  type LogFilter,
  LogGroupBy,
  LogsServiceClient,
  RequestEvent,
} from '@aigw/proto';
import { createLogger, startGrpcServer } from '@aigw/runtime';
import type { PgFixture } from '@aigw/testkit';
import { credentials, InterceptingCall, type Interceptor, type ServiceError } from '@grpc/grpc-js';
import type { Kysely } from 'kysely';
import { migrations } from '../db/migrations/index.js';
import { type LogsDatabase, SCHEMA } from '../db/schema.js';
import { requestLogRow } from '../ingest/request-row.js';
import { storeRequestRows } from '../ingest/request-store.js';
import { logsService } from '../logs/logs.service.js';
import { createExportRunner, type ExportRunner } from './exports/export-runner.js';
import { EMPTY_FILTER } from './log-filter.js';

export const ORG_A = '0a000000-0000-4000-8000-000000000001';
export const ORG_B = '0b000000-0000-4000-8000-000000000002';
export const WS = ['1a000000-0000-4000-8000-000000000001', '1a000000-0000-4000-8000-000000000002'] as const;
export const WS_B = '1b000000-0000-4000-8000-000000000003';
export const KEYS = [
  '2a000000-0000-4000-8000-000000000001',
  '2a000000-0000-4000-8000-000000000002',
  '2a000000-0000-4000-8000-000000000003',
  '2a000000-0000-4000-8000-000000000004',
] as const;
/** 2026-01-10T00:00:00Z; events spread over the next 72 hours at non-round times. */
export const T0 = Date.UTC(2026, 0, 10);
export const HOUR = 3_600_000;

/** A small deterministic generator (mulberry32), so failures reproduce. */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function eventId(i: number): string {
  return `3e000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`;
}

export function makeEvents(count: number, seed = 7): RequestEvent[] {
  const r = rng(seed);
  const pick = <T>(values: readonly T[]): T => values[Math.floor(r() * values.length)]!;
  return Array.from({ length: count }, (_, i) => {
    const orgB = r() < 0.1;
    const type = pick(['openai', 'anthropic', 'openai', '']);
    const input = Math.floor(r() * 2000);
    const output = Math.floor(r() * 800);
    const served = pick(['gpt-4o', 'gpt-4o-mini', 'claude-3-5', '']);
    const user = pick(['u1', 'u2', '']);
    return RequestEvent.fromPartial({
      schemaVersion: 1,
      id: eventId(i),
      traceId: `trace-${i % 97}`,
      spanId: `span-${i}`,
      receivedAtMs: T0 + Math.floor(r() * 72 * HOUR),
      completedAtMs: 0,
      organisationId: orgB ? ORG_B : ORG_A,
      workspaceId: orgB ? WS_B : pick(WS),
      apiKeyId: pick([...KEYS, '']),
      userId: user,
      provider: {
        type,
        slug: type === '' ? '' : pick([`${type}-main`, `${type}-backup`]),
        providerId: '',
        integrationId: '',
        customHost: '',
      },
      configId: pick(['cfg-1', 'cfg-2', '']),
      promptId: pick(['prompt-1', '', '']),
      modelRequested: 'gpt-4o',
      modelServed: served,
      method: 'POST',
      path: '/chat/completions',
      statusCode: pick([200, 200, 200, 201, 400, 429, 500]),
      cacheStatus: pick([
        CacheStatus.HIT,
        CacheStatus.SEMANTIC_HIT,
        CacheStatus.MISS,
        CacheStatus.DISABLED,
        CacheStatus.DISABLED,
      ]),
      tokens: {
        inputTokens: input,
        outputTokens: output,
        totalTokens: input + output,
        cachedInputTokens: Math.floor(input / 4),
        estimated: false,
      },
      cost: { amountMicros: Math.floor(r() * 50_000), currency: 'USD' },
      metadata: { env: pick(['prod', 'dev']), ...(user ? { _user: user } : {}) },
      latency: {
        totalUs: Math.floor(r() * 5_000_000) + 1000,
        upstreamUs: 0,
        timeToFirstByteUs: 0,
        gatewayOverheadUs: 0,
        authUs: 0,
        limitsUs: 0,
        cacheUs: 0,
        guardrailsUs: 0,
      },
      requestBody: {
        data: Buffer.from(`{"n":${i}}`),
        truncated: false,
        sizeBytes: 8,
        contentType: 'application/json',
      },
    });
  });
}

export async function openLogsDatabase(pg: PgFixture) {
  return openDatabase<LogsDatabase>({
    url: pg.url,
    schema: SCHEMA,
    applicationName: 'logger-test',
    migrations,
  });
}

/** Stores events exactly as the ingest does (rows, rollups and ledger in one transaction). */
export async function storeEvents(db: Kysely<LogsDatabase>, events: readonly RequestEvent[]): Promise<void> {
  await db.transaction().execute((trx) => storeRequestRows(trx, events.map(requestLogRow)));
}

/** The token the test LogsService requires (LOGS_SERVICE_TOKEN). */
export const SERVICE_TOKEN = `logs_query_test_token_${'q'.repeat(32)}`;

/** Adds `authorization: Bearer <token>` to every call of a client, as the control plane's client does. */
export function bearerInterceptor(token: string): Interceptor {
  return (options, next) =>
    new InterceptingCall(next(options), {
      start(metadata, listener, start) {
        metadata.set('authorization', `Bearer ${token}`);
        start(metadata, listener);
      },
    });
}

export interface TestService {
  /** `127.0.0.1:<port>` of the service, for clients of a test's own. */
  readonly address: string;
  /** Sends SERVICE_TOKEN on every call. */
  readonly client: LogsServiceClient;
  readonly exports: ExportRunner;
  close(): Promise<void>;
}

export async function startService(
  db: Kysely<LogsDatabase>,
  options: { exportsEnabled?: boolean; batchRows?: number } = {},
): Promise<TestService> {
  const log = createLogger({ app: 'logger-test', level: 'silent' });
  const exports = createExportRunner({
    db,
    log,
    maxRows: 100_000,
    pollMs: 60_000,
    batchRows: options.batchRows ?? 100,
  });
  const server = await startGrpcServer(
    [logsService({ db, log, exportsEnabled: options.exportsEnabled ?? true, exports, token: SERVICE_TOKEN })],
    0,
    '127.0.0.1',
  );
  const client = new LogsServiceClient(`127.0.0.1:${server.port}`, credentials.createInsecure(), {
    interceptors: [bearerInterceptor(SERVICE_TOKEN)],
  });
  return {
    address: `127.0.0.1:${server.port}`,
    client,
    exports,
    async close() {
      client.close();
      await exports.stop();
      await server.close(1000);
    },
  };
}

/** Promise form of a unary call. */
export function call<Req, Res>(
  fn: (request: Req, callback: (err: ServiceError | null, res: Res) => void) => unknown,
  client: LogsServiceClient,
  request: Req,
): Promise<Res> {
  return new Promise((resolve, reject) =>
    fn.call(client, request, (err, res) => (err ? reject(err) : resolve(res))),
  );
}

export function callerOf(partial: Partial<CallerContext> = {}): CallerContext {
  return {
    organisationId: ORG_A,
    allWorkspaces: true,
    workspaceIds: [],
    restrictToApiKeys: false,
    restrictToApiKeyIds: [],
    actor: { type: 2, userId: '', apiKeyId: KEYS[0], displayName: 'test' },
    ...partial,
  };
}

export function filterOf(partial: Partial<LogFilter> = {}): LogFilter {
  return { ...EMPTY_FILTER, ...partial };
}

// ---- reference computations over the raw events ----

const modelOf = (e: RequestEvent) => e.modelServed || e.modelRequested;
const promptOf = (e: RequestEvent) => e.promptId || e.metadata._prompt || '';

export function visible(e: RequestEvent, c: CallerContext): boolean {
  if (e.organisationId !== c.organisationId) return false;
  if (!c.allWorkspaces && !c.workspaceIds.includes(e.workspaceId)) return false;
  if (c.restrictToApiKeys && !c.restrictToApiKeyIds.includes(e.apiKeyId)) return false;
  return true;
}

export function matches(e: RequestEvent, f: LogFilter): boolean {
  const inList = <T>(list: readonly T[], v: T) => list.length === 0 || list.includes(v);
  const cost = e.cost?.amountMicros ?? 0;
  const tokens = e.tokens?.totalTokens ?? 0;
  return (
    (!f.fromMs || e.receivedAtMs >= f.fromMs) &&
    (!f.toMs || e.receivedAtMs < f.toMs) &&
    inList(f.workspaceIds, e.workspaceId) &&
    inList(f.apiKeyIds, e.apiKeyId) &&
    inList(f.providerSlugs, e.provider?.slug ?? '') &&
    inList(f.aiServices, e.provider?.type ?? '') &&
    inList(f.models, modelOf(e)) &&
    inList(f.statusCodes, e.statusCode) &&
    (f.traceId === '' || e.traceId === f.traceId) &&
    f.metadata.every((m) => e.metadata[m.key] === m.value) &&
    (f.costMicros?.min === undefined || cost >= f.costMicros.min) &&
    (f.costMicros?.max === undefined || cost <= f.costMicros.max) &&
    (f.totalTokens?.min === undefined || tokens >= f.totalTokens.min) &&
    (f.totalTokens?.max === undefined || tokens <= f.totalTokens.max) &&
    inList(f.configIds, e.configId) &&
    inList(f.promptIds, promptOf(e)) &&
    inList(f.cacheStatuses, e.cacheStatus) &&
    inList(f.userIds, e.userId)
  );
}

export const GROUP_KEY: Readonly<Record<number, (e: RequestEvent) => string>> = {
  [LogGroupBy.AI_SERVICE]: (e) => e.provider?.type ?? '',
  [LogGroupBy.MODEL]: modelOf,
  [LogGroupBy.STATUS_CODE]: (e) => String(e.statusCode),
  [LogGroupBy.API_KEY]: (e) => e.apiKeyId,
  [LogGroupBy.CONFIG]: (e) => e.configId,
  [LogGroupBy.WORKSPACE]: (e) => e.workspaceId,
  [LogGroupBy.PROVIDER]: (e) => e.provider?.slug ?? '',
  [LogGroupBy.PROMPT]: promptOf,
};

/** Postgres percentile_cont: linear interpolation between the closest ranks. */
export function percentileCont(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return 0;
  const pos = p * (sorted.length - 1);
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

export interface Totals {
  requests: number;
  cost: number;
  input: number;
  output: number;
  total: number;
  latencyMs: number[];
  errors: number;
  hits: number;
  first: number;
  last: number;
}

export function totalsOf(events: readonly RequestEvent[]): Totals {
  const t: Totals = {
    requests: 0,
    cost: 0,
    input: 0,
    output: 0,
    total: 0,
    latencyMs: [],
    errors: 0,
    hits: 0,
    first: Infinity,
    last: -Infinity,
  };
  for (const e of events) {
    t.requests += 1;
    t.cost += e.cost?.amountMicros ?? 0;
    t.input += e.tokens?.inputTokens ?? 0;
    t.output += e.tokens?.outputTokens ?? 0;
    t.total += e.tokens?.totalTokens ?? 0;
    t.latencyMs.push((e.latency?.totalUs ?? 0) / 1000);
    if (e.statusCode >= 400) t.errors += 1;
    if (e.cacheStatus === CacheStatus.HIT || e.cacheStatus === CacheStatus.SEMANTIC_HIT) t.hits += 1;
    t.first = Math.min(t.first, e.receivedAtMs);
    t.last = Math.max(t.last, e.receivedAtMs);
  }
  return t;
}

export function groupBy(
  events: readonly RequestEvent[],
  key: (e: RequestEvent) => string,
): Map<string, RequestEvent[]> {
  const out = new Map<string, RequestEvent[]>();
  for (const e of events) {
    const k = key(e);
    const list = out.get(k);
    if (list) list.push(e);
    else out.set(k, [e]);
  }
  return out;
}

/** a equals b up to floating-point summation order. */
export function close(a: number | undefined, b: number): boolean {
  if (a === undefined) return false;
  return Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
}
