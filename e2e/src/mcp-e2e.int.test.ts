// Issue 19 (MCP) through the whole stack: control plane, logger and gateway on real Postgres, NATS
// and Redis, and a real MCP server built with the official SDK. The SDK's own client talks to it
// through `/v1/mcp/<slug>`: it lists only the enabled tools, a disabled tool's call is refused, the
// server's bearer (or OAuth access token) is injected by the gateway (the test server checks it),
// keys outside the user access or the workspace are refused in the error envelope, rate limits
// apply, and each call is in /v1/logs with its server, tool, latency and status.
import { randomUUID } from 'node:crypto';
import { test as base } from '@aigw/testkit';
import { type McpUpstream, startMcpUpstream, startTokenEndpoint } from '@aigw/testkit/mcp-server';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect } from 'vitest';
import { pollUntil } from './enforcement-client.test-support.js';
import { AUDIENCE, ISSUER, startIssuer } from './jwt-issuer.test-support.js';
import { callAs, type LogsStack, startLogsStack } from './logs-stack.test-support.js';

const UPSTREAM_TOKEN = `mcp-upstream-${randomUUID()}`;

interface World {
  readonly stack: LogsStack;
  readonly upstream: McpUpstream;
  readonly workspaceId: string;
  readonly serverId: string;
  /** In the server's user access, with mcp.invoke. */
  readonly allowed: string;
  /** mcp.invoke, but not in the user access. */
  readonly outsider: string;
  /** In the user access, without mcp.invoke. */
  readonly noScope: string;
  /** A key of another workspace that has a server of the same slug elsewhere... or none. */
  readonly otherWorkspace: string;
  /** In the user access, limited to 3 requests a minute. */
  readonly limited: string;
  readonly organisationId: string;
  /** Signs JWTs the gateway accepts (token authentication, spec 5.4). */
  readonly signToken: (claims: object) => string;
}

const test = base.extend<{ world: World }>({
  world: [
    async ({ pg, nats, redis }, use) => {
      const upstream = await startMcpUpstream({ token: UPSTREAM_TOKEN });
      const issuer = await startIssuer();
      const stack = await startLogsStack(
        { pg, nats },
        { REDIS_URL: redis.url, JWT_JWKS_URL: issuer.url, JWT_ISSUER: ISSUER, JWT_AUDIENCE: AUDIENCE },
      );
      try {
        await use({ ...(await buildWorld(stack, upstream)), signToken: issuer.sign });
      } finally {
        await stack.close();
        await upstream.close();
        await issuer.close();
      }
    },
    { scope: 'file' },
  ],
});

async function buildWorld(stack: LogsStack, upstream: McpUpstream): Promise<Omit<World, 'signToken'>> {
  const { admin } = stack;
  const ws = await admin.post('/workspaces', { name: 'MCP e2e' });
  const other = await admin.post('/workspaces', { name: 'MCP e2e other' });
  const key = async (workspaceId: string, scopes: string[], extra: Record<string, unknown> = {}) =>
    admin.post('/api-keys/workspace/service', {
      name: 'mcp',
      workspace_id: workspaceId,
      scopes,
      ...extra,
    }) as Promise<{ id: string; key: string }>;
  const allowed = await key(ws.id, ['mcp.invoke']);
  const outsider = await key(ws.id, ['mcp.invoke', 'completions.write']);
  const noScope = await key(ws.id, ['completions.write']);
  const limited = await key(ws.id, ['mcp.invoke'], {
    rate_limits: [{ type: 'requests', unit: 'rpm', value: 3 }],
  });
  const otherWorkspace = await key(other.id, ['mcp.invoke']);
  const integration = await admin.post('/mcp-integrations', {
    name: 'Weather',
    url: upstream.url,
    auth: { type: 'bearer', token: UPSTREAM_TOKEN },
  });
  expect(integration.sync.status).toBe('ok');
  const server = await admin.post('/mcp-servers', {
    name: 'Weather',
    slug: 'weather',
    workspace_id: ws.id,
    mcp_integration_id: integration.id,
    capabilities: [{ type: 'tool', name: 'delete_everything', enabled: false }],
    user_access: { allow_all: false, api_key_ids: [allowed.id, noScope.id, limited.id] },
  });
  return {
    stack,
    upstream,
    workspaceId: ws.id,
    serverId: server.id,
    allowed: allowed.key,
    outsider: outsider.key,
    noScope: noScope.key,
    otherWorkspace: otherWorkspace.key,
    limited: limited.key,
    organisationId: (await admin.expect(200, 'GET', '/organisation')).id,
  };
}

