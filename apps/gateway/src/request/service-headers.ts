// The `x-service-*` request headers of spec 4.6 and 5.2, parsed and validated once per request.
import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { gatewayError } from '../errors.js';

export const SERVICE_HEADER_PREFIX = 'x-service-';

export const H = {
  traceId: 'x-service-trace-id',
  metadata: 'x-service-metadata',
  requestTimeout: 'x-service-request-timeout',
  forwardHeaders: 'x-service-forward-headers',
  customHost: 'x-service-custom-host',
  provider: 'x-service-provider',
  apiKey: 'x-service-api-key',
  config: 'x-service-config',
  deployment: 'x-service-deployment',
  virtualKey: 'x-service-virtual-key',
  cacheForceRefresh: 'x-service-cache-force-refresh',
  cacheNamespace: 'x-service-cache-namespace',
} as const;

/** Special metadata keys of spec 4.6. */
export const SPECIAL_METADATA_KEYS = ['_user', '_prompt', '_organisation', '_environment'] as const;

const TRACE_ID = /^[\w.:-]{1,128}$/;
const HEADER_NAME = /^[!#$%&'*+.^`|~\w-]{1,256}$/;
const MAX_METADATA_BYTES = 8 * 1024;
const MAX_METADATA_KEYS = 64;
/** In `u` mode a well-formed surrogate pair is one code point: only a lone (unpaired) half matches. */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;
const MAX_TIMEOUT_MS = 3_600_000;

export interface ServiceHeaders {
  readonly traceId: string;
  readonly metadata: Readonly<Record<string, string>>;
  /** Milliseconds, when the client set a request timeout. */
  readonly requestTimeoutMs: number | undefined;
  /** Lower-case names of client headers to pass to the provider unprocessed. */
  readonly forwardHeaders: readonly string[];
  readonly customHost: string | undefined;
  readonly provider: string | undefined;
}

function single(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  if (Array.isArray(value))
    throw gatewayError('invalid_header', `${name} must be sent once`, { param: name });
  return value === undefined || value === '' ? undefined : value;
}

export function parseServiceHeaders(headers: IncomingHttpHeaders): ServiceHeaders {
  return {
    traceId: parseTraceId(single(headers, H.traceId)),
    metadata: parseMetadata(single(headers, H.metadata)),
    requestTimeoutMs: parseTimeout(single(headers, H.requestTimeout)),
    forwardHeaders: parseForwardHeaders(single(headers, H.forwardHeaders)),
    customHost: single(headers, H.customHost),
    provider: single(headers, H.provider)?.trim().toLowerCase(),
  };
}

function parseTraceId(value: string | undefined): string {
  if (value === undefined) return randomUUID();
  if (!TRACE_ID.test(value)) {
    throw gatewayError(
      'invalid_header',
      `${H.traceId} must be 1-128 characters of letters, digits, . _ : -`,
      {
        param: H.traceId,
      },
    );
  }
  return value;
}

/** A JSON object; values may be strings, numbers or booleans (stored as strings). */
function parseMetadata(value: string | undefined): Record<string, string> {
  if (value === undefined) return {};
  if (Buffer.byteLength(value) > MAX_METADATA_BYTES) {
    throw gatewayError('invalid_header', `${H.metadata} is larger than ${MAX_METADATA_BYTES} bytes`, {
      param: H.metadata,
    });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw gatewayError('invalid_header', `${H.metadata} must be a JSON object`, { param: H.metadata });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw gatewayError('invalid_header', `${H.metadata} must be a JSON object`, { param: H.metadata });
  }
  const entries = Object.entries(parsed);
  if (entries.length > MAX_METADATA_KEYS) {
    throw gatewayError('invalid_header', `${H.metadata} has more than ${MAX_METADATA_KEYS} keys`, {
      param: H.metadata,
    });
  }
  const metadata: Record<string, string> = Object.create(null);
  for (const [key, raw] of entries) {
    if (typeof raw !== 'string' && typeof raw !== 'number' && typeof raw !== 'boolean') {
      throw gatewayError('invalid_header', `${H.metadata}.${key} must be a string, number or boolean`, {
        param: H.metadata,
      });
    }
    // A `\ud800` escape parses to a lone surrogate, which is not Unicode text: Postgres refuses it
    // in the request log's metadata, so it is refused here rather than lost later.
    if (LONE_SURROGATE.test(key) || (typeof raw === 'string' && LONE_SURROGATE.test(raw))) {
      throw gatewayError(
        'invalid_header',
        `${H.metadata} must be valid Unicode text (it holds an unpaired surrogate escape such as \\ud800)`,
        { param: H.metadata },
      );
    }
    metadata[key] = String(raw);
  }
  return metadata;
}

function parseTimeout(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = /^\d{1,10}$/.test(value.trim()) ? Number(value.trim()) : Number.NaN;
  if (!Number.isInteger(ms) || ms < 1 || ms > MAX_TIMEOUT_MS) {
    throw gatewayError(
      'invalid_header',
      `${H.requestTimeout} must be an integer number of milliseconds (1-${MAX_TIMEOUT_MS})`,
      {
        param: H.requestTimeout,
      },
    );
  }
  return ms;
}

/** A JSON array of header names, or a comma-separated list (both are what SDKs send). */
function parseForwardHeaders(value: string | undefined): string[] {
  if (value === undefined) return [];
  let names: unknown;
  if (value.trimStart().startsWith('[')) {
    try {
      names = JSON.parse(value);
    } catch {
      throw gatewayError(
        'invalid_header',
        `${H.forwardHeaders} must be a JSON array or a comma-separated list`,
        {
          param: H.forwardHeaders,
        },
      );
    }
  } else {
    names = value.split(',').map((n) => n.trim());
  }
  if (
    !Array.isArray(names) ||
    !names.every((n): n is string => typeof n === 'string' && HEADER_NAME.test(n.trim()))
  ) {
    throw gatewayError('invalid_header', `${H.forwardHeaders} must list valid header names`, {
      param: H.forwardHeaders,
    });
  }
  return names.map((n) => n.trim().toLowerCase()).filter((n) => !n.startsWith(SERVICE_HEADER_PREFIX));
}
