// The errors the SSRF checks throw, in the gateway's envelope: the gateway answers its clients with
// them as they are, so they carry its codes, statuses and `x-service-gateway-error` flag (the same
// values as apps/gateway/src/errors.ts, which a package may not import).
import { AppError } from '@aigw/runtime';

/** The gateway's header for a per-request custom host: the default `param` of a refusal. */
export const CUSTOM_HOST_HEADER = 'x-service-custom-host';

/** Marks an error the gateway made (not one a provider sent), as apps/gateway/src/errors.ts does. */
export const GATEWAY_ERROR_HEADER = 'x-service-gateway-error';

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
  const { status, type } = CODES[code];
  return new AppError(status, type, message, {
    code,
    ...(options.param === undefined ? {} : { param: options.param }),
    ...(options.cause === undefined ? {} : { cause: options.cause }),
    headers: { [GATEWAY_ERROR_HEADER]: 'true' },
  });
}

export function isSsrfError(err: unknown, code?: SsrfErrorCode): err is AppError {
  return (
    err instanceof AppError &&
    err.headers[GATEWAY_ERROR_HEADER] === 'true' &&
    (code === undefined || err.code === code)
  );
}
