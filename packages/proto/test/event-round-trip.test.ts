// Event payloads survive binary and JSON encoding with every field intact.
import { BinaryWriter } from '@bufbuild/protobuf/wire';
import { describe, expect, it } from 'vitest';
import {
  AccessSettings,
  ApiKey,
  Attempt,
  AuditEvent,
  CapturedBody,
  ChangeEvent,
  DeploymentType,
  ENTITY_KINDS,
  Entity,
  EntityKind,
  EntityStatus,
  GuardrailCheckResult,
  GuardrailResult,
  LatencyBreakdown,
  McpAuthType,
  McpTransport,
  PeriodicReset,
  Provider,
  ProviderRef,
  RateLimitType,
  RateLimitUnit,
  RequestEvent,
  TokenUsage,
  UsageCharge,
  UsageLimitType,
} from '../src/index.js';
import {
  apiKeyBody,
  assertEveryFieldSet,
  auditEvent,
  changeEvent,
  entity,
  providerBody,
  requestEvent,
} from './fixtures.js';

describe('RequestEvent', () => {
  it('is fully populated by the fixture, nested messages included', () => {
    assertEveryFieldSet(requestEvent, RequestEvent.create(), 'RequestEvent');
    assertEveryFieldSet(requestEvent.provider!, ProviderRef.create(), 'ProviderRef');
    assertEveryFieldSet(requestEvent.attempts[0]!, Attempt.create(), 'Attempt', ['statusCode']);
    assertEveryFieldSet(requestEvent.attempts[1]!, Attempt.create(), 'Attempt', ['error']);
    assertEveryFieldSet(requestEvent.tokens!, TokenUsage.create(), 'TokenUsage');
    const [passed, denied] = requestEvent.guardrailResults;
    assertEveryFieldSet(passed!, GuardrailResult.create(), 'GuardrailResult', ['denied']);
    assertEveryFieldSet(denied!, GuardrailResult.create(), 'GuardrailResult', ['verdict']);
    assertEveryFieldSet(passed!.checks[0]!, GuardrailCheckResult.create(), 'GuardrailCheckResult', [
      'errored',
    ]);
    assertEveryFieldSet(denied!.checks[0]!, GuardrailCheckResult.create(), 'GuardrailCheckResult', [
      'verdict',
    ]);
    assertEveryFieldSet(requestEvent.responseBody!, CapturedBody.create(), 'CapturedBody');
    assertEveryFieldSet(requestEvent.latency!, LatencyBreakdown.create(), 'LatencyBreakdown');
    assertEveryFieldSet(requestEvent.usageCharges[0]!, UsageCharge.create(), 'UsageCharge');
  });

  it('round-trips through the binary encoding', () => {
    const bytes = RequestEvent.encode(requestEvent).finish();
    expect(RequestEvent.decode(bytes)).toEqual(requestEvent);
  });

  it('round-trips through JSON', () => {
    const json = JSON.parse(JSON.stringify(RequestEvent.toJSON(requestEvent)));
    expect(RequestEvent.fromJSON(json)).toEqual(requestEvent);
    expect(json.cacheStatus).toBe('CACHE_STATUS_SEMANTIC_MISS');
  });

  it('keeps an attempt without an error distinct from one with an empty error', () => {
    const decoded = RequestEvent.decode(RequestEvent.encode(requestEvent).finish());
    expect(decoded.attempts[0]?.error?.code).toBe('UPSTREAM_TIMEOUT');
    expect(decoded.attempts[1]?.error).toBeUndefined();
  });
});

