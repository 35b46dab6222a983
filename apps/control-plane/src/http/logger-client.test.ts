// LogsService failures as admin API errors: the caller's mistakes keep their meaning, the
// operator's (logger down, tokens that differ) are a 503 the caller can retry, never a 500.

import { AppError, createLogger } from '@aigw/runtime';
import { Metadata, type ServiceError, status } from '@grpc/grpc-js';
import { describe, expect, test } from 'vitest';
import { loggerError } from './logger-client.js';

const log = createLogger({ app: 'logger-client-test', level: 'silent' });
const failure = (code: status, details = 'details'): ServiceError =>
  Object.assign(new Error(details), { code, details, metadata: new Metadata() });

describe('loggerError', () => {
  test.each([
    [status.INVALID_ARGUMENT, 400],
    [status.NOT_FOUND, 404],
    [status.PERMISSION_DENIED, 403],
    [status.UNAVAILABLE, 503],
    [status.DEADLINE_EXCEEDED, 503],
    [status.UNAUTHENTICATED, 503],
    [status.INTERNAL, 500],
  ])('gRPC %s -> HTTP %s', (code, httpStatus) => {
    const error = loggerError(failure(code), log, 'ListLogs');
    expect(error).toBeInstanceOf(AppError);
    expect(error.status).toBe(httpStatus);
  });

  test('a refused service token says so, without the token', () => {
    const error = loggerError(failure(status.UNAUTHENTICATED, 'bad token abc'), log, 'ListLogs');
    expect(error.message).toContain('service token');
    expect(error.message).not.toContain('abc');
  });
});
