// Realtime over WebSocket: `GET /v1/realtime` (any `/v1/*` upgrade) is proxied both ways with
// http-proxy after the same checks as HTTP requests: with a control plane the API key (or JWT) and
// a managed provider or virtual key; the provider and custom host.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { AppError, type Logger } from '@aigw/runtime';
import httpProxy from 'http-proxy';
import { cloudFor, type ResolveAccess } from '../auth/index.js';
import type { GatewayConfig } from '../config.js';
import { gatewayError } from '../errors.js';
import { readCloudOptions } from '../providers/cloud-headers.js';
import { parseServiceHeaders } from '../request/service-headers.js';
import { createPinnedAgent } from '../ssrf/index.js';
import { CustomHostCache } from './custom-host-cache.js';
import { clientHeadersForProvider, upstreamHeaders } from './headers.js';
import { bearer, resolveProvider } from './target.js';

const PREFIX = '/v1';

const REASONS: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  500: 'Internal Server Error',
};

function reject(socket: Duplex, error: AppError): void {
  const body = JSON.stringify(error.toBody());
  const status = error.status;
  socket.end(
    `HTTP/1.1 ${status} ${REASONS[status] ?? 'Bad Gateway'}\r\ncontent-type: application/json\r\n` +
      `x-service-gateway-error: true\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

/** `resolveAccess`: control-plane mode, the same resolver as passThrough's `access`. */
export function realtimeUpgrade(config: GatewayConfig, log: Logger, resolveAccess?: ResolveAccess) {
  const proxy = httpProxy.createProxyServer({ ws: true, xfwd: false, ignorePath: true, changeOrigin: false });
  proxy.on('error', (err, _req, socket) => {
    log.warn({ err: err.message }, 'realtime proxy error');
    if (socket && 'destroy' in socket) (socket as Duplex).destroy();
  });

  const customHosts = new CustomHostCache(config.CUSTOM_HOST_ALLOWLIST);

  return async (req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> => {
    const url = req.url ?? '/';
    if (!url.startsWith(`${PREFIX}/`)) {
      reject(socket, gatewayError('bad_request', 'WebSocket upgrades are served under /v1'));
      return;
    }
    try {
      const service = parseServiceHeaders(req.headers);
      const access = resolveAccess ? await resolveAccess(req.headers, service) : undefined;
      if (access?.route.kind === 'config') {
        throw gatewayError(
          'bad_request',
          'configs do not apply to realtime sessions: name a provider instead',
          {
            param: 'x-service-config',
          },
        );
      }
      const managed = access?.route.kind === 'managed' ? access.route.target : undefined;
      const provider = managed
        ? managed.provider
        : resolveProvider(service.provider, service.customHost !== undefined);
      const host = managed ? managed.options.customHost : service.customHost;
      const checked = host === undefined ? undefined : await customHosts.check(host);
      const [path = '/', query = ''] = url.slice(PREFIX.length).split('?', 2) as [string, string?];
      const target = provider.buildTarget({
        method: 'GET',
        path,
        search: query ? `?${query}` : '',
        headers: req.headers,
        token: managed ? managed.token : bearer(req.headers.authorization),
        cloud: managed ? cloudFor(managed, readCloudOptions(req.headers), '') : readCloudOptions(req.headers),
        customHost: checked?.url,
      });
      const wsUrl = new URL(target.url);
      wsUrl.protocol = wsUrl.protocol === 'https:' ? 'wss:' : 'ws:';
      // http-proxy copies req.headers upstream: replace them with the provider's view.
      const headers = upstreamHeaders(clientHeadersForProvider(req.headers), target, service.forwardHeaders);
      if (managed) Object.assign(headers, managed.setHeaders);
      req.headers = { ...headers, connection: 'Upgrade', upgrade: 'websocket' } as IncomingMessage['headers'];
      // A custom host is reached only at the address that was checked (no DNS rebinding).
      proxy.ws(req, socket, head, {
        target: wsUrl.toString(),
        ...(checked ? { agent: createPinnedAgent(checked.target) } : {}),
      });
    } catch (err) {
      reject(
        socket,
        err instanceof AppError
          ? err
          : gatewayError('bad_request', err instanceof Error ? err.message : 'bad realtime request'),
      );
    }
  };
}
