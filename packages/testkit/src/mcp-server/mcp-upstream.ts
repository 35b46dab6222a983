// A real MCP server for tests, built with the official SDK (McpServer + Streamable HTTP) on a
// loopback port: three tools, one resource, one prompt, and a bearer token it insists on (every
// Authorization header it received is kept, so tests can assert what was injected).
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

export interface McpUpstream {
  readonly url: string;
  /** Authorization headers received, in order ('' when none was sent). */
  readonly authorizations: string[];
  /** Tool names called. */
  readonly calls: string[];
  /** Gateway credentials that reached the server (`x-service-api-key` values): must stay empty. */
  readonly leakedGatewayKeys: string[];
  close(): Promise<void>;
}

export const UPSTREAM_INFO = {
  name: 'test-weather-server',
  version: '2.3.4',
  title: 'Weather (test)',
  description: 'Forecasts for tests',
  icons: [{ src: 'https://example.com/icon.png', mimeType: 'image/png', sizes: ['48x48'] }],
  websiteUrl: 'https://example.com/weather',
};

function build(calls: string[]): McpServer {
  const server = new McpServer(UPSTREAM_INFO, { instructions: 'Ask for a city.' });
  server.registerTool(
    'forecast',
    { title: 'Forecast', description: 'Weather forecast for a city', inputSchema: { city: z.string() } },
    async ({ city }) => {
      calls.push('forecast');
      return { content: [{ type: 'text', text: `sunny in ${city}` }] };
    },
  );
  server.registerTool(
    'add',
    { description: 'Adds two numbers', inputSchema: { a: z.number(), b: z.number() } },
    async ({ a, b }) => {
      calls.push('add');
      return { content: [{ type: 'text', text: String(a + b) }] };
    },
  );
  server.registerTool('delete_everything', { description: 'Dangerous' }, async () => {
    calls.push('delete_everything');
    return { content: [{ type: 'text', text: 'deleted' }] };
  });
  server.registerResource('readme', 'docs://readme', { description: 'Read me' }, async (uri) => ({
    contents: [{ uri: uri.href, text: 'hello' }],
  }));
  server.registerPrompt('greet', { description: 'Greets' }, () => ({
    messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }],
  }));
  return server;
}

/** Starts the server; `token`: the bearer it requires (undefined: none required). */
export async function startMcpUpstream(options: { token?: string } = {}): Promise<McpUpstream> {
  const authorizations: string[] = [];
  const calls: string[] = [];
  const leakedGatewayKeys: string[] = [];
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const http: Server = createServer((req, res) => {
    void (async () => {
      const auth = req.headers.authorization ?? '';
      authorizations.push(auth);
      const gatewayKey = req.headers['x-service-api-key'];
      if (typeof gatewayKey === 'string') leakedGatewayKeys.push(gatewayKey);
      if (options.token !== undefined && auth !== `Bearer ${options.token}`) {
        res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
        return;
      }
      const sessionId = req.headers['mcp-session-id'];
      const existing = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
      if (existing) return existing.handleRequest(req, res);
      if (req.method !== 'POST') {
        res.writeHead(400).end();
        return;
      }
      const body = await readJson(req);
      if (!isInitializeRequest(body)) {
        res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"no session"}');
        return;
      }
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => void sessions.set(id, transport),
      });
      transport.onclose = () => {
        if (transport.sessionId) sessions.delete(transport.sessionId);
      };
      await build(calls).connect(transport);
      await transport.handleRequest(req, res, body);
    })().catch((err) => {
      if (!res.headersSent) res.writeHead(500).end(String(err));
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    authorizations,
    calls,
    leakedGatewayKeys,
    async close() {
      for (const transport of sessions.values()) await transport.close().catch(() => undefined);
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

export interface TokenEndpoint {
  readonly url: string;
  /** Client credential exchanges answered (good ones only). */
  readonly exchanges: number;
  close(): Promise<void>;
}

/** An OAuth 2.0 token endpoint (RFC 6749 4.4) that knows one client and hands out `accessToken`. */
export async function startTokenEndpoint(client: {
  clientId: string;
  clientSecret: string;
  accessToken: string;
}): Promise<TokenEndpoint> {
  let exchanges = 0;
  const expected = `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64')}`;
  const http = createServer((req, res) => {
    void readForm(req).then((form) => {
      if (req.headers.authorization !== expected || form.get('grant_type') !== 'client_credentials') {
        res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"invalid_client"}');
        return;
      }
      exchanges += 1;
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ access_token: client.accessToken, token_type: 'Bearer', expires_in: 3600 }));
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/oauth/token`,
    get exchanges() {
      return exchanges;
    },
    async close() {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}
