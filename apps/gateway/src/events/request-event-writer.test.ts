import {
  Attempt,
  CacheStatus,
  CapturedBody,
  Cost,
  EntityKind,
  GatewayError,
  GuardrailCheckResult,
  GuardrailFeedback,
  GuardrailResult,
  GuardrailStage,
  LatencyBreakdown,
  McpCall,
  ProviderRef,
  RequestEvent,
  RequestEventBatch,
  SCHEMA_VERSION,
  TokenUsage,
  UsageCharge,
  UsageLimitType,
} from '@aigw/proto';
import { describe, expect, it } from 'vitest';
import { eventEncoder } from './event-encoder.js';
import { COVERED, COVERED_EVENT_FIELDS } from './request-event-writer.js';

const generated = (e: RequestEvent) => Buffer.from(RequestEvent.encode(e).finish());
const hex = (bytes: Uint8Array | undefined) => (bytes ? Buffer.from(bytes).toString('hex') : 'undefined');

/** Every field set, with values at the varint and string-length boundaries. */
function full(overrides: Partial<RequestEvent> = {}): RequestEvent {
  const provider = {
    type: 'openai',
    slug: '@prod-ü',
    providerId: 'p'.repeat(200),
    integrationId: 'i',
    customHost: 'https://example.test/v1',
  };
  return RequestEvent.fromPartial({
    schemaVersion: SCHEMA_VERSION,
    id: '0b6a2a2e-8d4c-4d6e-9f1e-2f6d1d0c9a11',
    traceId: 't'.repeat(127),
    spanId: 's'.repeat(128),
    parentSpanId: 'ünïcode ✓ 𝄞',
    receivedAtMs: 1_795_326_343_123,
    upstreamStartedAtMs: 2 ** 32,
    upstreamFirstByteAtMs: 2 ** 32 - 1,
    upstreamEndedAtMs: Number.MAX_SAFE_INTEGER,
    completedAtMs: 127,
    organisationId: 'org',
    workspaceId: 'ws',
    apiKeyId: 'key',
    userId: 'user',
    provider,
    virtualKeyId: 'vk',
    configId: 'cfg',
    configVersion: 4_294_967_295,
    modelRequested: 'gpt-4o-mini',
    modelServed: 'gpt-4o-mini-2024-07-18',
    method: 'POST',
    path: '/chat/completions',
    statusCode: 200,
    isStream: true,
    cacheStatus: CacheStatus.SEMANTIC_MISS,
    attempts: [
      {
        targetPath: 'config.targets[0]',
        provider,
        model: 'm',
        statusCode: 503,
        startedAtMs: 1_795_326_343_124,
        latencyUs: 128,
        retryIndex: 2,
        error: { code: 'upstream_timeout', message: 'x'.repeat(300), type: 'upstream_error' },
      },
      { targetPath: 'config.targets[1]', statusCode: 200 },
      {},
    ],
    tokens: { inputTokens: 1, outputTokens: 2 ** 40, totalTokens: 3, cachedInputTokens: 4, estimated: true },
    cost: { amountMicros: 1_500_000, currency: 'USD' },
    metadata: { team: 'search', '2': 'numeric key', '1': '', '': 'empty key', ünï: '✓'.repeat(50) },
    guardrailResults: [
      {
        guardrailId: 'g1',
        stage: GuardrailStage.OUTPUT,
        verdict: true,
        denied: true,
        latencyUs: 99,
        checks: [
          { checkId: 'default.regexMatch', verdict: true, explanation: 'ok', latencyUs: 3, errored: true },
          {},
        ],
        feedback: { value: -10, weight: 0.25 },
      },
      { verdict: true, feedback: { value: 10, weight: 1 } },
      { feedback: { value: 0, weight: 0 } },
      {},
    ],
    requestBody: {
      data: Buffer.alloc(127, 'a'),
      truncated: true,
      sizeBytes: 5000,
      contentType: 'application/json',
    },
    responseBody: { data: Buffer.alloc(16_384, 'b'), sizeBytes: 16_384, contentType: 'text/event-stream' },
    error: { code: 'c', message: 'm', type: 't' },
    gatewayInstanceId: 'gw-1',
    latency: {
      totalUs: 1,
      upstreamUs: 2,
      timeToFirstByteUs: 3,
      gatewayOverheadUs: 4,
      authUs: 5,
      limitsUs: 6,
      cacheUs: 7,
      guardrailsUs: 8,
    },
    promptId: 'prompt',
    requestSizeBytes: 5000,
    responseSizeBytes: 2 ** 21,
    usageCharges: [
      {
        ownerKind: EntityKind.USAGE_LIMIT_POLICY,
        ownerId: 'policy-1',
        groupValue: 'api_key=key&metadata.team=s%C3%BCche',
        measure: UsageLimitType.COST,
        periodStartMs: 1_795_000_000_000,
        periodEndMs: 1_795_604_800_000,
        counterKey: 'lim:{org}:u:p:policy-1:AbCdEfGhIjKlMnOpQrStUv:1795000000000',
        amount: 2 ** 33 + 1,
      },
      {
        ownerKind: EntityKind.API_KEY,
        ownerId: 'key',
        measure: UsageLimitType.TOKENS,
        counterKey: 'lim:{org}:u:api_key:key:tokens:0',
        amount: 127,
      },
      {},
    ],
    usageChargesReported: true,
    mcp: {
      serverId: 'srv',
      serverSlug: 'weather-ü',
      mcpIntegrationId: 'mi',
      rpcMethod: 'tools/call',
      tool: 't'.repeat(130),
      rpcErrorCode: -2_147_483_648,
    },
    traceParent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
    ...overrides,
  });
}

