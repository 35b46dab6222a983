// Opens one upstream HTTP(S) request on a shared keep-alive pool: used by the plain pass-through and
// by every config target, so both get the same pooling and the same idle-limit rules.
import {
  type ClientRequest,
  Agent as HttpAgent,
  request as httpRequest,
  type OutgoingHttpHeaders,
} from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { LookupFunction, Socket } from 'node:net';

// One pool per idle limit: the socket timeout is set once per connection by the agent instead of
// being re-armed on every request.
interface Pool {
  readonly agent: HttpAgent;
  /**
   * A pooled socket keeps the shorter timeout node derives from the provider's `Keep-Alive:
   * timeout=N` hint; this restores the idle limit when the socket is reused (a number compare on
   * the usual path, one handler per pool rather than per request).
   */
  readonly onSocket: (socket: Socket) => void;
}
const pools = new Map<string, Pool>();
function poolFor(https: boolean, idleTimeoutMs: number): Pool {
  const key = `${https ? 's' : ''}${idleTimeoutMs}`;
  let pool = pools.get(key);
  if (!pool) {
    const options = { keepAlive: true, keepAliveMsecs: 10_000, maxFreeSockets: 256, timeout: idleTimeoutMs };
    pool = {
      agent: https ? new HttpsAgent(options) : new HttpAgent(options),
      onSocket: (socket) => {
        if (socket.timeout !== idleTimeoutMs) socket.setTimeout(idleTimeoutMs);
      },
    };
    pools.set(key, pool);
  }
  return pool;
}

export interface UpstreamRequestOptions {
  readonly method: string;
  readonly url: URL;
  readonly headers: OutgoingHttpHeaders;
  /** Idle limit on the upstream socket. */
  readonly idleTimeoutMs: number;
  /** Connects only to addresses checked by the SSRF layer (custom hosts). */
  readonly lookup?: LookupFunction | undefined;
}

export function openUpstream(options: UpstreamRequestOptions): ClientRequest {
  const { url } = options;
  const https = url.protocol === 'https:';
  const pool = poolFor(https, options.idleTimeoutMs);
  // Plain options rather than the URL object: node would convert the URL on every call.
  const upstream = (https ? httpsRequest : httpRequest)({
    protocol: url.protocol,
    hostname: url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname,
    port: url.port,
    path: `${url.pathname}${url.search}`,
    method: options.method,
    headers: options.headers,
    agent: pool.agent,
    ...(options.lookup ? { lookup: options.lookup } : {}),
  });
  upstream.once('socket', pool.onSocket);
  return upstream;
}
