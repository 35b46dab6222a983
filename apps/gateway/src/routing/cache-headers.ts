// `x-service-cache-namespace` and `x-service-cache-force-refresh`, read only when a config is used.
import type { IncomingHttpHeaders } from 'node:http';
import { gatewayError } from '../errors.js';
import { H } from '../request/service-headers.js';

const MAX_NAMESPACE_LENGTH = 256;

export interface CacheHeaders {
  /** A partition of the cache; undefined for the default one. */
  readonly namespace: string | undefined;
  readonly forceRefresh: boolean;
}

function single(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  if (Array.isArray(value))
    throw gatewayError('invalid_header', `${name} must be sent once`, { param: name });
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === '' ? undefined : trimmed;
}

export function readCacheHeaders(headers: IncomingHttpHeaders): CacheHeaders {
  const namespace = single(headers, H.cacheNamespace);
  if (namespace !== undefined && namespace.length > MAX_NAMESPACE_LENGTH) {
    throw gatewayError(
      'invalid_header',
      `${H.cacheNamespace} is longer than ${MAX_NAMESPACE_LENGTH} characters`,
      {
        param: H.cacheNamespace,
      },
    );
  }
  const refresh = single(headers, H.cacheForceRefresh)?.toLowerCase();
  if (refresh !== undefined && refresh !== 'true' && refresh !== 'false') {
    throw gatewayError('invalid_header', `${H.cacheForceRefresh} must be true or false`, {
      param: H.cacheForceRefresh,
    });
  }
  return { namespace, forceRefresh: refresh === 'true' };
}
