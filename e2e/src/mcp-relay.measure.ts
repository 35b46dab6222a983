// The measurement behind docs/decisions.md "MCP: the gateway relays, it does not terminate": the same
// SDK client calls the same SDK server's tool directly, through the gateway's relay, and through an
// in-process proxy that terminates MCP with the SDK on both sides (Server in front, Client behind).
// Part of `pnpm bench` (e2e's bench script runs src/*.measure.ts with vitest.measure.config.ts).
// It asserts only that every path gives the same answer; the numbers are printed, never asserted.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from '@aigw/testkit';
import { startMcpUpstream } from '@aigw/testkit/mcp-server';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect } from 'vitest';
import { pollUntil } from './enforcement-client.test-support.js';
import { startLogsStack } from './logs-stack.test-support.js';

const CALLS = 400;
const TOKEN = `measure-${randomUUID()}`;

async function client(url: string, headers: Record<string, string> = {}): Promise<Client> {
  const c = new Client({ name: 'measure', version: '1' });
  await c.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return c;
}

/** Per-call latencies (ms) of CALLS sequential tools/call, after 50 warm-up calls. */
async function measure(c: Client): Promise<{ p50: number; p95: number; answers: Set<string> }> {
  const answers = new Set<string>();
  for (let i = 0; i < 50; i++) await c.callTool({ name: 'add', arguments: { a: i, b: 1 } });
  const times: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    const start = performance.now();
    const r = await c.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
    times.push(performance.now() - start);
    answers.add(JSON.stringify(r.content));
  }
  times.sort((a, b) => a - b);
  const at = (p: number) =>
    Number((times[Math.min(times.length - 1, Math.floor(p * times.length))] ?? 0).toFixed(3));
  return { p50: at(0.5), p95: at(0.95), answers };
}

/** MCP terminated with the SDK: a Server answering tools/list and tools/call through a Client. */
async function terminatingProxy(upstreamUrl: string) {
  const behind = await client(upstreamUrl, { authorization: `Bearer ${TOKEN}` });
  const http = createServer((req, res) => {
    const server = new Server({ name: 'proxy', version: '1' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, (r) => behind.listTools(r.params));
    server.setRequestHandler(CallToolRequestSchema, (r) => behind.callTool(r.params));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => void transport.close());
    void server.connect(transport).then(() => transport.handleRequest(req, res));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    close: async () => {
      await behind.close();
      http.closeAllConnections();
      await new Promise<void>((r) => http.close(() => r()));
    },
  };
}

describe('MCP relay against termination (measurement)', () => {
  test('the same answers by every path; latencies printed', async ({ pg, nats, redis }) => {
    const upstream = await startMcpUpstream({ token: TOKEN });
    const stack = await startLogsStack({ pg, nats }, { REDIS_URL: redis.url });
    const proxy = await terminatingProxy(upstream.url);
    try {
      const ws = await stack.admin.post('/workspaces', { name: 'Measure' });
      const key = await stack.admin.post('/api-keys/workspace/service', {
        name: 'm',
        workspace_id: ws.id,
        scopes: ['mcp.invoke'],
      });
      const integration = await stack.admin.post('/mcp-integrations', {
        name: 'Measure',
        url: upstream.url,
        auth: { type: 'bearer', token: TOKEN },
      });
      await stack.admin.post('/mcp-servers', {
        name: 'Measure',
        slug: 'measure',
        workspace_id: ws.id,
        mcp_integration_id: integration.id,
        capabilities: [{ type: 'tool', name: 'delete_everything', enabled: false }],
      });
      const viaGateway = `${stack.gatewayBase}/v1/mcp/measure`;
      await pollUntil(
        () =>
          client(viaGateway, { 'x-service-api-key': key.key }).then(
            (c) => c.close().then(() => true),
            () => false,
          ),
        (ok) => ok,
        { boundMs: 15_000, intervalMs: 50, what: 'server in the gateway snapshot' },
      );
      const results: Record<string, { p50: number; p95: number }> = {};
      for (const [name, url, headers] of [
        ['direct', upstream.url, { authorization: `Bearer ${TOKEN}` }],
        ['gateway relay', viaGateway, { 'x-service-api-key': key.key }],
        ['SDK-terminating proxy (no gateway stages)', proxy.url, {}],
      ] as const) {
        const c = await client(url, headers);
        try {
          const { p50, p95, answers } = await measure(c);
          expect([...answers]).toEqual([JSON.stringify([{ type: 'text', text: '5' }])]);
          results[name] = { p50, p95 };
        } finally {
          await c.close();
        }
      }
      console.log(
        `MCP tools/call latency over ${CALLS} sequential calls (ms):`,
        JSON.stringify(results, null, 2),
      );
    } finally {
      await proxy.close();
      await stack.close();
      await upstream.close();
    }
  }, 180_000);
});