/** Deterministic pseudo-random events: any subset of fields, odd sizes, non-ASCII text. */
function randomEvents(count: number): RequestEvent[] {
  let seed = 42;
  const rnd = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const pick = <T>(values: T[]) => values[Math.floor(rnd() * values.length)] as T;
  const text = () => pick(['', 'a', 'é', '✓✓', 'x'.repeat(64), 'y'.repeat(65), 'z'.repeat(200), '\ud800']);
  const n = () =>
    pick([0, 1, 127, 128, 16_383, 16_384, 2 ** 31, 2 ** 32, 2 ** 35 + 7, Number.MAX_SAFE_INTEGER]);
  const some = <T>(value: () => T) => (rnd() < 0.5 ? undefined : value());
  const events: RequestEvent[] = [];
  for (let i = 0; i < count; i++) {
    const base = full();
    const event: Record<string, unknown> = {};
    for (const key of Object.keys(base) as (keyof RequestEvent)[]) {
      if (rnd() < 0.4) continue;
      event[key] = base[key];
    }
    Object.assign(event, {
      id: text(),
      receivedAtMs: n(),
      statusCode: pick([0, 200, 404]),
      modelRequested: text(),
      requestSizeBytes: n(),
      tokens: some(() => ({ inputTokens: n(), outputTokens: n(), estimated: rnd() < 0.5 })),
      requestBody: some(() => ({ data: Buffer.alloc(pick([0, 1, 127, 128, 300_000]), 'q'), sizeBytes: n() })),
      metadata: rnd() < 0.5 ? {} : { [text()]: text(), k: text() },
      usageCharges: Array.from({ length: pick([0, 0, 1, 2, 5]) }, () => ({
        ownerKind: pick([0, EntityKind.USAGE_LIMIT_POLICY, EntityKind.API_KEY, EntityKind.INTEGRATION]),
        ownerId: text(),
        groupValue: text(),
        measure: pick([0, UsageLimitType.COST, UsageLimitType.TOKENS]),
        periodStartMs: n(),
        periodEndMs: n(),
        counterKey: text(),
        amount: n(),
      })),
      usageChargesReported: rnd() < 0.5,
      mcp:
        rnd() < 0.5
          ? undefined
          : {
              serverId: text(),
              serverSlug: text(),
              mcpIntegrationId: text(),
              rpcMethod: text(),
              tool: text(),
              rpcErrorCode: pick([0, -32602, -32601, 1, 2_147_483_647, -1]),
            },
      traceParent: rnd() < 0.5 ? '' : `00-${'ab'.repeat(16)}-${'cd'.repeat(8)}-01`,
    });
    events.push(RequestEvent.fromPartial(event as Partial<RequestEvent>));
  }
  return events;
}

