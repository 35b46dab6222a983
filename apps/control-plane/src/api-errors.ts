// The admin API's error codes (ARCHITECTURE part 4): AB01..AB09, each with one status and type.
import { AppError } from '@aigw/runtime';

export const API_ERRORS = {
  AB01: { status: 400, type: 'invalid_request_error', meaning: 'validation failed' },
  AB02: { status: 404, type: 'invalid_request_error', meaning: 'a referenced object does not exist' },
  AB03: { status: 403, type: 'permission_error', meaning: 'forbidden: missing scope or role' },
  AB04: { status: 500, type: 'server_error', meaning: 'internal error' },
  AB05: { status: 401, type: 'authentication_error', meaning: 'missing or invalid credentials' },
  AB06: { status: 429, type: 'rate_limit_error', meaning: 'too many requests' },
  AB07: { status: 409, type: 'conflict_error', meaning: 'already exists or conflicts with current state' },
  AB08: { status: 404, type: 'not_found_error', meaning: 'not found' },
  AB09: { status: 402, type: 'payment_required_error', meaning: 'limit reached' },
} as const;

export type ApiErrorCode = keyof typeof API_ERRORS;

export function apiError(
  code: ApiErrorCode,
  message: string,
  options: { param?: string; cause?: unknown } = {},
): AppError {
  const { status, type } = API_ERRORS[code];
  return new AppError(status, type, message, { code, ...options });
}

export const invalid = (message: string, param?: string) =>
  apiError('AB01', message, param === undefined ? {} : { param });
export const referenceNotFound = (message: string, param?: string) =>
  apiError('AB02', message, param === undefined ? {} : { param });
export const forbidden = (message: string) => apiError('AB03', message);
export const unauthorized = (message: string) => apiError('AB05', message);
export const conflict = (message: string, param?: string) =>
  apiError('AB07', message, param === undefined ? {} : { param });
export const notFound = (what: string) => apiError('AB08', `${what} not found`);
export const limitReached = (message: string) => apiError('AB09', message);