function mcpUrl(stack: LogsStack, slug = 'weather'): URL {
  return new URL(`${stack.gatewayBase}/v1/mcp/${slug}`);
}

/** The SDK client connected through the gateway with `key` (and a trace id for the logs). */
async function connect(stack: LogsStack, key: string, traceId: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(mcpUrl(stack), {
    requestInit: { headers: { 'x-service-api-key': key, 'x-service-trace-id': traceId } },
  });
  const client = new Client({ name: 'e2e-client', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

/** A member of the workspace, through an accepted invite; its id. */
async function member(stack: LogsStack, workspaceId: string): Promise<string> {
  const invite = await stack.admin.post('/user-invites', {
    email: `${randomUUID()}@example.com`,
    role: 'member',
    workspaces: [{ id: workspaceId, role: 'member' }],
  });
  const accepted = await callAs(stack, '', 'POST', '/user-invites/accept', { token: invite.accept_token });
  expect(accepted.status, JSON.stringify(accepted.body)).toBe(201);
  return accepted.body.id;
}

/** A raw MCP initialize POST through the gateway. */
function initialize(stack: LogsStack, key: string, slug = 'weather'): Promise<Response> {
  return fetch(mcpUrl(stack, slug), {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'x-service-api-key': key,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    }),
    signal: AbortSignal.timeout(10_000),
  });
}

/** Until the gateway's snapshot holds the server and key (it follows the control plane shortly). */
async function untilServed(world: World): Promise<void> {
  await pollUntil(
    async () => {
      const res = await initialize(world.stack, world.allowed);
      await res.body?.cancel();
      return res.status;
    },
    (status) => status === 200,
    { boundMs: 15_000, intervalMs: 50, what: 'MCP server in the gateway snapshot' },
  );
}

describe('MCP servers through the gateway', () => {
  test('the SDK client lists only enabled tools, calls one with the server credentials injected, and a disabled one is refused', async ({
    world,
  }) => {
    const { stack, upstream } = world;
    await untilServed(world);
    const traceId = randomUUID();
    const client = await connect(stack, world.allowed, traceId);
    try {
      const tools = await client.listTools();
      expect(tools.tools.map((t) => t.name).sort()).toEqual(['add', 'forecast']);

      const answer = await client.callTool({ name: 'forecast', arguments: { city: 'Lyon' } });
      expect(answer.content).toEqual([{ type: 'text', text: 'sunny in Lyon' }]);

      const before = upstream.calls.length;
      await expect(client.callTool({ name: 'delete_everything', arguments: {} })).rejects.toThrow(
        /delete_everything" is disabled/,
      );
      expect(upstream.calls.slice(before)).toEqual([]);
      expect(upstream.calls).not.toContain('delete_everything');
    } finally {
      await client.close();
    }
    // The server saw its own bearer on every request, never the caller's gateway key.
    expect(upstream.authorizations.length).toBeGreaterThan(0);
    expect(new Set(upstream.authorizations)).toEqual(new Set([`Bearer ${UPSTREAM_TOKEN}`]));
    expect(upstream.leakedGatewayKeys).toEqual([]);

    // The tool call is in the logs: server, tool, latency, status.
    const { value } = await pollUntil(
      () =>
        callAs(
          stack,
          stack.env.BOOTSTRAP_ADMIN_KEY as string,
          'GET',
          `/logs?trace_id=${traceId}&ai_service=mcp&provider=weather&page_size=50`,
        ),
      (reply) =>
        reply.status === 200 &&
        reply.body.data.filter((l: { mcp: { tool: string | null } | null }) => l.mcp?.tool).length >= 2,
      { boundMs: 20_000, intervalMs: 100, what: 'MCP calls in /v1/logs' },
    );
    const calls = value.body.data.filter((l: { mcp: { tool: string | null } | null }) => l.mcp?.tool);
    const forecast = calls.find((l: { mcp: { tool: string } }) => l.mcp.tool === 'forecast');
    expect(forecast).toMatchObject({
      ai_service: 'mcp',
      provider: 'weather',
      model: 'forecast',
      path: '/mcp/weather',
      status_code: 200,
      workspace_id: world.workspaceId,
      mcp: {
        server_id: world.serverId,
        server_slug: 'weather',
        rpc_method: 'tools/call',
        tool: 'forecast',
        rpc_error_code: null,
      },
      error: null,
    });
    expect(forecast.latency_ms).toBeGreaterThan(0);
    expect(forecast.tokens.total).toBe(0);
    const refused = calls.find((l: { mcp: { tool: string } }) => l.mcp.tool === 'delete_everything');
    expect(refused).toMatchObject({
      status_code: 200,
      mcp: { rpc_method: 'tools/call', rpc_error_code: -32602 },
      error: { code: 'mcp_capability_disabled' },
    });
    // No secret of the server in what the logs show.
    expect(JSON.stringify(value.body)).not.toContain(UPSTREAM_TOKEN);
  });

  test('keys outside the user access, without mcp.invoke, or of another workspace are refused in the envelope', async ({
    world,
  }) => {
    const { stack } = world;
    await untilServed(world);
    const cases: [string, number, string, string][] = [
      [world.outsider, 403, 'mcp_access_denied', 'permission_error'],
      [world.noScope, 403, 'insufficient_scope', 'permission_error'],
      [world.otherWorkspace, 404, 'mcp_server_not_found', 'not_found_error'],
    ];
    const before = world.upstream.authorizations.length;
    for (const [key, status, code, type] of cases) {
      const res = await initialize(stack, key);
      expect(res.status, code).toBe(status);
      expect(res.headers.get('x-service-gateway-error')).toBe('true');
      const body = (await res.json()) as { error: { code: string; type: string; message: string } };
      expect(body.error.code).toBe(code);
      expect(body.error.type).toBe(type);
    }
    // Unknown slugs are 404 too, and none of these reached the server.
    const unknown = await initialize(stack, world.allowed, 'nope');
    expect(unknown.status).toBe(404);
    expect(world.upstream.authorizations.length).toBe(before);
    // The SDK client sees the refusal as well.
    await expect(connect(stack, world.outsider, randomUUID())).rejects.toThrow(/403|mcp_access_denied/);
  });

  test('user access by user: the named user passes with its key and its token, another member is 403 with either', async ({
    world,
  }) => {
    const { stack } = world;
    const { admin } = stack;
    await untilServed(world);
    const [inside, outside] = [
      await member(stack, world.workspaceId),
      await member(stack, world.workspaceId),
    ];
    await admin.post('/mcp-servers', {
      name: 'Weather by user',
      slug: 'weather-users',
      workspace_id: world.workspaceId,
      mcp_integration_id: (await admin.expect(200, 'GET', `/mcp-servers/${world.serverId}`))
        .mcp_integration_id,
      user_access: { allow_all: false, user_ids: [inside] },
    });
    const userKey = async (userId: string) =>
      (
        await admin.post('/api-keys/workspace/user', {
          name: 'mcp user',
          workspace_id: world.workspaceId,
          user_id: userId,
          scopes: ['mcp.invoke'],
        })
      ).key as string;
    const token = (userId: string, scope = 'mcp.invoke') =>
      world.signToken({
        sub: userId,
        organisation_id: world.organisationId,
        workspace_id: world.workspaceId,
        role: 'member',
        scope,
      });
    const insideKey = await userKey(inside);
    const outsideKey = await userKey(outside);
    // The new server and keys reach the gateway with its snapshot.
    await pollUntil(
      async () => {
        const res = await initialize(stack, insideKey, 'weather-users');
        await res.body?.cancel();
        return res.status;
      },
      (status) => status === 200,
      { boundMs: 15_000, intervalMs: 50, what: 'the by-user server and keys in the gateway snapshot' },
    );
    const cases: [string, string, number, string | undefined][] = [
      ['key of the named user', insideKey, 200, undefined],
      ['token of the named user', token(inside), 200, undefined],
      ['key of another member', outsideKey, 403, 'mcp_access_denied'],
      ['token of another member', token(outside), 403, 'mcp_access_denied'],
      [
        'token of the named user without mcp.invoke',
        token(inside, 'completions.write'),
        403,
        'insufficient_scope',
      ],
    ];
    for (const [what, credential, status, code] of cases) {
      const res = await initialize(stack, credential, 'weather-users');
      expect(res.status, what).toBe(status);
      if (code === undefined) {
        expect(res.headers.get('mcp-session-id'), what).not.toBeNull();
        await res.body?.cancel();
      } else {
        const body = (await res.json()) as { error: { code: string; message: string } };
        expect([what, body.error.code]).toEqual([what, code]);
      }
    }
    // The SDK client connects with the named user's token and calls a tool.
    const client = new Client({ name: 'e2e-jwt', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(mcpUrl(stack, 'weather-users'), {
        requestInit: { headers: { 'x-service-api-key': token(inside) } },
      }),
    );
    try {
      const answer = await client.callTool({ name: 'add', arguments: { a: 1, b: 2 } });
      expect(answer.content).toEqual([{ type: 'text', text: '3' }]);
    } finally {
      await client.close();
    }
  });

  test('OAuth client credentials: the gateway exchanges them once and sends the access token', async ({
    world,
  }) => {
    const { stack } = world;
    const secret = `oauth-secret-${randomUUID()}`;
    const accessToken = `oauth-access-${randomUUID()}`;
    const tokens = await startTokenEndpoint({ clientId: 'gw-client', clientSecret: secret, accessToken });
    const oauthUpstream = await startMcpUpstream({ token: accessToken });
    try {
      const integration = await stack.admin.post('/mcp-integrations', {
        name: 'Weather oauth',
        url: oauthUpstream.url,
        auth: {
          type: 'oauth_client_credentials',
          client_id: 'gw-client',
          client_secret: secret,
          token_url: tokens.url,
        },
      });
      expect(integration.sync.status).toBe('ok');
      await stack.admin.post('/mcp-servers', {
        name: 'Weather oauth',
        slug: 'weather-oauth',
        workspace_id: world.workspaceId,
        mcp_integration_id: integration.id,
      });
      const exchangesBefore = tokens.exchanges;
      const seenBefore = oauthUpstream.authorizations.length;
      const url = new URL(`${stack.gatewayBase}/v1/mcp/weather-oauth`);
      const client = await pollUntil(
        async () => {
          const c = new Client({ name: 'e2e-oauth', version: '1.0.0' });
          const transport = new StreamableHTTPClientTransport(url, {
            requestInit: { headers: { 'x-service-api-key': world.allowed } },
          });
          return c.connect(transport).then(
            () => c,
            () => undefined,
          );
        },
        (c) => c !== undefined,
        { boundMs: 15_000, intervalMs: 50, what: 'oauth server in the gateway snapshot' },
      );
      try {
        const answer = await client.value?.callTool({ name: 'add', arguments: { a: 2, b: 40 } });
        expect(answer?.content).toEqual([{ type: 'text', text: '42' }]);
        await client.value?.callTool({ name: 'add', arguments: { a: 1, b: 1 } });
      } finally {
        await client.value?.close();
      }
      // Every request through the gateway carried the access token; one exchange served them all.
      const seen = oauthUpstream.authorizations.slice(seenBefore);
      expect(seen.length).toBeGreaterThan(2);
      expect(new Set(seen)).toEqual(new Set([`Bearer ${accessToken}`]));
      expect(tokens.exchanges - exchangesBefore).toBe(1);
      expect(oauthUpstream.leakedGatewayKeys).toEqual([]);
    } finally {
      await oauthUpstream.close();
      await tokens.close();
    }
  });

  test('rate limits apply to MCP requests', async ({ world }) => {
    const { stack } = world;
    await untilServed(world);
    // 3 a minute: within at most two windows' worth of requests one is refused.
    const statuses: number[] = [];
    for (let n = 0; n < 7 && !statuses.includes(429); n++) {
      const res = await initialize(stack, world.limited);
      statuses.push(res.status);
      if (res.status === 429) {
        const body = (await res.json()) as { error: { code: string } };
        expect(body.error.code).toBe('api_key_rate_limited');
        expect(res.headers.get('retry-after')).not.toBeNull();
      } else await res.body?.cancel();
    }
    expect(statuses[0]).toBe(200);
    expect(statuses).toContain(429);
  });
});
