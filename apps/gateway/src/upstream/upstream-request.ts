// Opens one upstream HTTP(S) request on a shared node:http keep-alive pool: used by config targets
// (routing/upstream-call.ts) and MCP token calls; the plain pass-through uses undici
// (upstream-pool.ts), with the same idle limit.
import {
  type ClientRequest,
  Agent as HttpAgent,
  request as httpRequest,
  type OutgoingHttpHeaders,
  type RequestOptions,
} from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { LookupFunction, Socket } from 'node:net';

// One pool per idle limit: the socket timeout is set once per connection by the agent instead of
// being re-armed on every request.
const httpPools = new Map<number, HttpAgent>();
const httpsPools = new Map<number, HttpAgent>();
function poolFor(https: boolean, idleTimeoutMs: number): HttpAgent {
  const pools = https ? httpsPools : httpPools;
  let agent = pools.get(idleTimeoutMs);
  if (!agent) {
    const options = { keepAlive: true, keepAliveMsecs: 10_000, maxFreeSockets: 256, timeout: idleTimeoutMs };
    const pool = https ? new HttpsAgent(options) : new HttpAgent(options);
    // A pooled socket keeps the shorter timeout node derives from the provider's `Keep-Alive:
    // timeout=N` hint; the idle limit comes back when the agent hands the socket to a request (a
    // number compare on the usual path, and no 'socket' listener per request).
    const reuse = pool.reuseSocket;
    pool.reuseSocket = function reuseSocket(this: HttpAgent, socket: Socket, req: ClientRequest) {
      reuse.call(this, socket, req);
      if (socket.timeout !== idleTimeoutMs) socket.setTimeout(idleTimeoutMs);
    };
    agent = pool;
    pools.set(idleTimeoutMs, agent);
  }
  return agent;
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
  // Plain options rather than the URL object: node would convert the URL on every call.
  const hostname = url.hostname;
  const request: RequestOptions = {
    protocol: url.protocol,
    hostname: hostname.startsWith('[') ? hostname.slice(1, -1) : hostname,
    port: url.port,
    path: `${url.pathname}${url.search}`,
    method: options.method,
    headers: options.headers,
    agent: poolFor(https, options.idleTimeoutMs),
  };
  if (options.lookup) request.lookup = options.lookup;
  return https ? httpsRequest(request) : httpRequest(request);
}
