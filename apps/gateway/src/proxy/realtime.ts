// Realtime over WebSocket: `GET /v1/realtime` (any `/v1/*` upgrade) is proxied both ways with
// http-proxy after the same provider and custom-host checks as HTTP requests.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from '@aigw/runtime';
import httpProxy from 'http-proxy';
import type { GatewayConfig } from '../config.js';
import { readCloudOptions } from '../providers/cloud-headers.js';
import { parseServiceHeaders } from '../request/service-headers.js';
import { createPinnedAgent } from '../ssrf/index.js';
import { CustomHostCache } from './custom-host-cache.js';
import { clientHeadersForProvider, upstreamHeaders } from './headers.js';
import { bearer, resolveProvider } from './target.js';

const PREFIX = '/v1';

function reject(socket: Duplex, status: number, message: string): void {
  const body = JSON.stringify({ error: { message, type: 'invalid_request_error', code: null, param: null } });
  socket.end(
    `HTTP/1.1 ${status} ${status === 400 ? 'Bad Request' : 'Bad Gateway'}\r\ncontent-type: application/json\r\n` +
      `x-service-gateway-error: true\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

export function realtimeUpgrade(config: GatewayConfig, log: Logger) {
  const proxy = httpProxy.createProxyServer({ ws: true, xfwd: false, ignorePath: true, changeOrigin: false });
  proxy.on('error', (err, _req, socket) => {
    log.warn({ err: err.message }, 'realtime proxy error');
    if (socket && 'destroy' in socket) (socket as Duplex).destroy();
  });

  const customHosts = new CustomHostCache(config.CUSTOM_HOST_ALLOWLIST);

  return async (req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> => {
    const url = req.url ?? '/';
    if (!url.startsWith(`${PREFIX}/`)) {
      reject(socket, 400, 'WebSocket upgrades are served under /v1');
      return;
    }
    try {
      const service = parseServiceHeaders(req.headers);
      const provider = resolveProvider(service.provider, service.customHost !== undefined);
      const checked =
        service.customHost === undefined ? undefined : await customHosts.check(service.customHost);
      const [path = '/', query = ''] = url.slice(PREFIX.length).split('?', 2) as [string, string?];
      const target = provider.buildTarget({
        method: 'GET',
        path,
        search: query ? `?${query}` : '',
        headers: req.headers,
        token: bearer(req.headers.authorization),
        cloud: readCloudOptions(req.headers),
        customHost: checked?.url,
      });
      const wsUrl = new URL(target.url);
      wsUrl.protocol = wsUrl.protocol === 'https:' ? 'wss:' : 'ws:';
      // http-proxy copies req.headers upstream: replace them with the provider's view.
      const headers = upstreamHeaders(clientHeadersForProvider(req.headers), target, service.forwardHeaders);
      req.headers = { ...headers, connection: 'Upgrade', upgrade: 'websocket' } as IncomingMessage['headers'];
      // A custom host is reached only at the address that was checked (no DNS rebinding).
      proxy.ws(req, socket, head, {
        target: wsUrl.toString(),
        ...(checked ? { agent: createPinnedAgent(checked.target) } : {}),
      });
    } catch (err) {
      reject(socket, 400, err instanceof Error ? err.message : 'bad realtime request');
    }
  };
}
