// Where an API error belongs in a form: the API names the field in `param` (`body.scopes`,
// `body.scopes.3`, `body.credentials.api_key`, `body.secret_mappings[0].secret_reference_id`); a
// form field shows the errors at or below its path, and the form shows the rest above its buttons.
import { ApiError } from '../api/client.js';

/** True when `param` is `field` or a path below it (`body.scopes.3`, `body.scopes[3]` are below `body.scopes`). */
export function paramBelongsTo(param: string | null | undefined, field: string): boolean {
  if (!param) return false;
  return param === field || param.startsWith(`${field}.`) || param.startsWith(`${field}[`);
}

/** The error's message when it names `field` (or a path below it), else undefined. */
export function errorFor(error: unknown, field: string): string | undefined {
  return error instanceof ApiError && paramBelongsTo(error.param, field) ? error.message : undefined;
}

/** The error unless one of `fields` shows it next to itself. */
export function unplacedError(error: Error | undefined, fields: readonly string[]): Error | undefined {
  if (error === undefined) return undefined;
  if (error instanceof ApiError && fields.some((field) => paramBelongsTo(error.param, field)))
    return undefined;
  return error;
}
