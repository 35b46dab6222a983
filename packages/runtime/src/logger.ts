// Structured JSON logs (pino) with secrets redacted and a per-request child logger.
import { randomUUID } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import { type LevelWithSilent, type Logger, pino } from 'pino';

export type { Logger } from 'pino';

const REDACT = [
  'req.headers.authorization',
  'req.headers["x-service-api-key"]',
  'req.headers["x-api-key"]',
  'req.headers["api-key"]',
  'req.headers.cookie',
  '*.password',
  '*.secret',
  '*.apiKey',
  '*.api_key',
];

export function createLogger(options: {
  app: string;
  level: LevelWithSilent;
  instanceId?: string | undefined;
  destination?: pino.DestinationStream;
}): Logger {
  return pino(
    {
      level: options.level,
      base: { app: options.app, instance: options.instanceId },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACT, censor: '[redacted]' },
      formatters: { level: (label) => ({ level: label }) },
    },
    options.destination,
  );
}

const REQUEST_ID_HEADERS = ['x-service-trace-id', 'x-request-id'] as const;
const SAFE_ID = /^[\w.:-]{1,128}$/;

/** Gives each request an id (from a safe incoming trace/request id, else a uuid); see requestLog. */
export function requestContext(): RequestHandler {
  return (req, res, next) => {
    const id = incomingId(req) ?? randomUUID();
    res.locals.requestId = id;
    res.setHeader('x-request-id', id);
    next();
  };
}

/**
 * The request's child logger, made on first use: a pino child costs more than a whole proxied
 * request's own work, and most requests never log.
 */
export function requestLog(res: Response, base: Logger): Logger {
  const existing = res.locals.log as Logger | undefined;
  if (existing) return existing;
  const child = base.child({ reqId: res.locals.requestId as string | undefined });
  res.locals.log = child;
  return child;
}

function incomingId(req: Request): string | undefined {
  for (const name of REQUEST_ID_HEADERS) {
    const value = req.headers[name];
    if (typeof value === 'string' && SAFE_ID.test(value)) return value;
  }
  return undefined;
}
