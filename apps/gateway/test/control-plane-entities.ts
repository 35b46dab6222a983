// Control-plane entities for gateway tests, built as the control plane sends them (proto Entity),
// with credentials sealed by @aigw/secret-box under a test MASTER_KEY; and a gateway data plane in
// control-plane mode over a static snapshot, with a mock provider behind it.
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMockProvider, type MockOptions, type MockProvider } from '@aigw/mock-provider';
import {
  ApiKeyType,
  DeploymentType,
  type Entity,
  EntityKind,
  EntityStatus,
  type IntegrationWorkspace,
  type RequestEvent,
} from '@aigw/proto';
import { createLogger } from '@aigw/runtime';
import { credentialsAad, parseMasterKey, sealSecret } from '@aigw/secret-box';
import type { Redis } from 'ioredis';
import { accessFromConfig, hashApiKey } from '../src/access/index.js';
import { loadGatewayConfig } from '../src/config.js';
import type { Limits } from '../src/limits/index.js';
import { createGatewayPipeline } from '../src/pipeline/index.js';
import { Snapshot } from '../src/snapshot/index.js';

export const TEST_MASTER_KEY = Buffer.alloc(32, 7).toString('base64');
const masterKey = parseMasterKey(TEST_MASTER_KEY);

let version = 1;
const envelope = (
  kind: EntityKind,
  id: string,
  version: number,
  organisationId: string,
  workspaceId: string,
) => ({
  kind,
  id,
  version,
  tombstone: false,
  organisationId,
  workspaceId,
  updatedAtMs: Date.now(),
});

export function seal(owner: 'integration' | 'provider', id: string, credentials: object): Buffer {
  return sealSecret(masterKey, JSON.stringify(credentials), credentialsAad(owner, id));
}

export function organisation(
  id: string,
  fields: { status?: EntityStatus; defaultMetadata?: Record<string, string> } = {},
): Entity {
  return {
    ...envelope(EntityKind.ORGANISATION, id, version++, id, ''),
    body: {
      $case: 'organisation',
      value: {
        name: 'Org',
        slug: `org-${id.slice(0, 8)}`,
        status: fields.status ?? EntityStatus.ACTIVE,
        defaultMetadata: fields.defaultMetadata ?? {},
        createdAtMs: 0,
      },
    },
  };
}

export function workspace(
  id: string,
  organisationId: string,
  fields: {
    status?: EntityStatus;
    defaultMetadata?: Record<string, string>;
    disableBodyLogging?: boolean;
  } = {},
): Entity {
  return {
    ...envelope(EntityKind.WORKSPACE, id, version++, organisationId, id),
    body: {
      $case: 'workspace',
      value: {
        name: 'Workspace',
        slug: `ws-${id.slice(0, 8)}`,
        status: fields.status ?? EntityStatus.ACTIVE,
        defaultMetadata: fields.defaultMetadata ?? {},
        settings: {
          maxApiKeysPerUser: 0,
          apiKeyDefaultExpiryDays: 0,
          apiKeyMaxExpiryDays: 0,
          disableBodyLogging: fields.disableBodyLogging ?? false,
        },
        rateLimits: [],
        usageLimits: [],
        createdAtMs: 0,
      },
    },
  };
}

