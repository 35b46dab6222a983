// Fully populated sample messages: every field holds a non-default value, so a round trip that
// keeps them proves every field survives (assertEveryFieldSet guards that claim).
import { expect } from 'vitest';
import {
  ActorType,
  type ApiKey,
  ApiKeyType,
  type AuditEvent,
  AuditOutcome,
  CacheStatus,
  type ChangeEvent,
  type Entity,
  EntityKind,
  EntityStatus,
  GuardrailStage,
  PeriodicReset,
  type Provider,
  RateLimitType,
  RateLimitUnit,
  type RequestEvent,
  SCHEMA_VERSION,
  UsageLimitType,
} from '../src/index.js';

const ORG = '4f1c1f0e-8d2b-4c55-9a43-1f5b0d7e9a01';
const WORKSPACE = '7a0d3c52-55b8-4e3f-b1c6-2f9a8e4d6c02';
const API_KEY_ID = 'c3e5a7b9-0d1f-4a2b-8c3d-4e5f6a7b8c03';
const USER = 'e1d2c3b4-a596-4877-8695-a4b3c2d1e004';
const T0 = 1_767_225_600_000;

/**
 * Asserts that no top-level field of `message` still holds its default (from `Type.create()`),
 * except the named ones (covered by another fixture).
 */
export function assertEveryFieldSet(
  message: object,
  defaults: object,
  name: string,
  except: string[] = [],
): void {
  const fields = Object.keys(defaults).filter((field) => !except.includes(field));
  expect(fields.length, `${name} has fields`).toBeGreaterThan(0);
  for (const field of fields) {
    const value = (message as Record<string, unknown>)[field];
    const fallback = (defaults as Record<string, unknown>)[field];
    expect(value, `${name}.${field} is set in the fixture`).not.toEqual(fallback);
    expect(value, `${name}.${field} is set in the fixture`).not.toBeUndefined();
  }
}

export const apiKeyBody: ApiKey = {
  name: 'ci deploys',
  keyHash: 'a3f1c2d4e5b6978877665544332211ffeeddccbbaa99887766554433221100aa',
  last4: 'x9Qz',
  type: ApiKeyType.WORKSPACE,
  scopes: ['logs.view', 'virtual_keys.create'],
  status: EntityStatus.ACTIVE,
  expiresAtMs: T0 + 86_400_000,
  userId: USER,
  defaults: {
    metadata: { _environment: 'prod', team: 'search' },
    configId: 'pc-retry-3',
    configEnforced: true,
  },
  rateLimits: [{ type: RateLimitType.REQUESTS, unit: RateLimitUnit.RPM, value: 600 }],
  usageLimits: [
    {
      type: UsageLimitType.COST,
      creditLimit: 25_000_000,
      alertThreshold: 20_000_000,
      periodicReset: PeriodicReset.MONTHLY,
      periodicResetDays: 30,
      nextUsageResetAtMs: T0 + 30 * 86_400_000,
    },
  ],
  createdAtMs: T0 - 1_000,
};

export const providerBody: Provider = {
  name: 'OpenAI prod',
  slug: 'openai-prod',
  integrationId: '0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d05',
  aiProvider: 'openai',
  status: EntityStatus.ACTIVE,
  encryptedCredentials: Buffer.from([1, 0x9a, 0x17, 0x00, 0xff, 0x42, 0x10, 0x3c]),
  options: { api_version: '2024-10-21' },
  allowedModels: ['gpt-4o', 'gpt-4o-mini'],
  rateLimits: [{ type: RateLimitType.TOKENS, unit: RateLimitUnit.RPH, value: 2_000_000 }],
  usageLimits: [
    {
      type: UsageLimitType.TOKENS,
      creditLimit: 9_000_000_000_000,
      alertThreshold: 0,
      periodicReset: PeriodicReset.WEEKLY,
      periodicResetDays: 7,
      nextUsageResetAtMs: T0 + 7 * 86_400_000,
    },
  ],
  expiresAtMs: T0 + 365 * 86_400_000,
  tags: { owner: 'platform' },
  credentialError: 'secret reference vault-openai could not be resolved within its refresh window',
};

export function entity(kind: EntityKind, id: string, version: number, body: Entity['body']): Entity {
  return {
    kind,
    id,
    version,
    tombstone: false,
    organisationId: ORG,
    workspaceId: WORKSPACE,
    updatedAtMs: T0 + version,
    body,
  };
}

export const changeEvent: ChangeEvent = {
  schemaVersion: SCHEMA_VERSION,
  eventId: 4_503_599_627_370_496,
  revision: 4_503_599_627_370_496,
  occurredAtMs: T0,
  actor: { type: ActorType.API_KEY, userId: USER, apiKeyId: API_KEY_ID, displayName: 'admin key' },
  entity: entity(EntityKind.API_KEY, API_KEY_ID, 7, { $case: 'apiKey', value: apiKeyBody }),
};

