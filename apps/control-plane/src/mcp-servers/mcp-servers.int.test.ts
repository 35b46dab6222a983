// MCP integrations and servers end to end in the control plane: credentials sealed and masked, the
// sync against a real MCP server (SDK) on create and on schedule, failures recorded, capabilities and
// user access, and what gateways receive (change events and the snapshot).

import { createDatabase } from '@aigw/db';
import { AuditOutcome, EntityKind, McpAuthType } from '@aigw/proto';
import { createLogger } from '@aigw/runtime';
import { parseMasterKey } from '@aigw/secret-box';
import {
  type McpUpstream,
  startMcpUpstream,
  startTokenEndpoint,
  UPSTREAM_INFO,
} from '@aigw/testkit/mcp-server';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { MASTER_KEY, test } from '../../test/harness.js';
import { auditEvents } from '../../test/outbox-rows.js';
import { readSnapshot, snapshotEntities } from '../../test/snapshot-client.js';
import type { ControlDatabase } from '../db/schema.js';
import {
  entityChanges,
  expectError,
  expectMasked,
  workspace,
} from '../integrations/integrations.test-support.js';
import { createMcpSyncScheduler } from '../mcp-integrations/mcp-sync-scheduler.js';
import { MCP_TOKEN, mcpIntegration, mcpServer } from './mcp.test-support.js';

let upstream: McpUpstream;
beforeAll(async () => {
  upstream = await startMcpUpstream({ token: MCP_TOKEN });
});
afterAll(() => upstream.close());

