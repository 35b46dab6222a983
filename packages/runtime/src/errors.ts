// The error envelope every app renders: {"error":{"message","type","code","param"}} (OpenAI SDK shape).
import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from 'pino';

export interface ErrorBody {
  error: { message: string; type: string; code: string | null; param: string | null };
}

export class AppError extends Error {
  readonly status: number;
  readonly type: string;
  readonly code: string | null;
  readonly param: string | null;
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    status: number,
    type: string,
    message: string,
    options: { code?: string; param?: string; cause?: unknown; headers?: Record<string, string> } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.status = status;
    this.type = type;
    this.code = options.code ?? null;
    this.param = options.param ?? null;
    this.headers = options.headers ?? {};
  }

  toBody(): ErrorBody {
    return { error: { message: this.message, type: this.type, code: this.code, param: this.param } };
  }
}

/** Marks an error the gateway made (not one a provider sent): clients tell the two apart by it. */
export const GATEWAY_ERROR_HEADER = 'x-service-gateway-error';

/** What a code is answered with. */
export interface CodeAnswer {
  readonly status: number;
  readonly type: string;
}

/**
 * An error of a table of codes (the gateway's, and the SSRF checks' it answers with as they are),
 * flagged with GATEWAY_ERROR_HEADER; `headers` are answered beside the flag (`retry-after`, ...).
 */
export function flaggedError<C extends string>(
  codes: Readonly<Record<C, CodeAnswer>>,
  code: C,
  message: string,
  options: { param?: string; cause?: unknown; headers?: Readonly<Record<string, string>> } = {},
): AppError {
  const { status, type } = codes[code];
  return new AppError(status, type, message, {
    code,
    ...(options.param === undefined ? {} : { param: options.param }),
    ...(options.cause === undefined ? {} : { cause: options.cause }),
    headers: { ...options.headers, [GATEWAY_ERROR_HEADER]: 'true' },
  });
}

/** True for an error `flaggedError` made, and of `code` when one is given. */
export function isFlaggedError(err: unknown, code?: string): err is AppError {
  return (
    err instanceof AppError &&
    err.headers[GATEWAY_ERROR_HEADER] === 'true' &&
    (code === undefined || err.code === code)
  );
}

export const notFound: RequestHandler = (req, _res, next) => {
  next(new AppError(404, 'not_found', `no route for ${req.method} ${req.path}`, { code: 'not_found' }));
};

/** One boundary renders every error; unknown errors become a 500 without leaking their message. */
export function errorHandler(log: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const appError = toAppError(err);
    if (appError.status >= 500) log.error({ err, method: req.method, path: req.path }, 'request failed');
    if (res.headersSent) {
      res.destroy();
      return;
    }
    res.status(appError.status).set(appError.headers).json(appError.toBody());
  };
}

function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (isBodyParserError(err)) {
    return new AppError(
      err.status,
      'invalid_request_error',
      err.expose ? err.message : 'invalid request body',
      {
        code: err.type ?? 'invalid_body',
      },
    );
  }
  if (isUnavailable(err)) {
    return new AppError(503, 'server_error', 'a service this API depends on is unavailable: retry shortly', {
      code: 'service_unavailable',
      cause: err,
      headers: { 'retry-after': String(RETRY_AFTER_S) },
    });
  }
  return new AppError(500, 'server_error', 'internal server error', { code: 'internal_error', cause: err });
}

const RETRY_AFTER_S = 5;

/**
 * Codes of a database (or other backing service) that cannot be reached or is going away: socket
 * errors, and Postgres SQLSTATE class 08 (connection exception) and 57P01-57P03 (shutdown, cannot
 * connect now). Those are not the request's fault and pass: 503 tells clients and load balancers to
 * retry, where a 500 says the request broke something.
 */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EPIPE',
  '57P01',
  '57P02',
  '57P03',
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
]);
/** node-postgres says these in words only (no code). */
const UNAVAILABLE_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/;

/** Whether `err` (or its cause) says a backing service cannot be reached: answered 503, not 500. */
export function isUnavailable(err: unknown, depth = 0): boolean {
  if (typeof err !== 'object' || err === null || depth > 3) return false;
  const { code, message, cause } = err as { code?: unknown; message?: unknown; cause?: unknown };
  if (typeof code === 'string' && UNAVAILABLE_CODES.has(code)) return true;
  if (typeof message === 'string' && UNAVAILABLE_MESSAGES.test(message)) return true;
  if (err instanceof AggregateError && err.errors.some((e) => isUnavailable(e, depth + 1))) return true;
  return isUnavailable(cause, depth + 1);
}

interface HttpishError {
  status: number;
  expose?: boolean;
  message: string;
  type?: string;
}

function isBodyParserError(err: unknown): err is HttpishError {
  if (typeof err !== 'object' || err === null) return false;
  const status = (err as { status?: unknown }).status;
  return typeof status === 'number' && status >= 400 && status < 500;
}
