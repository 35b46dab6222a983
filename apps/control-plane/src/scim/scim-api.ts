// Mounts SCIM 2.0 at /scim/v2 (RFC 7644; docs/admin-api/scim.md), beside the admin API's /v1: its
// own body types (application/scim+json), error shape and credential form (the admin API key as
// `Authorization: Bearer`), on the admin API's route machinery (authorisation, audit, transactions).
import { jsonInputProblem, type Logger, MAX_JSON_DEPTH } from '@aigw/runtime';
import express, { type Express, type RequestHandler } from 'express';
import type { Kysely } from 'kysely';
import { API_KEY_HEADER, type Authenticate } from '../auth/authenticate.js';
import type { ControlDatabase } from '../db/schema.js';
import { MAX_BODY_BYTES } from '../http/admin-api.js';
import { mountRoutes } from '../http/route.js';
import { scimDiscoveryRoutes } from './scim-discovery.routes.js';
import { SCIM_CONTENT_TYPE, scimError, scimErrorHandler } from './scim-errors.js';
import { scimUserRoutes } from './scim-users.routes.js';

export const SCIM_BASE_PATH = '/scim/v2';

export interface ScimApiOptions {
  readonly db: Kysely<ControlDatabase>;
  readonly authenticate: Authenticate;
  readonly auditEnabled: boolean;
  readonly log: Logger;
}

export const scimRoutes = [...scimDiscoveryRoutes, ...scimUserRoutes];

/**
 * Identity providers send one static bearer token: here it is an admin API key, checked by the admin
 * API's own key authentication (revocation, expiry, rejection audit). JWTs are not taken: the key
 * names the organisation and its scope, and an IdP cannot mint a token for itself.
 */
const bearerApiKey: RequestHandler = (req, _res, next) => {
  const authorization = req.headers.authorization ?? '';
  const match = /^bearer\s+(\S+)\s*$/i.exec(authorization);
  delete req.headers[API_KEY_HEADER];
  delete req.headers.authorization;
  if (!match?.[1]) {
    next(scimError(401, 'missing credentials: send an admin API key as Authorization: Bearer <key>'));
    return;
  }
  req.headers[API_KEY_HEADER] = match[1];
  next();
};

/** Parsed bodies nest at most MAX_JSON_DEPTH levels and hold Unicode text only (as /v1 requires). */
const wellFormedBody: RequestHandler = (req, _res, next) => {
  const problem = req.body === undefined ? undefined : jsonInputProblem(req.body, 'body', MAX_JSON_DEPTH);
  next(problem ? scimError(400, problem.message, 'invalidSyntax') : undefined);
};

export function scimApi(options: ScimApiOptions): (app: Express) => void {
  return (app) => {
    const router = express.Router();
    router.use((_req, res, next) => {
      res.type(SCIM_CONTENT_TYPE);
      next();
    });
    router.use(bearerApiKey);
    router.use(
      express.json({ limit: MAX_BODY_BYTES, strict: true, type: ['application/json', SCIM_CONTENT_TYPE] }),
    );
    router.use(wellFormedBody);
    mountRoutes(router, scimRoutes, options);
    router.use((req, _res, next) =>
      next(scimError(404, `no SCIM endpoint ${req.method} ${req.baseUrl}${req.path}`)),
    );
    router.use(scimErrorHandler(options.log));
    app.use(SCIM_BASE_PATH, router);
  };
}
