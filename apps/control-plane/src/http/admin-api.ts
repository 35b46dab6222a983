// Mounts the admin API under /v1: JSON bodies, the API_ACCESS_ENABLED switch, OpenAPI, the routes.
import { AppError, isUnavailable, jsonInputProblem, type Logger, MAX_JSON_DEPTH } from '@aigw/runtime';
import express, { type ErrorRequestHandler, type Express, type RequestHandler } from 'express';
import type { Kysely } from 'kysely';
import { apiError } from '../api-errors.js';
import type { Authenticate } from '../auth/authenticate.js';
import type { ControlDatabase } from '../db/schema.js';
import type { ManagerDeps } from '../secrets/secret-managers.js';
import type { LoggerClient } from './logger-client.js';
import { buildOpenApi, OPENAPI_PATH } from './openapi.js';
import { mountRoutes, type RouteDefinition } from './route.js';

export interface AdminApiOptions {
  readonly db: Kysely<ControlDatabase>;
  readonly authenticate: Authenticate;
  readonly routes: readonly RouteDefinition[];
  readonly apiAccessEnabled: boolean;
  readonly auditEnabled: boolean;
  readonly log: Logger;
  readonly version: string;
  /** Seals provider credentials (MASTER_KEY); null refuses to store credentials. */
  readonly masterKey?: Buffer | null;
  /** The logger's LogsService (LOGGER_GRPC_URL); null: the logs routes answer 503. */
  readonly logsService?: LoggerClient | null;
  /** Secret managers: the AIGW_SECRET_* variables and the per-request timeout. */
  readonly secretManagers?: ManagerDeps;
}

export const MAX_BODY_BYTES = 1024 * 1024;

/** Body-parser failures in the admin API's own codes (malformed JSON is AB01, too large is 413). */
const bodyErrors: ErrorRequestHandler = (err, _req, _res, next) => {
  const type = (err as { type?: unknown }).type;
  if (type === 'entity.parse.failed')
    next(apiError('AB01', 'request body is not valid JSON', { param: 'body' }));
  else if (type === 'entity.too.large')
    next(
      new AppError(413, 'invalid_request_error', `request body exceeds ${MAX_BODY_BYTES} bytes`, {
        code: 'payload_too_large',
      }),
    );
  else if (type === 'encoding.unsupported' || type === 'charset.unsupported')
    next(apiError('AB01', 'request body must be UTF-8 JSON'));
  // The router could not percent-decode a path parameter (e.g. `%FF`): the caller's mistake.
  else if (err instanceof URIError)
    next(apiError('AB01', 'the request path is not valid percent-encoded UTF-8', { param: 'path' }));
  else if (err instanceof AppError) next(err);
  // Postgres (or another backing service) unreachable: the runtime answers 503 with retry-after.
  else if (isUnavailable(err)) next(err);
  // Anything unexpected is AB04; the cause stays in the server log, never in the response.
  else next(apiError('AB04', 'internal server error', { cause: err }));
};

/**
 * Parsed JSON bodies nest at most MAX_JSON_DEPTH levels and hold Unicode text only: deeper bodies
 * overflow the stack of whatever serialises them later (validation, the audit record), and an
 * unpaired surrogate (`"\ud800"`) is refused by Postgres, which would keep the change out of the
 * audit log. Both are the caller's mistake: 400 AB01 naming the path.
 */
const wellFormedBody: RequestHandler = (req, _res, next) => {
  const problem = req.body === undefined ? undefined : jsonInputProblem(req.body, 'body', MAX_JSON_DEPTH);
  next(problem ? apiError('AB01', problem.message, { param: problem.path }) : undefined);
};

export function adminApi(options: AdminApiOptions): (app: Express) => void {
  const openapi = JSON.stringify(buildOpenApi(options.routes, { version: options.version }));
  return (app) => {
    const router = express.Router();
    router.get(OPENAPI_PATH, (_req, res) => {
      res.type('application/json').send(openapi);
    });
    router.use((_req, _res, next) => {
      if (options.apiAccessEnabled) next();
      else next(apiError('AB03', 'the admin API is disabled on this control plane (API_ACCESS_ENABLED=OFF)'));
    });
    router.use(express.json({ limit: MAX_BODY_BYTES, strict: true }));
    router.use(wellFormedBody);
    mountRoutes(router, options.routes, options);
    router.use((req, _res, next) =>
      next(apiError('AB08', `no admin route ${req.method} ${req.baseUrl}${req.path}`)),
    );
    router.use(bodyErrors);
    app.use('/v1', router);
  };
}