export function apiKey(
  key: string,
  organisationId: string,
  workspaceId: string,
  fields: {
    id?: string;
    status?: EntityStatus;
    type?: ApiKeyType;
    expiresAtMs?: number;
    userId?: string;
    metadata?: Record<string, string>;
    configId?: string;
    /** `defaults.allow_config_override: false`: every request runs `configId`. */
    configEnforced?: boolean;
    scopes?: string[];
  } = {},
): Entity {
  const type = fields.type ?? ApiKeyType.WORKSPACE;
  return {
    ...envelope(EntityKind.API_KEY, fields.id ?? randomUUID(), version++, organisationId, workspaceId),
    body: {
      $case: 'apiKey',
      value: {
        name: 'key',
        keyHash: hashApiKey(key),
        last4: key.slice(-4),
        type,
        scopes: fields.scopes ?? ['completions.write'],
        status: fields.status ?? EntityStatus.ACTIVE,
        expiresAtMs: fields.expiresAtMs ?? 0,
        userId: fields.userId ?? (type === ApiKeyType.WORKSPACE ? 'user-1' : ''),
        defaults: {
          metadata: fields.metadata ?? {},
          configId: fields.configId ?? '',
          configEnforced: fields.configEnforced ?? false,
        },
        rateLimits: [],
        usageLimits: [],
        createdAtMs: 0,
      },
    },
  };
}

/**
 * An Azure OpenAI integration on `host` (the mock) with the key `azure-managed-key`, resource
 * `my-resource`, api version 2024-10-21 and two deployments: `dep-4o` serving gpt-4o and the default
 * `dep-mini` serving gpt-4o-mini.
 */
export function azureIntegration(id: string, organisationId: string, host: string): Entity {
  return integration(id, organisationId, {
    aiProvider: 'azure-openai',
    credentials: { api_key: 'azure-managed-key' },
    options: {
      custom_host: host,
      resource_name: 'my-resource',
      api_version: '2024-10-21',
      deployments: JSON.stringify([
        { deployment_id: 'dep-4o', model: 'gpt-4o' },
        { deployment_id: 'dep-mini', model: 'gpt-4o-mini', is_default: true },
      ]),
    },
  });
}

export function integration(
  id: string,
  organisationId: string,
  fields: {
    aiProvider?: string;
    credentials?: object;
    envelope?: Buffer;
    options?: Record<string, string>;
    status?: EntityStatus;
    allowAllWorkspaces?: boolean;
    workspaces?: Pick<IntegrationWorkspace, 'workspaceId' | 'enabled'>[];
    allowedModels?: string[];
    credentialError?: string;
  } = {},
): Entity {
  return {
    ...envelope(EntityKind.INTEGRATION, id, version++, organisationId, ''),
    body: {
      $case: 'integration',
      value: {
        name: 'Integration',
        slug: `int-${id.slice(0, 8)}`,
        aiProvider: fields.aiProvider ?? 'openai',
        status: fields.status ?? EntityStatus.ACTIVE,
        encryptedCredentials:
          fields.envelope ??
          (fields.credentials ? seal('integration', id, fields.credentials) : Buffer.alloc(0)),
        options: fields.options ?? {},
        allowAllWorkspaces: fields.allowAllWorkspaces ?? true,
        workspaces: (fields.workspaces ?? []).map((w) => ({ ...w, rateLimits: [], usageLimits: [] })),
        allowedModels: fields.allowedModels ?? [],
        rateLimits: [],
        usageLimits: [],
        tags: {},
        credentialError: fields.credentialError ?? '',
      },
    },
  };
}

export function provider(
  id: string,
  organisationId: string,
  workspaceId: string,
  slug: string,
  fields: {
    integrationId?: string;
    aiProvider?: string;
    credentials?: object;
    options?: Record<string, string>;
    status?: EntityStatus;
    allowedModels?: string[];
    expiresAtMs?: number;
    credentialError?: string;
  } = {},
): Entity {
  return {
    ...envelope(EntityKind.PROVIDER, id, version++, organisationId, workspaceId),
    body: {
      $case: 'provider',
      value: {
        name: slug,
        slug,
        integrationId: fields.integrationId ?? '',
        aiProvider: fields.aiProvider ?? 'openai',
        status: fields.status ?? EntityStatus.ACTIVE,
        encryptedCredentials: fields.credentials ? seal('provider', id, fields.credentials) : Buffer.alloc(0),
        options: fields.options ?? {},
        allowedModels: fields.allowedModels ?? [],
        rateLimits: [],
        usageLimits: [],
        expiresAtMs: fields.expiresAtMs ?? 0,
        tags: {},
        credentialError: fields.credentialError ?? '',
      },
    },
  };
}

