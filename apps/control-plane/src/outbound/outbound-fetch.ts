// The one way the control plane calls an organisation's hosts: check the host once
// (outbound-host.ts), then connect only to the addresses that were checked (an undici dispatcher
// whose lookup answers with them), so a rebinding name cannot swap in another address between the
// check and the connection. TLS still verifies the certificate against the host name; redirects are
// never followed.
import { createPinnedDispatcher, type PinnedFetch, pinnedFetch } from '@aigw/ssrf';
import { checkOutboundHost, type LookupFn } from './outbound-host.js';

export type { PinnedFetch };

export interface OutboundOptions {
  /** Resolves host names for the check; the system resolver unless a test injects one. */
  readonly lookup?: LookupFn;
}

/**
 * Checks `url`'s host, then runs `use` with a fetch pinned to the checked addresses of that host (any
 * other host is refused at connect). The connections are closed when `use` settles, so read every
 * body inside it. Throws what checkOutboundHost throws, before `use` runs.
 */
export async function withOutboundHost<T>(
  url: URL,
  options: OutboundOptions,
  use: (fetch: PinnedFetch) => Promise<T>,
): Promise<T> {
  const target = await checkOutboundHost(url, options.lookup);
  const dispatcher = createPinnedDispatcher(target);
  try {
    return await use(pinnedFetch(dispatcher));
  } finally {
    await dispatcher.destroy();
  }
}
