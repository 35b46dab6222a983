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
  return new AppError(500, 'server_error', 'internal server error', { code: 'internal_error', cause: err });
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