/** A virtual key as the control plane publishes it: same id as its provider, pointing at it. */
export function virtualKey(providerEntity: Entity, fields: { status?: EntityStatus } = {}): Entity {
  const p = providerEntity.body?.$case === 'provider' ? providerEntity.body.value : undefined;
  return {
    ...envelope(
      EntityKind.VIRTUAL_KEY,
      providerEntity.id,
      version++,
      providerEntity.organisationId,
      providerEntity.workspaceId,
    ),
    body: {
      $case: 'virtualKey',
      value: {
        name: p?.name ?? '',
        slug: p?.slug ?? '',
        aiProvider: p?.aiProvider ?? '',
        status: fields.status ?? p?.status ?? EntityStatus.ACTIVE,
        encryptedCredentials: Buffer.alloc(0),
        options: {},
        allowedModels: [],
        rateLimits: [],
        usageLimits: [],
        expiresAtMs: 0,
        providerId: providerEntity.id,
      },
    },
  };
}

export function savedConfig(
  id: string,
  organisationId: string,
  workspaceId: string,
  slug: string,
  body: object,
  fields: { version?: number; status?: EntityStatus; encryptedHeaders?: Buffer } = {},
): Entity {
  return {
    ...envelope(EntityKind.CONFIG, id, version++, organisationId, workspaceId),
    body: {
      $case: 'config',
      value: {
        name: slug,
        slug,
        version: fields.version ?? 1,
        bodyJson: JSON.stringify(body),
        encryptedHeaders: fields.encryptedHeaders ?? Buffer.alloc(0),
        status: fields.status ?? EntityStatus.ACTIVE,
      },
    },
  };
}

/** A saved guardrail as the control plane publishes it; `definition` is its `body_json`. */
export function savedGuardrail(
  id: string,
  organisationId: string,
  workspaceId: string,
  slug: string,
  definition: { readonly checks: readonly unknown[]; readonly actions?: object; readonly async?: boolean },
  fields: { version?: number; status?: EntityStatus; encryptedHeaders?: Buffer } = {},
): Entity {
  return {
    ...envelope(EntityKind.GUARDRAIL, id, fields.version ?? 1, organisationId, workspaceId),
    body: {
      $case: 'guardrail',
      value: {
        name: slug,
        slug,
        status: fields.status ?? EntityStatus.ACTIVE,
        bodyJson: JSON.stringify({
          checks: definition.checks,
          actions: definition.actions ?? { deny: true },
          async: definition.async ?? false,
        }),
        encryptedHeaders: fields.encryptedHeaders ?? Buffer.alloc(0),
      },
    },
  };
}

export function deployment(
  id: string,
  organisationId: string,
  workspaceId: string,
  slug: string,
  configId: string,
  fields: { status?: EntityStatus } = {},
): Entity {
  return {
    ...envelope(EntityKind.DEPLOYMENT, id, version++, organisationId, workspaceId),
    body: {
      $case: 'deployment',
      value: {
        name: slug,
        slug,
        type: DeploymentType.PRODUCTION,
        configId,
        status: fields.status ?? EntityStatus.ACTIVE,
      },
    },
  };
}

/** The deleted form of an entity: no body, a higher version. */
export function tombstone(entity: Entity): Entity {
  const { body: _, ...rest } = entity;
  return { ...rest, version: entity.version + 1000, tombstone: true };
}

export interface ControlPlaneGateway {
  readonly base: string;
  readonly port: number;
  readonly mock: MockProvider;
  /** Every request event built so far (in completion order). */
  readonly events: RequestEvent[];
  /** The event of the request with this trace id (waits briefly: events are built after the response). */
  eventFor(traceId: string): Promise<RequestEvent>;
  /** Replace what the snapshot holds. */
  use(entities: readonly Entity[]): void;
  close(): Promise<void>;
}