describe('MCP integrations and servers', () => {
  test('an integration stores its bearer sealed, shows it masked, and syncs the server with it', async ({
    cp,
    pg,
  }) => {
    const seen = upstream.authorizations.length;
    const created = await mcpIntegration(cp, upstream.url, {
      name: 'Weather bearer',
      tags: { team: 'core' },
    });
    expectMasked(created, MCP_TOKEN);
    expect(created).toMatchObject({
      object: 'mcp-integration',
      url: upstream.url,
      transport: 'streamable_http',
      auth: { type: 'bearer' },
      tags: { team: 'core' },
      sync: { status: 'ok', error: null },
    });
    // The sync connected with the stored token.
    expect(upstream.authorizations.slice(seen)).toContain(`Bearer ${MCP_TOKEN}`);
    expect(upstream.authorizations.slice(seen).every((a) => a === `Bearer ${MCP_TOKEN}`)).toBe(true);

    const listed = await cp.call('get', '/mcp-integrations?tags=team:core');
    expect(listed.body.data.map((i: { id: string }) => i.id)).toEqual([created.id]);
    expectMasked(listed.body, MCP_TOKEN);

    const [change] = await entityChanges(pg.pool, created.id, EntityKind.MCP_INTEGRATION);
    expect(change?.body?.$case).toBe('mcpIntegration');
    const body = change?.body?.$case === 'mcpIntegration' ? change.body.value : undefined;
    expect(body?.authType).toBe(McpAuthType.BEARER);
    expect(body?.url).toBe(upstream.url);
    expect(Buffer.from(body?.encryptedCredentials ?? []).includes(Buffer.from(MCP_TOKEN))).toBe(false);
    const outbox = await pg.pool.query<{ payload: Buffer }>('select payload from control.outbox');
    for (const row of outbox.rows) expect(row.payload.includes(Buffer.from(MCP_TOKEN))).toBe(false);
  });

  test('OAuth client credentials: the sync exchanges them for a token and sends that, secrets masked', async ({
    cp,
  }) => {
    const secret = 'oauth-client-secret-0123456789-abcd';
    const accessToken = 'oauth-access-token-for-sync';
    const tokens = await startTokenEndpoint({ clientId: 'aigw', clientSecret: secret, accessToken });
    const oauthUpstream = await startMcpUpstream({ token: accessToken });
    try {
      const res = await cp.call('post', '/mcp-integrations', {
        body: {
          name: 'Weather oauth',
          url: oauthUpstream.url,
          auth: {
            type: 'oauth_client_credentials',
            client_id: 'aigw',
            client_secret: secret,
            token_url: tokens.url,
            scope: 'mcp',
          },
        },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body.sync).toMatchObject({ status: 'ok', error: null });
      expect(res.body.auth).toEqual({
        type: 'oauth_client_credentials',
        client_id: 'aigw',
        client_secret: `****${secret.slice(-4)}`,
        token_url: tokens.url,
        scope: 'mcp',
      });
      expect(tokens.exchanges).toBeGreaterThanOrEqual(1);
      expect(new Set(oauthUpstream.authorizations)).toEqual(new Set([`Bearer ${accessToken}`]));

      // A wrong secret: the token endpoint refuses, the sync says so.
      const wrong = await cp.call('put', `/mcp-integrations/${res.body.id}`, {
        body: {
          auth: {
            type: 'oauth_client_credentials',
            client_id: 'aigw',
            client_secret: 'not-the-secret-xyz',
            token_url: tokens.url,
          },
        },
      });
      expect(wrong.status).toBe(200);
      expect(wrong.body.sync.status).toBe('error');
      expect(wrong.body.sync.error).toContain('401');
    } finally {
      await oauthUpstream.close();
      await tokens.close();
    }
  });

  test('the sync never calls a cloud metadata address (the control plane would hand out its own credentials)', async ({
    cp,
  }) => {
    for (const [name, url, auth] of [
      ['Metadata', 'http://169.254.169.254/mcp', { type: 'bearer', token: MCP_TOKEN }],
      [
        'Metadata token',
        'http://127.0.0.1:9/mcp',
        {
          type: 'oauth_client_credentials',
          client_id: 'a',
          client_secret: 's',
          token_url: 'http://169.254.169.254/token',
        },
      ],
    ] as const) {
      const created = await mcpIntegration(cp, url, { name, auth });
      expect(created.sync.status).toBe('error');
      expect(created.sync.error).toContain('169.254.169.254');
      expect(created.sync.error).toContain('link-local');
    }
  });

  test('GET /mcp-servers/:id/metadata shows what the server said about itself', async ({ cp }) => {
    const ws = await workspace(cp, 'Meta');
    const integration = await mcpIntegration(cp, upstream.url, { name: 'Weather meta' });
    const server = await mcpServer(cp, ws, integration.id, { slug: 'weather' });
    const res = await cp.call('get', `/mcp-servers/${server.id}/metadata`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      object: 'mcp-server-metadata',
      mcp_server_id: server.id,
      title: UPSTREAM_INFO.title,
      description: UPSTREAM_INFO.description,
      icons: UPSTREAM_INFO.icons,
      server_name: UPSTREAM_INFO.name,
      server_version: UPSTREAM_INFO.version,
      website_url: UPSTREAM_INFO.websiteUrl,
      instructions: 'Ask for a city.',
      counts: { tools: 3, resources: 1, prompts: 1 },
      sync: { status: 'ok', error: null },
    });
    expect(res.body.protocol_version).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(res.body.sync.last_synced_at).not.toBeNull();
    // By slug, naming the workspace.
    const bySlug = await cp.call('get', `/mcp-servers/weather/metadata?workspace_id=${ws.slug}`);
    expect(bySlug.body.mcp_server_id).toBe(server.id);
  });

  test('a server that cannot be reached is recorded as a sync error; the change is still made', async ({
    cp,
  }) => {
    const ws = await workspace(cp, 'Down');
    const wrong = await cp.call('post', '/mcp-integrations', {
      body: {
        name: 'Wrong token',
        url: upstream.url,
        auth: { type: 'bearer', token: 'not-the-token-at-all' },
      },
    });
    expect(wrong.status).toBe(201);
    expect(wrong.body.sync.status).toBe('error');
    expect(wrong.body.sync.error).toMatch(/401/);
    expect(JSON.stringify(wrong.body)).not.toContain('not-the-token-at-all');

    const dead = await mcpIntegration(cp, 'http://127.0.0.1:1/mcp', { name: 'Dead' });
    expect(dead.sync.status).toBe('error');
    const server = await mcpServer(cp, ws, dead.id);
    const meta = await cp.call('get', `/mcp-servers/${server.id}/metadata`);
    expect(meta.body).toMatchObject({ title: null, server_name: null, sync: { status: 'error' } });
    expect(meta.body.sync.error).not.toBe('');
  });

  test('the schedule re-syncs due integrations and records a server gone away without failing', async ({
    cp,
    pg,
  }) => {
    const gone = await startMcpUpstream({ token: MCP_TOKEN });
    const integration = await mcpIntegration(cp, gone.url, { name: 'Goes away' });
    expect(integration.sync.status).toBe('ok');
    await gone.close();
    const database = createDatabase<ControlDatabase>({
      url: pg.url,
      schema: 'control',
      applicationName: 'mcp-sync-test',
    });
    const scheduler = createMcpSyncScheduler({
      db: database.db,
      masterKey: parseMasterKey(MASTER_KEY),
      log: createLogger({ app: 'test', level: 'silent' }),
      intervalMs: 1000,
    });
    try {
      // Due once its last attempt is older than the interval.
      await pg.pool.query(
        `update control.mcp_integration_sync set attempted_at = now() - interval '1 hour' where mcp_integration_id = $1`,
        [integration.id],
      );
      await scheduler.tick();
    } finally {
      await scheduler.stop();
      await database.close();
    }
    const after = await cp.call('get', `/mcp-integrations/${integration.id}`);
    expect(after.body.sync.status).toBe('error');
    expect(after.body.sync.last_synced_at).not.toBeNull();
  });

  test('capabilities disable tools, and gateways get the disabled names', async ({ cp, pg }) => {
    const ws = await workspace(cp, 'Caps');
    const integration = await mcpIntegration(cp, upstream.url, { name: 'Weather caps' });
    const server = await mcpServer(cp, ws, integration.id, {
      capabilities: [{ type: 'tool', name: 'delete_everything', enabled: false }],
    });
    const caps = await cp.call('get', `/mcp-servers/${server.id}/capabilities`);
    expect(caps.status).toBe(200);
    const tools = caps.body.data.filter((c: { type: string }) => c.type === 'tool');
    expect(tools.map((t: { name: string; enabled: boolean }) => [t.name, t.enabled]).sort()).toEqual([
      ['add', true],
      ['delete_everything', false],
      ['forecast', true],
    ]);
    const put = await cp.call('put', `/mcp-servers/${server.id}/capabilities`, {
      body: {
        capabilities: [
          { type: 'tool', name: 'add', enabled: false },
          { type: 'tool', name: 'delete_everything', enabled: true },
          { type: 'prompt', name: 'greet', enabled: false },
        ],
      },
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body.disabled).toEqual({ tools: ['add'], resources: [], prompts: ['greet'] });
    const changes = await entityChanges(pg.pool, server.id, EntityKind.MCP_SERVER);
    expect(changes.map((c) => c.version)).toEqual([1, 2]);
    const last = changes.at(-1)?.body;
    expect(last?.$case === 'mcpServer' ? last.value.capabilities : undefined).toEqual({
      disabledTools: ['add'],
      disabledResources: [],
      disabledPrompts: ['greet'],
    });
    expectError(
      await cp.call('put', `/mcp-servers/${server.id}/capabilities`, {
        body: { capabilities: [{ type: 'widget', name: 'x', enabled: false }] },
      }),
      400,
      'AB01',
    );
  });

  test('user access names users and keys of the workspace only, and travels in the snapshot', async ({
    cp,
  }) => {
    const ws = await workspace(cp, 'Access');
    const other = await workspace(cp, 'Access other');
    const integration = await mcpIntegration(cp, upstream.url, { name: 'Weather access' });
    const server = await mcpServer(cp, ws, integration.id);
    expect((await cp.call('get', `/mcp-servers/${server.id}/user-access`)).body).toMatchObject({
      allow_all: true,
      user_ids: [],
      api_key_ids: [],
    });
    const key = await cp.call('post', '/api-keys/workspace/service', {
      body: { name: 'k', workspace_id: ws.id, scopes: ['mcp.invoke'] },
    });
    const otherKey = await cp.call('post', '/api-keys/workspace/service', {
      body: { name: 'k', workspace_id: other.id, scopes: ['mcp.invoke'] },
    });
    expectError(
      await cp.call('put', `/mcp-servers/${server.id}/user-access`, {
        body: { allow_all: false, api_key_ids: [otherKey.body.id] },
      }),
      404,
      'AB02',
      'body.api_key_ids',
    );
    const put = await cp.call('put', `/mcp-servers/${server.id}/user-access`, {
      body: { allow_all: false, api_key_ids: [key.body.id, key.body.id] },
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body).toMatchObject({ allow_all: false, user_ids: [], api_key_ids: [key.body.id] });

    const entities = snapshotEntities(await readSnapshot(cp.app.ports.grpc));
    const inSnapshot = entities.find((e) => e.kind === EntityKind.MCP_SERVER && e.id === server.id);
    expect(inSnapshot?.workspaceId).toBe(ws.id);
    const body = inSnapshot?.body?.$case === 'mcpServer' ? inSnapshot.body.value : undefined;
    expect(body?.mcpIntegrationId).toBe(integration.id);
    expect(body?.userAccess).toEqual({ allowAll: false, userIds: [], apiKeyIds: [key.body.id] });
    expect(entities.some((e) => e.kind === EntityKind.MCP_INTEGRATION && e.id === integration.id)).toBe(true);
  });

  test('slugs are unique per workspace, integrations in use cannot be deleted, deletes leave tombstones', async ({
    cp,
    pg,
  }) => {
    const ws = await workspace(cp, 'Slugs');
    const integration = await mcpIntegration(cp, upstream.url, { name: 'Weather slugs' });
    const first = await mcpServer(cp, ws, integration.id, { slug: 'tools' });
    expectError(
      await cp.call('post', '/mcp-servers', {
        body: { name: 'Again', slug: 'tools', workspace_id: ws.id, mcp_integration_id: integration.id },
      }),
      409,
      'AB07',
      'body.slug',
    );
    expectError(
      await cp.call('post', '/mcp-servers', {
        body: {
          name: 'Nowhere',
          workspace_id: ws.id,
          mcp_integration_id: '00000000-0000-4000-8000-000000000000',
        },
      }),
      404,
      'AB02',
      'body.mcp_integration_id',
    );
    expectError(await cp.call('delete', `/mcp-integrations/${integration.id}`), 409, 'AB07');
    expect((await cp.call('delete', `/mcp-servers/${first.id}`)).status).toBe(200);
    expect((await cp.call('delete', `/mcp-integrations/${integration.id}`)).status).toBe(200);
    expect((await entityChanges(pg.pool, first.id, EntityKind.MCP_SERVER)).at(-1)?.tombstone).toBe(true);
    expect((await entityChanges(pg.pool, integration.id, EntityKind.MCP_INTEGRATION)).at(-1)?.tombstone).toBe(
      true,
    );
    expectError(await cp.call('get', `/mcp-servers/${first.id}`), 404, 'AB08');

    // Audited in the same commits (the refused delete as a failure), the bearer never in a record.
    const audit = await auditEvents(pg.pool);
    const of = (id: string) => audit.filter((a) => a.resourceId === id).map((a) => [a.action, a.outcome]);
    expect(of(first.id)).toEqual([
      ['mcp_servers.create', AuditOutcome.SUCCESS],
      ['mcp_servers.delete', AuditOutcome.SUCCESS],
    ]);
    expect(of(integration.id)).toEqual([
      ['mcp_integrations.create', AuditOutcome.SUCCESS],
      ['mcp_integrations.delete', AuditOutcome.FAILURE],
      ['mcp_integrations.delete', AuditOutcome.SUCCESS],
    ]);
    expect(JSON.stringify(audit)).not.toContain(MCP_TOKEN);
  });

  test('bad input is a 400 naming the field', async ({ cp }) => {
    const bad: [Record<string, unknown>, string][] = [
      [{ name: 'x', url: 'ftp://example.com/mcp' }, 'body.url'],
      [{ name: 'x', url: 'http://user:pw@example.com/mcp' }, 'body.url'],
      [{ name: 'x', url: 'http://example.com/mcp', transport: 'stdio' }, 'body.transport'],
      [{ name: 'x', url: 'http://example.com/mcp', auth: { type: 'bearer' } }, 'body.auth.token'],
      [
        {
          name: 'x',
          url: 'http://example.com/mcp',
          auth: { type: 'oauth_client_credentials', client_id: 'a', client_secret: 'b' },
        },
        'body.auth.token_url',
      ],
    ];
    for (const [body, param] of bad) {
      expectError(await cp.call('post', '/mcp-integrations', { body }), 400, 'AB01', param);
    }
  });
});
