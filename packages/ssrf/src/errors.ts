// The errors the SSRF checks throw, in the gateway's envelope: the gateway answers its clients with
// them as they are, so they carry its codes, statuses and `x-service-gateway-error` flag, built by
// the same @aigw/runtime helper as apps/gateway/src/errors.ts (which a package may not import).
import { type AppError, flaggedError, GATEWAY_ERROR_HEADER, isFlaggedError } from '@aigw/runtime';

/** The gateway's header for a per-request custom host: the default `param` of a refusal. */
export const CUSTOM_HOST_HEADER = 'x-service-custom-host';

/** Marks an error the gateway made (not one a provider sent), as the gateway's own errors do. */
export { GATEWAY_ERROR_HEADER };

const CODES = {
  /** The custom host is not an allowed public http(s) URL. */
  custom_host_blocked: { status: 400, type: 'invalid_request_error' },
  /** A header value is unsafe in a host name. */
  invalid_header: { status: 400, type: 'invalid_request_error' },
} as const;

export type SsrfErrorCode = keyof typeof CODES;

export function ssrfError(
  code: SsrfErrorCode,
  message: string,
  options: { param?: string; cause?: unknown } = {},
): AppError {
  return flaggedError(CODES, code, message, options);
}

export function isSsrfError(err: unknown, code?: SsrfErrorCode): err is AppError {
  return isFlaggedError(err, code);
}
