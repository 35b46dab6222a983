// The SSRF check of a webhook check's URL: the custom-host rules (@aigw/ssrf), plus a query string, which
// a webhook URL may carry and a custom host may not.
import { type LookupFn, parseCustomHost, pinnedLookup, resolveSafeTarget } from '@aigw/ssrf';
import { isGatewayError } from '../errors.js';
import type { CheckedWebhookHost } from './types.js';

export interface WebhookHostOptions {
  /** `CUSTOM_HOST_ALLOWLIST`: the same hosts are exempt from the range check. */
  readonly allowlist: readonly string[];
  readonly lookup?: LookupFn;
}

/** Resolves and checks a webhook URL; rejects with an Error saying why it is refused. */
export function createWebhookHostCheck(
  options: WebhookHostOptions,
): (url: string) => Promise<CheckedWebhookHost> {
  return async (raw) => {
    const q = raw.indexOf('?');
    const query = q === -1 ? '' : raw.slice(q);
    if (!/^[\x21-\x7e]*$/.test(query) || query.includes('#') || query.includes('\\')) {
      throw new Error('webhook url must have a printable ASCII query without a fragment or backslash');
    }
    try {
      const url = parseCustomHost(q === -1 ? raw : raw.slice(0, q), { param: 'url' });
      const target = await resolveSafeTarget(url, { ...options, param: 'url' });
      const checked = new URL(target.url.href);
      checked.search = query;
      return { url: checked, lookup: pinnedLookup(target) };
    } catch (err) {
      if (!isGatewayError(err, 'custom_host_blocked')) throw err;
      throw new Error(err.message.replace(/^custom host/, 'webhook url'), { cause: err });
    }
  };
}
