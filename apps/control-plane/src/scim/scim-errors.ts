// SCIM's own error shape (RFC 7644 3.12): `{schemas, status, scimType?, detail}` as
// application/scim+json, for every answer under /scim/v2, whatever part of the stack refused.
import { AppError, isUnavailable, type Logger } from '@aigw/runtime';
import type { ErrorRequestHandler } from 'express';

export const SCIM_ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';
export const SCIM_CONTENT_TYPE = 'application/scim+json';

/** The RFC 7644 table 9 detail codes this server answers with. */
export type ScimType =
  | 'uniqueness'
  | 'invalidFilter'
  | 'invalidValue'
  | 'invalidSyntax'
  | 'noTarget'
  | 'invalidPath';

const SCIM_ERROR_TYPE = 'scim_error';

/** An error answered in SCIM's shape with `scimType` (AppError, so route audits see its status). */
export function scimError(status: number, detail: string, scimType?: ScimType): AppError {
  return new AppError(status, SCIM_ERROR_TYPE, detail, scimType === undefined ? {} : { code: scimType });
}

export const invalidFilter = (detail: string) => scimError(400, detail, 'invalidFilter');
export const invalidValue = (detail: string) => scimError(400, detail, 'invalidValue');
export const uniqueness = (detail: string) => scimError(409, detail, 'uniqueness');
export const scimNotFound = (detail: string) => scimError(404, detail);

interface ScimAnswer {
  readonly status: number;
  readonly scimType: ScimType | null;
  readonly detail: string;
  readonly headers: Readonly<Record<string, string>>;
}

/** Postgres unique violation: a concurrent create or rename took the userName first. */
function isUniqueViolation(err: unknown): boolean {
  return (err as { code?: unknown } | null)?.code === '23505';
}

function answerOf(err: unknown): ScimAnswer | null {
  const type = (err as { type?: unknown } | null)?.type;
  // Body-parser failures: not JSON, too large, not UTF-8.
  if (type === 'entity.parse.failed')
    return { status: 400, scimType: 'invalidSyntax', detail: 'request body is not valid JSON', headers: {} };
  if (type === 'entity.too.large')
    return { status: 413, scimType: null, detail: 'request body is too large', headers: {} };
  if (type === 'encoding.unsupported' || type === 'charset.unsupported')
    return { status: 400, scimType: 'invalidSyntax', detail: 'request body must be UTF-8 JSON', headers: {} };
  if (isUniqueViolation(err))
    return { status: 409, scimType: 'uniqueness', detail: 'userName is already taken', headers: {} };
  if (!(err instanceof AppError)) return null;
  let scimType: ScimType | null = null;
  if (err.type === SCIM_ERROR_TYPE) scimType = (err.code as ScimType | null) ?? null;
  // The admin API's validation failures (request schemas) are SCIM's invalidValue.
  else if (err.status === 400) scimType = 'invalidValue';
  const headers: Record<string, string> = { ...err.headers };
  if (err.status === 401) headers['www-authenticate'] = 'Bearer realm="scim"';
  return { status: err.status, scimType, detail: err.message, headers };
}

/** Renders every error of the SCIM router; unknown ones are a 500 whose cause stays in the log. */
export function scimErrorHandler(log: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    let answer = answerOf(err);
    if (!answer && isUnavailable(err))
      answer = {
        status: 503,
        scimType: null,
        detail: 'service unavailable: retry shortly',
        headers: { 'retry-after': '1' },
      };
    if (!answer) {
      log.error({ err, method: req.method, path: req.path }, 'SCIM request failed');
      answer = { status: 500, scimType: null, detail: 'internal server error', headers: {} };
    } else if (answer.status >= 500) log.warn({ err, path: req.path }, 'SCIM request failed');
    if (res.headersSent) return;
    for (const [name, value] of Object.entries(answer.headers)) res.setHeader(name, value);
    res
      .status(answer.status)
      .type(SCIM_CONTENT_TYPE)
      .json({
        schemas: [SCIM_ERROR_SCHEMA],
        status: String(answer.status),
        ...(answer.scimType === null ? {} : { scimType: answer.scimType }),
        detail: answer.detail,
      });
  };
}
