// Stage: who calls. Reads the `x-service-*` headers, then (control-plane mode) the API key or JWT
// in `x-service-api-key` against the request's snapshot. Standalone gateways check no key.
import type { AccessResolver, Identity } from '../access/index.js';
import { parseServiceHeaders } from '../request/service-headers.js';
import type { Snapshot } from '../snapshot/index.js';
import type { RequestContext } from './request-context.js';

/** The caller, with the snapshot it was found in (the later stages read the same one). */
export interface Caller {
  readonly snapshot: Snapshot;
  readonly identity: Identity;
}

/** Returns undefined in standalone mode; a promise only while a JWT's key set is fetched. */
export function identify(
  ctx: RequestContext,
  access: AccessResolver | undefined,
): Caller | Promise<Caller> | undefined {
  const service = parseServiceHeaders(ctx.req.headers);
  ctx.service = service;
  // The trace id and provider go out with the response (forward puts them first) or the error.
  ctx.facts.traceId = service.traceId;
  ctx.facts.metadata = service.metadata;
  if (!access) return undefined;
  const snapshot = access.current();
  const identity = access.identify(snapshot, ctx.req.headers);
  return identity instanceof Promise
    ? identity.then((found) => ({ snapshot, identity: found }))
    : { snapshot, identity };
}
