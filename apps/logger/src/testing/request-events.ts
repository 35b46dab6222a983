// Test and benchmark helpers: deterministic request events and the batches the gateway publishes.
import { randomUUID } from 'node:crypto';
import { CacheStatus, RequestEvent, RequestEventBatch, SCHEMA_VERSION } from '@aigw/proto';

const MODELS = ['gpt-4o-mini', 'gpt-4o', 'claude-3-5-sonnet'];
const SERVICES = ['openai', 'openai', 'anthropic'];
const STATUSES = [200, 200, 200, 200, 429, 500, 200, 446];
const CACHE = [CacheStatus.MISS, CacheStatus.HIT, CacheStatus.DISABLED, CacheStatus.SEMANTIC_HIT];

export interface EventShape {
  readonly organisationId: string;
  readonly workspaceIds: readonly string[];
  readonly apiKeyIds: readonly string[];
  /** First received_at; event i is i * stepMs later. */
  readonly startMs: number;
  readonly stepMs: number;
}

export const DEFAULT_SHAPE: EventShape = {
  organisationId: '11111111-1111-4111-8111-111111111111',
  workspaceIds: ['22222222-2222-4222-8222-222222222221', '22222222-2222-4222-8222-222222222222'],
  apiKeyIds: [
    '33333333-3333-4333-8333-333333333331',
    '33333333-3333-4333-8333-333333333332',
    '33333333-3333-4333-8333-333333333333',
  ],
  startMs: Date.now() - 3_600_000,
  stepMs: 250,
};

/** Event number `i`: its dimensions and numbers cycle, so aggregates are easy to recompute. */
export function requestEvent(
  i: number,
  shape: EventShape = DEFAULT_SHAPE,
  id: string = randomUUID(),
): RequestEvent {
  const model = i % MODELS.length;
  const input = 10 + (i % 7);
  const output = 5 + (i % 11);
  return RequestEvent.fromPartial({
    schemaVersion: SCHEMA_VERSION,
    id,
    traceId: `trace-${Math.floor(i / 3)}`,
    spanId: `span-${i}`,
    receivedAtMs: shape.startMs + i * shape.stepMs,
    completedAtMs: shape.startMs + i * shape.stepMs + 40,
    organisationId: shape.organisationId,
    workspaceId: shape.workspaceIds[i % shape.workspaceIds.length] ?? '',
    apiKeyId: shape.apiKeyIds[i % shape.apiKeyIds.length] ?? '',
    provider: {
      type: SERVICES[model] ?? '',
      slug: `${SERVICES[model]}-main`,
      providerId: '',
      integrationId: '',
    },
    configId: i % 5 === 0 ? '44444444-4444-4444-8444-444444444444' : '',
    configVersion: i % 5 === 0 ? 3 : 0,
    modelRequested: MODELS[model] ?? '',
    modelServed: MODELS[model] ?? '',
    method: 'POST',
    path: '/chat/completions',
    statusCode: STATUSES[i % STATUSES.length] ?? 200,
    isStream: i % 4 === 0,
    cacheStatus: CACHE[i % CACHE.length] ?? CacheStatus.DISABLED,
    tokens: { inputTokens: input, outputTokens: output, totalTokens: input + output, cachedInputTokens: 0 },
    cost: { amountMicros: 100 + (i % 13) * 10, currency: 'USD' },
    metadata: { _user: `user-${i % 4}`, ...(i % 6 === 0 ? { _prompt: 'prompt-a' } : {}) },
    latency: {
      totalUs: 1000 + (i % 17) * 250,
      timeToFirstByteUs: 400,
      upstreamUs: 900,
      gatewayOverheadUs: 100,
    },
    attempts: [{ model: MODELS[model] ?? '', statusCode: STATUSES[i % STATUSES.length] ?? 200 }],
    requestBody: { data: Buffer.from(`{"n":${i}}`), contentType: 'application/json', sizeBytes: 8 },
    responseBody: { data: Buffer.from(`{"ok":${i}}`), contentType: 'application/json', sizeBytes: 9 },
    requestSizeBytes: 8,
    responseSizeBytes: 9,
  });
}

/** The message payload the gateway publishes for these events. */
export function batchBytes(events: readonly RequestEvent[]): Uint8Array {
  return RequestEventBatch.encode({ schemaVersion: SCHEMA_VERSION, events: [...events] }).finish();
}

/** The gateway's Nats-Msg-Id for a batch. */
export function batchId(events: readonly RequestEvent[]): string {
  return `${events[0]?.id ?? 'empty'}+${events.length}`;
}