/** The `/v1` data plane (and realtime upgrades) in control-plane mode over a static snapshot. */
export async function startControlPlaneGateway(
  entities: readonly Entity[],
  env: Record<string, string> = {},
  mockOptions: MockOptions = {},
  limits?: Limits,
  redis?: Redis,
): Promise<ControlPlaneGateway> {
  const mock = await createMockProvider(mockOptions);
  const config = loadGatewayConfig({
    PORT: '0',
    LOG_LEVEL: 'silent',
    MASTER_KEY: TEST_MASTER_KEY,
    CUSTOM_HOST_ALLOWLIST: '127.0.0.1',
    ...env,
  });
  const log = createLogger({ app: 'gateway-test', level: 'silent' });
  let snapshot = Snapshot.of(entities, 1);
  const access = accessFromConfig(config, { current: () => snapshot }, log);
  const events: RequestEvent[] = [];
  const pipeline = createGatewayPipeline({
    config,
    publish: (event) => events.push(event()),
    instanceId: 'test',
    log,
    access,
    limits,
    redis,
  });
  const server: Server = createServer((req, res) => void pipeline.http(req, res));
  server.on('upgrade', (req, socket, head) => void pipeline.upgrade(req, socket, head));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    port,
    mock,
    events,
    async eventFor(traceId) {
      for (let i = 0; i < 100; i++) {
        const found = events.find((e) => e.traceId === traceId);
        if (found) return found;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      throw new Error(`no event for ${traceId}`);
    },
    use(next) {
      snapshot = Snapshot.of(next, snapshot.revision + 1);
    },
    async close() {
      server.closeAllConnections();
      server.close();
      await mock.close();
    },
  };
}

/** One tenant on a control-plane gateway: its ids, its API key, and the gateway. */
export interface TenantGateway {
  readonly gw: ControlPlaneGateway;
  readonly org: string;
  readonly ws: string;
  /** The workspace API key (holds `completions.write`). */
  readonly key: string;
}

/**
 * A control-plane gateway over `limits` with one organisation, workspace, API key and the managed
 * provider `@openai-prod` (an integration whose host is the mock), plus what `extra` adds for the
 * tenant (policies, prices).
 */
export async function startTenantGateway(
  limits: Limits,
  extra: (tenant: { org: string; ws: string }) => readonly Entity[] = () => [],
): Promise<TenantGateway> {
  const org = randomUUID();
  const ws = randomUUID();
  const key = `aigw_${randomUUID()}`;
  const gw = await startControlPlaneGateway([], {}, {}, limits);
  gw.use([...managedTenant(gw, { org, ws, key }), ...extra({ org, ws })]);
  return { gw, org, ws, key };
}

/**
 * The entities of one tenant calling `@openai-prod`: organisation, workspace, the API key `key`, and
 * a managed provider over an integration whose host is `gw`'s mock (or `host`), with the
 * integration's `allowedModels` and the key's own `keyFields` when given.
 */
export function managedTenant(
  gw: ControlPlaneGateway,
  tenant: {
    readonly org: string;
    readonly ws: string;
    readonly key: string;
    readonly host?: string;
    readonly allowedModels?: string[];
    readonly keyFields?: Parameters<typeof apiKey>[3];
  },
): Entity[] {
  const { org, ws, key } = tenant;
  const int = randomUUID();
  return [
    organisation(org),
    workspace(ws, org),
    apiKey(key, org, ws, tenant.keyFields),
    integration(int, org, {
      credentials: { api_key: 'sk-managed' },
      options: { custom_host: tenant.host ?? `${gw.mock.url}/v1` },
      allowedModels: tenant.allowedModels ?? [],
    }),
    provider(randomUUID(), org, ws, 'openai-prod', { integrationId: int }),
  ];
}