describe('ChangeEvent', () => {
  it('is fully populated by the fixture (tombstone covered below)', () => {
    assertEveryFieldSet(changeEvent, ChangeEvent.create(), 'ChangeEvent');
    assertEveryFieldSet(changeEvent.entity!, Entity.create(), 'Entity', ['tombstone']);
    assertEveryFieldSet(apiKeyBody, ApiKey.create(), 'ApiKey');
    assertEveryFieldSet(providerBody, Provider.create(), 'Provider');
  });

  it('round-trips with an ApiKey body', () => {
    const decoded = ChangeEvent.decode(ChangeEvent.encode(changeEvent).finish());
    expect(decoded).toEqual(changeEvent);
    expect(decoded.entity?.body?.$case).toBe('apiKey');
  });

  it('round-trips a Provider body with encrypted credentials as bytes and an alert threshold of 0', () => {
    const event = {
      ...changeEvent,
      entity: entity(EntityKind.PROVIDER, 'p-1', 3, { $case: 'provider', value: providerBody }),
    };
    const decoded = ChangeEvent.decode(ChangeEvent.encode(event).finish());
    expect(decoded).toEqual(event);
    const body = decoded.entity?.body;
    expect(body?.$case === 'provider' && Buffer.isBuffer(body.value.encryptedCredentials)).toBe(true);
    expect(body?.$case === 'provider' && body.value.usageLimits[0]?.alertThreshold).toBe(0);
  });

  it('round-trips a tombstone, which has no body', () => {
    const tombstone: Entity = { ...entity(EntityKind.CONFIG, 'c-1', 9, undefined), tombstone: true };
    const event = { ...changeEvent, entity: tombstone };
    const decoded = ChangeEvent.decode(ChangeEvent.encode(event).finish());
    expect(decoded.entity?.tombstone).toBe(true);
    expect(decoded.entity?.body).toBeUndefined();
    expect(decoded.entity?.version).toBe(9);
  });

  it('round-trips a body of every entity kind, in binary and JSON', () => {
    const bodies: Record<
      Exclude<EntityKind, EntityKind.UNSPECIFIED | EntityKind.UNRECOGNIZED>,
      Entity['body']
    > = {
      [EntityKind.ORGANISATION]: {
        $case: 'organisation',
        value: {
          name: 'Acme',
          slug: 'acme',
          status: EntityStatus.ACTIVE,
          access: AccessSettings.fromPartial({ membersViewAllData: false, managersWritePrompts: true }),
          defaultMetadata: { _organisation: 'acme' },
          createdAtMs: 1,
        },
      },
      [EntityKind.WORKSPACE]: {
        $case: 'workspace',
        value: {
          name: 'Search',
          slug: 'search',
          status: EntityStatus.ARCHIVED,
          defaultMetadata: { team: 'search' },
          settings: {
            access: { membersViewAnalytics: false },
            maxApiKeysPerUser: 5,
            apiKeyDefaultExpiryDays: 30,
            apiKeyMaxExpiryDays: 90,
            disableBodyLogging: true,
          },
          rateLimits: [{ type: RateLimitType.REQUESTS, unit: RateLimitUnit.RPD, value: 10 }],
          usageLimits: [],
          createdAtMs: 2,
        },
      },
      [EntityKind.API_KEY]: { $case: 'apiKey', value: apiKeyBody },
      [EntityKind.INTEGRATION]: {
        $case: 'integration',
        value: {
          name: 'OpenAI',
          slug: 'openai',
          aiProvider: 'openai',
          status: EntityStatus.ACTIVE,
          encryptedCredentials: Buffer.from([9, 8, 7]),
          options: { base_url: 'https://api.openai.com/v1' },
          allowAllWorkspaces: false,
          workspaces: [{ workspaceId: 'w-1', enabled: true, rateLimits: [], usageLimits: [] }],
          allowedModels: ['gpt-4o'],
          rateLimits: [],
          usageLimits: [],
          tags: { env: 'prod' },
          credentialError: '',
        },
      },
      [EntityKind.PROVIDER]: { $case: 'provider', value: providerBody },
      [EntityKind.VIRTUAL_KEY]: {
        $case: 'virtualKey',
        value: {
          name: 'legacy',
          slug: 'openai-vk',
          aiProvider: 'openai',
          status: EntityStatus.EXPIRED,
          encryptedCredentials: Buffer.alloc(0),
          options: {},
          allowedModels: [],
          rateLimits: [],
          usageLimits: [],
          expiresAtMs: 3,
          providerId: 'p-1',
        },
      },
      [EntityKind.CONFIG]: {
        $case: 'config',
        value: {
          name: 'fallback',
          slug: 'pc-fallback',
          version: 4,
          bodyJson: '{"strategy":{"mode":"fallback"}}',
          status: EntityStatus.ACTIVE,
          encryptedHeaders: Buffer.from([4, 5, 6]),
        },
      },
      [EntityKind.DEPLOYMENT]: {
        $case: 'deployment',
        value: {
          name: 'Prod',
          slug: 'prod',
          type: DeploymentType.PRODUCTION,
          configId: 'c-1',
          status: EntityStatus.ACTIVE,
        },
      },
      [EntityKind.RATE_LIMIT_POLICY]: {
        $case: 'rateLimitPolicy',
        value: {
          name: 'per key',
          type: RateLimitType.TOKENS,
          unit: RateLimitUnit.RPM,
          value: 100_000,
          conditions: [{ key: 'workspace_id', value: 'w-1' }],
          groupBy: [{ key: 'api_key' }],
          status: EntityStatus.ACTIVE,
          createdAtMs: 4,
          lastUpdatedAtMs: 5,
        },
      },
      [EntityKind.USAGE_LIMIT_POLICY]: {
        $case: 'usageLimitPolicy',
        value: {
          name: 'monthly budget',
          type: UsageLimitType.COST,
          conditions: [{ key: 'metadata._user', value: '*' }],
          groupBy: [{ key: 'metadata._user' }],
          creditLimit: 100_000_000,
          alertThreshold: 80_000_000,
          periodicReset: PeriodicReset.UNSPECIFIED,
          periodicResetDays: 14,
          nextUsageResetAtMs: 6,
          status: EntityStatus.ARCHIVED,
          createdAtMs: 7,
          lastUpdatedAtMs: 8,
          resets: [{ groupKey: 'metadata._user', groupValue: 'ada@example.com', resetAtMs: 9 }],
        },
      },
      [EntityKind.GUARDRAIL]: {
        $case: 'guardrail',
        value: {
          name: 'pii',
          slug: 'pii',
          status: EntityStatus.ACTIVE,
          bodyJson: '{"checks":[]}',
          encryptedHeaders: Buffer.from([1, 2, 3]),
        },
      },
      [EntityKind.MODEL_PRICING]: {
        $case: 'modelPricing',
        value: {
          aiProvider: 'openai',
          model: 'gpt-4o*',
          currency: 'USD',
          inputMicrosPerMtok: 2_500_000,
          outputMicrosPerMtok: 10_000_000,
          cachedInputMicrosPerMtok: 1_250_000,
          cacheWriteMicrosPerMtok: 3_125_000,
          requestMicros: 1,
          extraJson: '{"image":40000}',
        },
      },
      [EntityKind.PROMPT]: {
        $case: 'prompt',
        value: {
          name: 'Summary',
          slug: 'summary',
          collectionId: 'c-1',
          status: EntityStatus.ACTIVE,
          defaultVersion: 2,
          versions: [
            {
              version: 1,
              template: 'Summarise {{text}}',
              model: 'gpt-4o-mini',
              parametersJson: '{"max_tokens":64}',
              variableDefaultsJson: '{"text":"x"}',
              provider: '@openai-prod',
            },
          ],
          labels: { production: 1 },
        },
      },
      [EntityKind.PROMPT_PARTIAL]: {
        $case: 'promptPartial',
        value: {
          name: 'Tone',
          slug: 'tone',
          status: EntityStatus.ACTIVE,
          version: 3,
          content: 'Be {{tone}}.',
        },
      },
      [EntityKind.MCP_INTEGRATION]: {
        $case: 'mcpIntegration',
        value: {
          name: 'Weather',
          slug: 'weather',
          url: 'https://mcp.example.com/mcp',
          transport: McpTransport.STREAMABLE_HTTP,
          authType: McpAuthType.BEARER,
          encryptedCredentials: Buffer.from([1, 2, 3]),
          status: EntityStatus.ACTIVE,
          tags: { team: 'core' },
        },
      },
      [EntityKind.MCP_SERVER]: {
        $case: 'mcpServer',
        value: {
          name: 'Weather',
          slug: 'weather',
          mcpIntegrationId: 'mi-1',
          status: EntityStatus.ACTIVE,
          capabilities: { disabledTools: ['rm'], disabledResources: [], disabledPrompts: ['p'] },
          userAccess: { allowAll: false, userIds: ['u-1'], apiKeyIds: ['k-1'] },
        },
      },
    };
    expect(Object.keys(bodies).map(Number)).toEqual(ENTITY_KINDS);
    for (const kind of ENTITY_KINDS) {
      const event = {
        ...changeEvent,
        entity: entity(kind, `id-${kind}`, kind, bodies[kind as keyof typeof bodies]),
      };
      expect(ChangeEvent.decode(ChangeEvent.encode(event).finish()), EntityKind[kind]).toEqual(event);
      expect(ChangeEvent.fromJSON(ChangeEvent.toJSON(event)), EntityKind[kind]).toEqual(event);
    }
  });

  it('refuses 64-bit values beyond Number.MAX_SAFE_INTEGER instead of rounding them', () => {
    const bytes = new BinaryWriter().uint32(16).uint64('9007199254740993').finish();
    expect(() => ChangeEvent.decode(bytes)).toThrow(/MAX_SAFE_INTEGER/);
  });
});

describe('AuditEvent', () => {
  it('is fully populated by the fixture', () => {
    assertEveryFieldSet(auditEvent, AuditEvent.create(), 'AuditEvent');
  });

  it('round-trips through the binary encoding and JSON', () => {
    expect(AuditEvent.decode(AuditEvent.encode(auditEvent).finish())).toEqual(auditEvent);
    expect(AuditEvent.fromJSON(JSON.parse(JSON.stringify(AuditEvent.toJSON(auditEvent))))).toEqual(
      auditEvent,
    );
  });
});
