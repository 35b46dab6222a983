// Runs every curl example of docs/admin-api/mcp.md, in page order, against a real stack and a real
// MCP server (SDK): each must answer 2xx with JSON, so the page cannot drift from the API.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { test } from '@aigw/testkit';
import { describe, expect } from 'vitest';
import { pollUntil } from './enforcement-client.test-support.js';
import { startLogsStack } from './logs-stack.test-support.js';
import { startMcpUpstream } from './mcp-upstream.test-support.js';

const PAGE = new URL('../../docs/admin-api/mcp.md', import.meta.url);
const run = promisify(execFile);

/** The page's `sh` blocks that call curl (the `export` block only names the variables). */
function examples(markdown: string): string[] {
  return [...markdown.matchAll(/```sh\n([\s\S]*?)```/g)]
    .map((m) => m[1] as string)
    .filter((block) => block.includes('curl '));
}

interface Answer {
  readonly status: number;
  readonly body: unknown;
}

/** Runs one block with bash; each curl's answer is its body and status (curl wrapped to print it). */
async function runBlock(block: string, env: Record<string, string>): Promise<Answer[]> {
  const wrapper = `curl() { command curl -sS -w '\\n@@status=%{http_code}@@\\n' "$@"; }\nset -euo pipefail\n`;
  const { stdout } = await run('bash', ['-c', wrapper + block], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env },
    timeout: 30_000,
  });
  return [...stdout.matchAll(/([\s\S]*?)\n@@status=(\d{3})@@\n/g)].map((m) => {
    const text = (m[1] as string).trim();
    let body: unknown = text;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      // an SSE answer (the gateway example) stays text
    }
    return { status: Number(m[2]), body };
  });
}

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
      const blocks = examples(readFileSync(PAGE, 'utf8'));
      expect(blocks.length).toBeGreaterThanOrEqual(10);
      const seen: Answer[] = [];
      for (const block of blocks) {
        // The gateway follows the control plane within moments: its example is retried until then.
        const viaGateway = block.includes('$GW');
        const { value } = await pollUntil(
          () => runBlock(block, env),
          (answers) => !viaGateway || answers.every((a) => a.status === 200),
          { boundMs: 15_000, intervalMs: 100, what: 'the gateway example' },
        );
        expect(value.length, block).toBeGreaterThan(0);
        for (const answer of value) {
          expect(answer.status, `${block}\n${JSON.stringify(answer.body)}`).toBeGreaterThanOrEqual(200);
          expect(answer.status, `${block}\n${JSON.stringify(answer.body)}`).toBeLessThan(300);
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