export const requestEvent: RequestEvent = {
  schemaVersion: SCHEMA_VERSION,
  id: '9c8b7a69-5847-4362-9150-a1b2c3d4e006',
  traceId: 'trace-42',
  spanId: '00f067aa0ba902b7',
  parentSpanId: '4bf92f3577b34da6',
  receivedAtMs: T0,
  upstreamStartedAtMs: T0 + 3,
  upstreamFirstByteAtMs: T0 + 250,
  upstreamEndedAtMs: T0 + 1_900,
  completedAtMs: T0 + 1_901,
  organisationId: ORG,
  workspaceId: WORKSPACE,
  apiKeyId: API_KEY_ID,
  userId: USER,
  provider: {
    type: 'openai',
    slug: 'openai-prod',
    providerId: '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c07',
    integrationId: '0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d05',
    customHost: 'https://llm.internal.example/v1',
  },
  virtualKeyId: 'vk-legacy-1',
  configId: 'pc-fallback',
  configVersion: 4,
  modelRequested: 'gpt-4o',
  modelServed: 'gpt-4o-2024-08-06',
  method: 'POST',
  path: '/chat/completions',
  statusCode: 200,
  isStream: true,
  cacheStatus: CacheStatus.SEMANTIC_MISS,
  attempts: [
    {
      targetPath: 'config.targets[0]',
      provider: {
        type: 'anthropic',
        slug: 'claude',
        providerId: 'p-1',
        integrationId: 'i-1',
        customHost: 'h',
      },
      model: 'claude-sonnet-4',
      statusCode: 0,
      startedAtMs: T0 + 1,
      latencyUs: 30_000_000,
      retryIndex: 2,
      error: {
        code: 'UPSTREAM_TIMEOUT',
        message: 'upstream timed out after 30000 ms',
        type: 'timeout_error',
      },
    },
    {
      targetPath: 'config.targets[1]',
      provider: { type: 'openai', slug: 'openai-prod', providerId: 'p-2', integrationId: '', customHost: '' },
      model: 'gpt-4o',
      statusCode: 200,
      startedAtMs: T0 + 3,
      latencyUs: 1_897_000,
      retryIndex: 1,
    },
  ],
  tokens: {
    inputTokens: 1_200,
    outputTokens: 340,
    totalTokens: 1_540,
    cachedInputTokens: 1_024,
    estimated: true,
  },
  cost: { amountMicros: 4_523, currency: 'USD' },
  metadata: { _user: 'ada', _environment: 'prod', 'team.name': 'search' },
  guardrailResults: [
    {
      guardrailId: 'g-0',
      stage: GuardrailStage.INPUT,
      verdict: true,
      denied: false,
      latencyUs: 95,
      feedback: { value: 7, weight: 0.5 },
      checks: [
        {
          checkId: 'default.contains',
          verdict: true,
          explanation: 'no match',
          latencyUs: 40,
          errored: false,
        },
      ],
    },
    {
      guardrailId: 'g-1',
      stage: GuardrailStage.OUTPUT,
      verdict: false,
      denied: true,
      latencyUs: 812,
      feedback: { value: -6, weight: 1 },
      checks: [
        {
          checkId: 'default.regexMatch',
          verdict: false,
          explanation: 'matched /ssn/',
          latencyUs: 90,
          errored: true,
        },
      ],
    },
  ],
  requestBody: {
    data: Buffer.from('{"model":"gpt-4o","stream":true}'),
    truncated: false,
    sizeBytes: 32,
    contentType: 'application/json',
  },
  responseBody: {
    data: Buffer.from([0x64, 0x61, 0x74, 0x61, 0x3a, 0x20, 0xe2, 0x9c, 0x93]),
    truncated: true,
    sizeBytes: 65_536,
    contentType: 'text/event-stream',
  },
  error: {
    code: 'GUARDRAIL_DENIED',
    message: 'output guardrail denied the response',
    type: 'guardrail_error',
  },
  gatewayInstanceId: 'gateway-7d9f-abcde',
  latency: {
    totalUs: 1_901_000,
    upstreamUs: 1_897_000,
    timeToFirstByteUs: 250_400,
    gatewayOverheadUs: 4_000,
    authUs: 120,
    limitsUs: 310,
    cacheUs: 2_200,
    guardrailsUs: 812,
  },
  promptId: 'prompt-summary-v2',
  requestSizeBytes: 32,
  responseSizeBytes: 65_536,
  usageCharges: [
    {
      ownerKind: EntityKind.USAGE_LIMIT_POLICY,
      ownerId: '0c9e8d7f-6a5b-4c3d-9e2f-1a0b9c8d7e05',
      groupValue: `api_key=${API_KEY_ID}`,
      measure: UsageLimitType.COST,
      periodStartMs: T0,
      periodEndMs: T0 + 7 * 86_400_000,
      counterKey: `lim:{${ORG}}:u:p:0c9e8d7f-6a5b-4c3d-9e2f-1a0b9c8d7e05:q2xT0nYwR8kA1bC3dE5fG7:${T0}`,
      amount: 1_234,
    },
  ],
  usageChargesReported: true,
  promptVersion: 2,
  promptLabel: 'production',
  mcp: {
    serverId: '0c9e8d7f-6a5b-4c3d-9e2f-1a0b9c8d7e06',
    serverSlug: 'weather',
    mcpIntegrationId: '0c9e8d7f-6a5b-4c3d-9e2f-1a0b9c8d7e07',
    rpcMethod: 'tools/call',
    tool: 'forecast',
    rpcErrorCode: -32601,
  },
  traceParent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
};

export const auditEvent: AuditEvent = {
  schemaVersion: SCHEMA_VERSION,
  id: '5d4c3b2a-1908-4776-8554-433221100f08',
  occurredAtMs: T0,
  organisationId: ORG,
  workspaceId: WORKSPACE,
  actor: { type: ActorType.USER, userId: USER, apiKeyId: API_KEY_ID, displayName: 'ada@example.com' },
  action: 'api_keys.create',
  resourceType: 'api_key',
  resourceId: API_KEY_ID,
  ip: '203.0.113.9',
  userAgent: 'curl/8.5.0',
  requestMethod: 'POST',
  requestPath: '/v1/api-keys/workspace/user',
  requestDetailsJson: '{"name":"ci deploys","key":"[REDACTED]"}',
  outcome: AuditOutcome.FAILURE,
  statusCode: 409,
  traceId: 'trace-43',
};