describe('hand-written RequestEvent encoding', () => {
  it('covers every field of every message, in the generated order', () => {
    const fields = (empty: object) => Object.keys(empty);
    expect(COVERED_EVENT_FIELDS).toEqual(fields(RequestEvent.fromPartial({})));
    expect(COVERED.ProviderRef).toEqual(fields(ProviderRef.fromPartial({})));
    expect(COVERED.GatewayError).toEqual(fields(GatewayError.fromPartial({})));
    expect(COVERED.Attempt).toEqual(fields(Attempt.fromPartial({})));
    expect(COVERED.GuardrailCheckResult).toEqual(fields(GuardrailCheckResult.fromPartial({})));
    expect(COVERED.GuardrailResult).toEqual(fields(GuardrailResult.fromPartial({ feedback: {} })));
    expect(COVERED.GuardrailFeedback).toEqual(fields(GuardrailFeedback.fromPartial({})));
    expect(COVERED.CapturedBody).toEqual(fields(CapturedBody.fromPartial({})));
    expect(COVERED.LatencyBreakdown).toEqual(fields(LatencyBreakdown.fromPartial({})));
    expect(COVERED.TokenUsage).toEqual(fields(TokenUsage.fromPartial({})));
    expect(COVERED.Cost).toEqual(fields(Cost.fromPartial({})));
    expect(COVERED.UsageCharge).toEqual(fields(UsageCharge.fromPartial({})));
    expect(COVERED.McpCall).toEqual(fields(McpCall.fromPartial({})));
  });

  it('gives the generated bytes for an event with every field set, and for an empty one', () => {
    const encoder = eventEncoder();
    for (const e of [full(), RequestEvent.fromPartial({}), full({ metadata: {}, attempts: [] })]) {
      expect(hex(encoder.one(e))).toBe(hex(generated(e)));
      const bytes = encoder.one(e);
      expect(RequestEvent.decode(bytes)).toEqual(RequestEvent.decode(generated(e)));
    }
  });

  it('gives the generated bytes for 300 random events, alone and batched', () => {
    const encoder = eventEncoder();
    const events = randomEvents(300);
    for (const e of events) expect(hex(encoder.one(e))).toBe(hex(generated(e)));
    for (let at = 0; at < events.length; at += 37) {
      const slice = events.slice(at, at + 37);
      expect(hex(encoder.batch(slice, 64 * 1024 * 1024))).toBe(
        hex(RequestEventBatch.encode({ schemaVersion: SCHEMA_VERSION, events: slice }).finish()),
      );
    }
  });

  it('leaves values it does not take to ts-proto: same bytes, same errors', () => {
    const encoder = eventEncoder();
    // Encoded by ts-proto: a negative int64 (10-byte varint), an integer past 2^53, an odd enum.
    for (const e of [
      full({ receivedAtMs: -5 }),
      full({ tokens: TokenUsage.fromPartial({ inputTokens: 2 ** 60 }) }),
      full({ cacheStatus: -1 as CacheStatus }),
      full({ metadata: { n: 7 as unknown as string } }),
      full({ usageCharges: [UsageCharge.fromPartial({ periodStartMs: -86_400_000, amount: 3 })] }),
      full({ usageCharges: [UsageCharge.fromPartial({ ownerKind: -2 as EntityKind })] }),
    ]) {
      expect(hex(encoder.one(e))).toBe(hex(generated(e)));
      expect(hex(encoder.batch([full(), e], 64 * 1024 * 1024))).toBe(
        hex(RequestEventBatch.encode({ schemaVersion: SCHEMA_VERSION, events: [full(), e] }).finish()),
      );
    }
    // Refused by ts-proto: refused here too, and the encoder stays clean.
    for (const e of [
      full({ statusCode: -1 }),
      full({ requestSizeBytes: 1.5 }),
      full({ latency: undefined, attempts: [{ latencyUs: -3 } as Attempt] }),
      full({ usageCharges: [UsageCharge.fromPartial({ amount: -1 })] }),
      full({
        guardrailResults: [{ ...GuardrailResult.fromPartial({}), feedback: { value: 1.5, weight: 1 } }],
      }),
    ]) {
      expect(() => generated(e)).toThrow();
      expect(() => encoder.one(e)).toThrow();
      expect(encoder.batch([full(), e], 64 * 1024 * 1024)).toBeUndefined();
    }
    expect(hex(encoder.one(full()))).toBe(hex(generated(full())));
  });
});
