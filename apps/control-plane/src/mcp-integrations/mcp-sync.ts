// The control plane's view of each MCP integration's server: it connects with the official MCP SDK
// (Client + Streamable HTTP), reads the server's identity, protocol version and its tools,
// resources and prompts, and records the outcome in mcp_integration_sync. A failure is recorded as
// sync status `error` with a message; it never throws to the caller (routes and the schedule). The
// server and its token endpoint are an organisation's hosts: checked and pinned (outbound/).
import type { Logger } from '@aigw/runtime';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Kysely } from 'kysely';
import { type McpIntegrationRow, type McpItem, type McpServerInfo, mcpDb } from '../db/mcp.db.js';
import type { ControlDatabase } from '../db/schema.js';
import { type PinnedFetch, withOutboundHost } from '../outbound/outbound-fetch.js';
import type { LookupFn } from '../outbound/outbound-host.js';
import { openMcpSecret } from './mcp-credentials.js';
import { clientCredentialsToken } from './oauth-token.js';

/** How long one sync may take, connection and listings included. */
export const SYNC_TIMEOUT_MS = 10_000;
/** Pages read per listing at most (a server paginating forever must not hold the sync). */
const MAX_PAGES = 20;
const CLIENT_INFO = { name: 'aigw-control-plane', version: '0.1.0' };

export interface SyncDeps {
  readonly db: Kysely<ControlDatabase>;
  readonly masterKey: Buffer | null;
  readonly log: Logger;
  /** Resolves the server's and token endpoint's host names; the system resolver unless a test injects one. */
  readonly lookup?: LookupFn;
}

interface Discovered {
  readonly metadata: McpServerInfo;
  readonly tools: McpItem[];
  readonly resources: McpItem[];
  readonly prompts: McpItem[];
}

/** Syncs one integration and records the outcome; resolves once recorded, whatever happened. */
export async function syncMcpIntegration(deps: SyncDeps, row: McpIntegrationRow): Promise<void> {
  const attemptedAt = new Date();
  let outcome: { ok: true; found: Discovered } | { ok: false; error: string };
  try {
    outcome = { ok: true, found: await discover(deps, row) };
  } catch (err) {
    outcome = { ok: false, error: describe(err) };
    deps.log.warn({ mcpIntegrationId: row.id, error: outcome.error }, 'MCP integration sync failed');
  }
  try {
    const values = outcome.ok
      ? {
          status: 'ok' as const,
          error: null,
          metadata: JSON.stringify(outcome.found.metadata),
          tools: JSON.stringify(outcome.found.tools),
          resources: JSON.stringify(outcome.found.resources),
          prompts: JSON.stringify(outcome.found.prompts),
          attempted_at: attemptedAt,
          synced_at: new Date(),
        }
      : { status: 'error' as const, error: outcome.error, attempted_at: attemptedAt };
    await mcpDb(deps.db)
      .insertInto('mcp_integration_sync')
      .values({ mcp_integration_id: row.id, ...values })
      .onConflict((oc) => oc.column('mcp_integration_id').doUpdateSet(values))
      .execute();
  } catch (err) {
    // The integration may have been deleted meanwhile (foreign key): nothing left to record.
    deps.log.warn({ err, mcpIntegrationId: row.id }, 'MCP integration sync result not recorded');
  }
}

async function discover(deps: SyncDeps, row: McpIntegrationRow): Promise<Discovered> {
  const signal = AbortSignal.timeout(SYNC_TIMEOUT_MS);
  const headers: Record<string, string> = {};
  const outbound = deps.lookup ? { lookup: deps.lookup } : {};
  if (row.encrypted_credentials) {
    if (!deps.masterKey) throw new Error('MASTER_KEY is not set: the credentials cannot be opened');
    const secret = openMcpSecret(deps.masterKey, row.id, row.encrypted_credentials);
    const token = 'token' in secret ? secret.token : await clientCredentialsToken(secret, signal, outbound);
    headers.authorization = `Bearer ${token}`;
  }
  const url = new URL(row.url);
  return withOutboundHost(url, outbound, (fetch) => listServer(url, headers, signal, fetch));
}

