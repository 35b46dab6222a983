// Who may touch MCP servers and integrations: tenant isolation between workspaces (404, never 403),
// the user access of a server (a member outside it gets 403), managers for writes, organisation-level
// callers only for integrations, and one scope per route.
import { EntityKind } from '@aigw/proto';
import { type McpUpstream, startMcpUpstream } from '@aigw/testkit/mcp-server';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { test } from '../../test/harness.js';
import { memberKey } from '../configs/configs.test-support.js';
import {
  adminKeyWithout,
  entityChanges,
  expectError,
  serviceKey,
  workspace,
} from '../integrations/integrations.test-support.js';
import { MCP_SERVER_SCOPES, MCP_TOKEN, mcpIntegration, mcpServer } from './mcp.test-support.js';

let upstream: McpUpstream;
beforeAll(async () => {
  upstream = await startMcpUpstream({ token: MCP_TOKEN });
});
afterAll(() => upstream.close());

const SUBROUTES = ['', '/metadata', '/capabilities', '/user-access'];

describe('MCP access', () => {
  test('a key of another workspace never sees or changes a server: 404 AB08', async ({ cp, pg }) => {
    const a = await workspace(cp, 'Iso A');
    const b = await workspace(cp, 'Iso B');
    const integration = await mcpIntegration(cp, upstream.url, { name: 'Iso' });
    const theirs = await mcpServer(cp, b, integration.id, { slug: 'theirs' });
    const key = await serviceKey(cp, a.id, MCP_SERVER_SCOPES);

    for (const ref of [theirs.id, 'theirs']) {
      for (const sub of SUBROUTES) {
        expectError(await cp.call('get', `/mcp-servers/${ref}${sub}`, { key }), 404, 'AB08');
      }
      expectError(await cp.call('put', `/mcp-servers/${ref}`, { key, body: { name: 'x' } }), 404, 'AB08');
      expectError(
        await cp.call('put', `/mcp-servers/${ref}/capabilities`, {
          key,
          body: { capabilities: [{ type: 'tool', name: 'add', enabled: false }] },
        }),
        404,
        'AB08',
      );
      expectError(
        await cp.call('put', `/mcp-servers/${ref}/user-access`, { key, body: { allow_all: false } }),
        404,
        'AB08',
      );
      expectError(await cp.call('delete', `/mcp-servers/${ref}`, { key }), 404, 'AB08');
    }
    expectError(await cp.call('get', `/mcp-servers?workspace_id=${b.id}`, { key }), 404, 'AB08');
    expectError(
      await cp.call('post', '/mcp-servers', {
        key,
        body: { name: 'x', workspace_id: b.slug, mcp_integration_id: integration.id },
      }),
      404,
      'AB08',
    );
    const listed = await cp.call('get', '/mcp-servers?page_size=500&status=active,archived', { key });
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((s: { id: string }) => s.id)).not.toContain(theirs.id);
    expect((await entityChanges(pg.pool, theirs.id, EntityKind.MCP_SERVER)).map((e) => e.version)).toEqual([
      1,
    ]);
  });

  test('a member outside the server user access gets 403; one inside reads it; neither writes', async ({
    cp,
    pg,
  }) => {
    const ws = await workspace(cp, 'Users');
    const integration = await mcpIntegration(cp, upstream.url, { name: 'Users' });
    const open = await mcpServer(cp, ws, integration.id, { slug: 'open' });
    const closed = await mcpServer(cp, ws, integration.id, {
      slug: 'closed',
      user_access: { allow_all: false },
    });
    const outsider = await memberKey(pg.pool, ws.id, MCP_SERVER_SCOPES);
    for (const sub of SUBROUTES) {
      expectError(await cp.call('get', `/mcp-servers/${closed.id}${sub}`, { key: outsider }), 403, 'AB03');
      expect((await cp.call('get', `/mcp-servers/${open.id}${sub}`, { key: outsider })).status).toBe(200);
    }
    const listed = await cp.call('get', '/mcp-servers', { key: outsider });
    expect(listed.body.data.map((s: { slug: string }) => s.slug)).toEqual(['open']);
    expect(listed.body.total).toBe(1);

    // Naming the member's key lets it in.
    const keyId = (
      await pg.pool.query<{ id: string }>(
        `select id from control.api_keys where workspace_id = $1 order by created_at desc limit 1`,
        [ws.id],
      )
    ).rows[0]?.id;
    const put = await cp.call('put', `/mcp-servers/${closed.id}/user-access`, {
      body: { allow_all: false, api_key_ids: [keyId] },
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect((await cp.call('get', `/mcp-servers/${closed.id}/metadata`, { key: outsider })).status).toBe(200);
    expect((await cp.call('get', '/mcp-servers', { key: outsider })).body.total).toBe(2);

    // Escalation: a member cannot widen access, change capabilities, or create servers.
    expectError(
      await cp.call('put', `/mcp-servers/${closed.id}/user-access`, {
        key: outsider,
        body: { allow_all: true },
      }),
      403,
      'AB03',
    );
    expectError(
      await cp.call('put', `/mcp-servers/${closed.id}/capabilities`, {
        key: outsider,
        body: { capabilities: [{ type: 'tool', name: 'delete_everything', enabled: true }] },
      }),
      403,
      'AB03',
    );
    expectError(
      await cp.call('post', '/mcp-servers', {
        key: outsider,
        body: { name: 'mine', mcp_integration_id: integration.id },
      }),
      403,
      'AB03',
    );
    expect((await cp.call('get', `/mcp-servers/${closed.id}/user-access`)).body.allow_all).toBe(false);
  });

  test('MCP integrations are for organisation-level callers only', async ({ cp }) => {
    const ws = await workspace(cp, 'Org only');
    const integration = await mcpIntegration(cp, upstream.url, { name: 'Org only' });
    const key = await serviceKey(cp, ws.id, MCP_SERVER_SCOPES);
    expectError(await cp.call('get', '/mcp-integrations', { key }), 403, 'AB03');
    expectError(await cp.call('get', `/mcp-integrations/${integration.id}`, { key }), 403, 'AB03');
    expectError(
      await cp.call('post', '/mcp-integrations', { key, body: { name: 'x', url: upstream.url } }),
      403,
      'AB03',
    );
    // A workspace manager may still offer the organisation's integration to its own workspace.
    const res = await cp.call('post', '/mcp-servers', {
      key,
      body: { name: 'Mine', mcp_integration_id: integration.slug },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.workspace_id).toBe(ws.id);
  });

  test('each route needs its scope: 403 AB03', async ({ cp }) => {
    const ws = await workspace(cp, 'Scopes');
    const integration = await mcpIntegration(cp, upstream.url, { name: 'Scopes' });
    const server = await mcpServer(cp, ws, integration.id);
    const calls: [string, string, string, unknown?][] = [
      ['mcp_integrations.create', 'post', '/mcp-integrations', { name: 'x', url: upstream.url }],
      ['mcp_integrations.list', 'get', '/mcp-integrations'],
      ['mcp_integrations.read', 'get', `/mcp-integrations/${integration.id}`],
      ['mcp_integrations.update', 'put', `/mcp-integrations/${integration.id}`, { name: 'x' }],
      ['mcp_integrations.delete', 'delete', `/mcp-integrations/${integration.id}`],
      [
        'mcp_servers.create',
        'post',
        '/mcp-servers',
        { name: 'x', workspace_id: ws.id, mcp_integration_id: integration.id },
      ],
      ['mcp_servers.list', 'get', '/mcp-servers'],
      ['mcp_servers.read', 'get', `/mcp-servers/${server.id}`],
      ['mcp_servers.read', 'get', `/mcp-servers/${server.id}/metadata`],
      ['mcp_servers.read', 'get', `/mcp-servers/${server.id}/capabilities`],
      ['mcp_servers.read', 'get', `/mcp-servers/${server.id}/user-access`],
      ['mcp_servers.update', 'put', `/mcp-servers/${server.id}`, { name: 'x' }],
      ['mcp_servers.update', 'put', `/mcp-servers/${server.id}/user-access`, { allow_all: false }],
      ['mcp_servers.delete', 'delete', `/mcp-servers/${server.id}`],
    ];
    for (const [scope, method, path, body] of calls) {
      const key = await adminKeyWithout(cp, [scope]);
      const res = await cp.call(method, path, { key, ...(body !== undefined ? { body } : {}) });
      expectError(res, 403, 'AB03');
      expect(res.body.error.message).toContain(scope);
    }
    expect((await cp.call('get', `/mcp-servers/${server.id}/user-access`)).body.allow_all).toBe(true);
  });
});
