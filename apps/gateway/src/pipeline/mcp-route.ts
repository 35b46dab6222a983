// The MCP request kind's route stage: `/v1/mcp/<slug>` resolved in the caller's workspace from the
// snapshot (never the control plane), the server's user access checked, its integration's URL checked
// against SSRF like a custom host, and the facts the request event reports (server, integration).
import { EntityKind, EntityStatus } from '@aigw/proto';
import { type Identity, mergedMetadata, type RequestAccess } from '../access/index.js';
import { gatewayError, isGatewayError } from '../errors.js';
import type { Disabled } from '../mcp/mcp-messages.js';
import type { ServiceHeaders } from '../request/service-headers.js';
import type { EntityOf, Snapshot } from '../snapshot/index.js';
import type { CheckedHost, CustomHostCache } from '../upstream/custom-host-cache.js';
import type { Caller } from './identify.js';
import type { RequestContext } from './request-context.js';

/** Requests below this path are MCP requests (`/v1/mcp/<slug>`). */
export const MCP_PREFIX = '/mcp/';
const SLUG = /^[a-z0-9][a-z0-9_-]{0,254}$/;

/** The `provider` (ai_service) MCP requests report in events and limit policies. */
export const MCP_PROVIDER = 'mcp';

export function isMcpPath(path: string): boolean {
  return path.startsWith(MCP_PREFIX);
}

export interface McpRoute {
  readonly server: EntityOf<'mcpServer'>;
  readonly integration: EntityOf<'mcpIntegration'>;
  readonly url: URL;
  readonly host: CheckedHost;
  readonly disabled: Disabled;
}

const disabledOf = new WeakMap<object, Disabled>();

/** The capabilities of a server entity as sets, built once per entity version. */
function disabledSets(server: EntityOf<'mcpServer'>): Disabled {
  let sets = disabledOf.get(server);
  if (!sets) {
    const caps = server.body.value.capabilities;
    sets = {
      tools: new Set(caps?.disabledTools ?? []),
      resources: new Set(caps?.disabledResources ?? []),
      prompts: new Set(caps?.disabledPrompts ?? []),
    };
    disabledOf.set(server, sets);
  }
  return sets;
}

function notFound(slug: string) {
  return gatewayError('mcp_server_not_found', `no MCP server "${slug}" in this workspace`);
}

/** Users and keys the server's user access names may use it; `allow_all` lets the whole workspace. */
export function mayUse(server: EntityOf<'mcpServer'>, identity: Identity): boolean {
  const access = server.body.value.userAccess;
  if (!access || access.allowAll) return true;
  if (identity.userId !== '' && access.userIds.includes(identity.userId)) return true;
  return identity.apiKey !== undefined && access.apiKeyIds.includes(identity.apiKey.id);
}

function findServer(snapshot: Snapshot, identity: Identity, slug: string): EntityOf<'mcpServer'> {
  const entity = snapshot.bySlug(EntityKind.MCP_SERVER, identity.workspace.id, slug);
  if (entity?.body?.$case !== 'mcpServer' || entity.body.value.status !== EntityStatus.ACTIVE) {
    throw notFound(slug);
  }
  return entity as EntityOf<'mcpServer'>;
}

/** The access a request to an MCP server carries through limits and the event (no provider route). */
function mcpAccess(snapshot: Snapshot, identity: Identity, service: ServiceHeaders): RequestAccess {
  return {
    snapshot,
    identity,
    metadata: mergedMetadata(identity, service.metadata),
    captureBodies: identity.workspace.body.value.settings?.disableBodyLogging !== true,
    route: { kind: 'headers' },
    leaves: {
      fromHeaders: undefined,
      resolve: () => {
        throw gatewayError('bad_request', 'MCP requests have no provider targets');
      },
      targetLimits: () => undefined,
    },
  };
}

/** Sets ctx.access and the event facts; throws the gateway error the client gets. */
export async function resolveMcpRoute(
  ctx: RequestContext,
  caller: Caller | undefined,
  hosts: CustomHostCache,
): Promise<McpRoute> {
  const slug = ctx.path.slice(MCP_PREFIX.length).replace(/\/$/, '');
  if (!caller) {
    throw gatewayError(
      'mcp_server_not_found',
      'MCP servers are served by gateways in control-plane mode only',
    );
  }
  if (!SLUG.test(slug)) throw notFound(slug.slice(0, 64));
  const { snapshot, identity } = caller;
  const server = findServer(snapshot, identity, slug);
  const access = mcpAccess(snapshot, identity, ctx.service as ServiceHeaders);
  ctx.access = access;
  const facts = ctx.facts;
  facts.provider = MCP_PROVIDER;
  facts.metadata = access.metadata;
  facts.captureBodies &&= access.captureBodies;
  facts.identity = {
    organisationId: identity.organisation.id,
    workspaceId: identity.workspace.id,
    apiKeyId: identity.apiKey?.id ?? '',
    userId: identity.userId,
  };
  const integrationId = server.body.value.mcpIntegrationId;
  facts.providerRef = { slug, providerId: server.id, integrationId };
  facts.mcp = {
    serverId: server.id,
    serverSlug: slug,
    mcpIntegrationId: integrationId,
    rpcMethod: '',
    tool: '',
    rpcErrorCode: 0,
  };
  if (!mayUse(server, identity)) {
    throw gatewayError(
      'mcp_access_denied',
      `this ${identity.via === 'jwt' ? 'token' : 'API key'} is not in the user access of MCP server "${slug}"`,
    );
  }
  const integration = snapshot.find(EntityKind.MCP_INTEGRATION, 'mcpIntegration', integrationId);
  if (
    !integration ||
    integration.organisationId !== identity.organisation.id ||
    integration.body.value.status !== EntityStatus.ACTIVE
  ) {
    throw gatewayError(
      'mcp_server_unavailable',
      `the integration of MCP server "${slug}" is archived or gone`,
    );
  }
  const url = new URL(integration.body.value.url);
  let host: CheckedHost;
  try {
    host = await hosts.check(url.origin, ctx.service?.requestTimeoutMs);
  } catch (err) {
    if (isGatewayError(err, 'custom_host_blocked')) {
      throw gatewayError(
        'custom_host_blocked',
        `the URL of MCP server "${slug}" is not an allowed public address (CUSTOM_HOST_ALLOWLIST opens private ones)`,
      );
    }
    throw err;
  }
  return { server, integration, url, host, disabled: disabledSets(server) };
}