/** Connects with the SDK through `fetch` (pinned to the checked addresses) and reads what the server offers. */
async function listServer(
  url: URL,
  headers: Record<string, string>,
  signal: AbortSignal,
  fetch: PinnedFetch,
): Promise<Discovered> {
  const transport = new StreamableHTTPClientTransport(url, {
    requestInit: { headers, signal, redirect: 'error' },
    fetch,
  });
  const client = new Client(CLIENT_INFO);
  try {
    await client.connect(transport, { signal, timeout: SYNC_TIMEOUT_MS });
    const info = client.getServerVersion();
    const capabilities = client.getServerCapabilities() ?? {};
    const options = { signal, timeout: SYNC_TIMEOUT_MS };
    const tools = capabilities.tools
      ? await pages(async (cursor) => {
          const page = await client.listTools(cursor ? { cursor } : {}, options);
          return { items: page.tools.map(item), next: page.nextCursor };
        })
      : [];
    const resources = capabilities.resources
      ? await pages(async (cursor) => {
          const page = await client.listResources(cursor ? { cursor } : {}, options);
          return {
            items: page.resources.map((r) => ({
              ...item(r),
              name: r.uri,
              ...(r.name ? { title: r.name } : {}),
            })),
            next: page.nextCursor,
          };
        })
      : [];
    const prompts = capabilities.prompts
      ? await pages(async (cursor) => {
          const page = await client.listPrompts(cursor ? { cursor } : {}, options);
          return { items: page.prompts.map(item), next: page.nextCursor };
        })
      : [];
    const instructions = client.getInstructions();
    const metadata: McpServerInfo = {
      ...(info?.title !== undefined ? { title: info.title } : {}),
      ...(info?.description !== undefined ? { description: info.description } : {}),
      ...(info?.icons !== undefined ? { icons: info.icons } : {}),
      ...(info?.name !== undefined ? { server_name: info.name } : {}),
      ...(info?.version !== undefined ? { server_version: info.version } : {}),
      ...(info?.websiteUrl !== undefined ? { website_url: info.websiteUrl } : {}),
      ...(transport.protocolVersion !== undefined ? { protocol_version: transport.protocolVersion } : {}),
      ...(instructions !== undefined ? { instructions } : {}),
    };
    return { metadata, tools, resources, prompts };
  } finally {
    // Ends the session on the server too (DELETE); a failure there changes nothing we learnt.
    await transport.terminateSession().catch(() => undefined);
    await client.close().catch(() => undefined);
  }
}

function item(value: {
  name: string;
  title?: string | undefined;
  description?: string | undefined;
}): McpItem {
  return {
    name: value.name,
    ...(value.title !== undefined ? { title: value.title } : {}),
    ...(value.description !== undefined ? { description: value.description.slice(0, 2048) } : {}),
  };
}

async function pages(
  read: (cursor: string | undefined) => Promise<{ items: McpItem[]; next: string | undefined }>,
): Promise<McpItem[]> {
  const all: McpItem[] = [];
  let cursor: string | undefined;
  for (let n = 0; n < MAX_PAGES; n++) {
    const page = await read(cursor);
    all.push(...page.items);
    if (!page.next) break;
    cursor = page.next;
  }
  return all;
}

/**
 * A short, secret-free message: the error's own text and the HTTP status when the SDK gives one
 * (URLs hold no credentials; tokens are only ever in request headers, which errors do not repeat).
 */
function describe(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const code = (err as { code?: unknown }).code;
  const status = typeof code === 'number' && code >= 100 && code < 600 ? ` (HTTP ${code})` : '';
  const cause = err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : '';
  return `${message}${status}${cause}`.slice(0, 500) || 'unknown error';
}
