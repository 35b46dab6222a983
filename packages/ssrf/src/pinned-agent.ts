// Connecting to a checked custom host without a second DNS query: the agent's lookup answers only
// with the addresses resolveSafeTarget checked, so a rebinding name cannot swap them in between.
//
// Redirects are never followed: the gateway uses raw http(s).request (and `ws` for realtime), which hands a
// 3xx back to the client untouched and never connects to its Location.
import type { LookupAddress, LookupOptions } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { Duplex } from 'node:stream';
import { hostKey } from './host-key.js';
import type { PinnedTarget, SafeTarget } from './resolve.js';

type LookupCallback = Parameters<LookupFunction>[2];

export function pinError(message: string): NodeJS.ErrnoException {
  return Object.assign(new Error(message), { code: 'ERR_SSRF_PINNED_HOST' });
}

function wantedFamily(family: LookupOptions['family']): 4 | 6 | undefined {
  if (family === 4 || family === 'IPv4') return 4;
  if (family === 6 || family === 'IPv6') return 6;
  return undefined;
}

/**
 * A `lookup` for `http.request` / `http(s).Agent` / `net.connect` options that answers
 * `target.hostname` with the checked addresses only, and fails for any other name. TLS still verifies
 * the certificate against the host name, because `servername` comes from `host`, not from the address.
 * The target is a SafeTarget or just a name and its checked addresses (the control plane's own check).
 */
export function pinnedLookup(target: SafeTarget | PinnedTarget): LookupFunction {
  const key = hostKey(target.hostname);
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    // dns.lookup answers asynchronously; net relies on that ordering.
    process.nextTick(() => {
      if (hostKey(hostname) !== key) {
        callback(pinError(`pinned to ${target.hostname}, refusing to resolve ${hostname}`), '');
        return;
      }
      const family = wantedFamily(options.family);
      const answers: LookupAddress[] = target.addresses
        .filter((a) => family === undefined || a.family === family)
        .map((a) => ({ address: a.address, family: a.family }));
      const first = answers[0];
      if (first === undefined) {
        callback(pinError(`${target.hostname} has no checked IPv${family} address`), '');
      } else if (options.all) {
        callback(null, answers);
      } else {
        callback(null, first.address, first.family);
      }
    });
  };
}

export interface PinnedAgentOptions {
  readonly keepAlive?: boolean;
}

/**
 * An http or https agent (by the target's scheme) that connects only to the target's checked
 * addresses. Node skips `lookup` for IP-literal hosts, so the agent also refuses any host other than
 * the target's. Use it as the `agent` of a `ws` WebSocket (realtime) or http(s).request with `host: target.hostname`.
 */
export function createPinnedAgent(target: SafeTarget, options: PinnedAgentOptions = {}): http.Agent {
  const agentOptions = { keepAlive: options.keepAlive ?? false, lookup: pinnedLookup(target) };
  const agent =
    target.url.protocol === 'https:' ? new https.Agent(agentOptions) : new http.Agent(agentOptions);
  const key = hostKey(target.hostname);
  const createConnection = agent.createConnection.bind(agent);
  agent.createConnection = (
    connectOptions: http.ClientRequestArgs,
    callback?: (err: Error | null, stream: Duplex) => void,
  ) => {
    const host = connectOptions.host ?? connectOptions.hostname ?? '';
    if (hostKey(host) !== key) {
      callback?.(
        pinError(`pinned to ${target.hostname}, refusing to connect to ${host}`),
        undefined as never,
      );
      return undefined;
    }
    return createConnection(connectOptions, callback);
  };
  return agent;
}
