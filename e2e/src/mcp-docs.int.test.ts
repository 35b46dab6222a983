// Runs every curl example of docs/admin-api/mcp.md, in page order, against a real stack and a real
// MCP server (SDK): each must answer 2xx with JSON, so the page cannot drift from the API.
import { randomUUID } from 'node:crypto';
import { test } from '@aigw/testkit';
import { startMcpUpstream } from '@aigw/testkit/mcp-server';
import { describe, expect } from 'vitest';
import { type Answer, docExamples, runAnswers } from './doc-examples.test-support.js';
import { pollUntil } from './enforcement-client.test-support.js';
import { startLogsStack } from './logs-stack.test-support.js';

const PAGE = new URL('../../docs/admin-api/mcp.md', import.meta.url);

describe('docs/admin-api/mcp.md', () => {
  test('every curl example answers 2xx, in page order', async ({ pg, nats, redis }) => {
    const token = `docs-${randomUUID()}`;
    const upstream = await startMcpUpstream({ token });
    const stack = await startLogsStack({ pg, nats }, { REDIS_URL: redis.url });
    try {
      const ws = await stack.admin.post('/workspaces', { name: 'Docs research' });
      const key = await stack.admin.post('/api-keys/workspace/service', {
        name: 'docs',
        workspace_id: ws.id,
        scopes: ['mcp.invoke'],
      });
      const env = {
        CP: `${stack.controlPlaneBase}/v1`,
        KEY: stack.env.BOOTSTRAP_ADMIN_KEY as string,
        WS: ws.slug,
        MCP_URL: upstream.url,
        MCP_TOKEN: token,
        GW: `${stack.gatewayBase}/v1`,
        MCP_KEY: key.key,
        MCP_KEY_ID: key.id,
      };
      const blocks = docExamples(PAGE);
      expect(blocks.length).toBeGreaterThanOrEqual(10);
      const seen: Answer[] = [];
      for (const block of blocks) {
        // The gateway follows the control plane within moments: its example is retried until then.
        const viaGateway = block.script.includes('$GW');
        const { value } = await pollUntil(
          () => runAnswers(block, env),
          (answers) => !viaGateway || answers.every((a) => a.status === 200),
          { boundMs: 15_000, intervalMs: 100, what: 'the gateway example' },
        );
        expect(value.length, block.script).toBeGreaterThan(0);
        for (const answer of value) {
          expect(answer.status, `${block.script}\n${JSON.stringify(answer.body)}`).toBeGreaterThanOrEqual(
            200,
          );
          expect(answer.status, `${block.script}\n${JSON.stringify(answer.body)}`).toBeLessThan(300);
        }
        seen.push(...value);
      }
      const created = seen[0]?.body as { object: string; sync: { status: string }; auth: unknown };
      expect(created.object).toBe('mcp-integration');
      expect(created.sync.status).toBe('ok');
      expect(JSON.stringify(seen.map((a) => a.body))).not.toContain(token);
      const metadata = seen.find((a) => (a.body as { object?: string })?.object === 'mcp-server-metadata');
      expect(metadata?.body).toMatchObject({ server_name: 'test-weather-server', sync: { status: 'ok' } });
      // The gateway example reached the server with the integration's bearer, not the caller's key.
      expect(upstream.authorizations).toContain(`Bearer ${token}`);
      expect(upstream.leakedGatewayKeys).toEqual([]);
      expect((await stack.admin.call('GET', '/mcp-integrations/weather')).status).toBe(404);
    } finally {
      await stack.close();
      await upstream.close();
    }
  });
});
