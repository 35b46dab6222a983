// Connecting through undici (fetch) to a checked host without a second DNS query: the connector's
// lookup answers only with the checked addresses, and a connection to any other host (an IP literal
// skips lookup) is refused before a socket opens. The node:http counterpart is pinned-agent.ts.
import { Agent, buildConnector, fetch as undiciFetch } from 'undici';
import { hostKey } from './host-key.js';
import { pinError, pinnedLookup } from './pinned-agent.js';
import type { PinnedTarget } from './resolve.js';

export interface PinnedDispatcherOptions {
  /** Trust anchors instead of Node's (a private CA); certificates are still checked against the name. */
  readonly ca?: string | readonly string[];
}

/**
 * An undici dispatcher that connects to `target.hostname` only, and only at its checked addresses.
 * TLS still verifies the certificate against the host name: the connector keeps `servername` (SNI)
 * and `host` as the name; only the address it dials comes from the pinned lookup.
 */
export function createPinnedDispatcher(target: PinnedTarget, options: PinnedDispatcherOptions = {}): Agent {
  const connect = buildConnector({
    lookup: pinnedLookup(target),
    ...(options.ca === undefined
      ? {}
      : { ca: typeof options.ca === 'string' ? options.ca : [...options.ca] }),
  });
  const key = hostKey(target.hostname);
  return new Agent({
    connect: (options, callback) => {
      if (hostKey(options.hostname) !== key) {
        callback(pinError(`pinned to ${target.hostname}, refusing to connect to ${options.hostname}`), null);
        return;
      }
      connect(options, callback);
    },
  });
}

/** The fetch signature the MCP SDK's transports accept (`fetch` option) and callers use. */
export type PinnedFetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

/**
 * A fetch that goes through `dispatcher` (createPinnedDispatcher) and never follows a redirect
 * (`redirect: 'error'` whatever `init` says): a Location is a host nobody checked.
 */
export function pinnedFetch(dispatcher: Agent): PinnedFetch {
  return async (url, init) => {
    // undici's own fetch, not the global one: the dispatcher must come from the same undici.
    const res = await undiciFetch(url, {
      ...(init as Parameters<typeof undiciFetch>[1]),
      redirect: 'error',
      dispatcher,
    });
    return res as unknown as Response;
  };
}
