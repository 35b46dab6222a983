// Test support for the MCP families: integrations and servers made through the admin API.
import { expect } from 'vitest';
import type { ControlPlaneFixture } from '../../test/harness.js';
import type { Ref } from '../integrations/integrations.test-support.js';

export const MCP_TOKEN = 'mcp-upstream-token-0123456789-wxyz';
export const MCP_SERVER_SCOPES = [
  'mcp_servers.create',
  'mcp_servers.read',
  'mcp_servers.list',
  'mcp_servers.update',
  'mcp_servers.delete',
];

/** An MCP integration with a bearer token (overridable); expects 201. */
export async function mcpIntegration(
  cp: ControlPlaneFixture,
  url: string,
  body: Record<string, unknown> = {},
): Promise<{ id: string; slug: string; sync: { status: string; error: string | null } }> {
  const res = await cp.call('post', '/mcp-integrations', {
    body: { name: 'Weather', url, auth: { type: 'bearer', token: MCP_TOKEN }, ...body },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

/** An MCP server of the integration in the workspace; expects 201. */
export async function mcpServer(
  cp: ControlPlaneFixture,
  ws: Ref,
  integrationId: string,
  body: Record<string, unknown> = {},
): Promise<{ id: string; slug: string }> {
  const res = await cp.call('post', '/mcp-servers', {
    body: { name: 'Weather', workspace_id: ws.id, mcp_integration_id: integrationId, ...body },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}
