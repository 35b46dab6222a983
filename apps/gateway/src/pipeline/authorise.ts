// Stage: may this caller do what the route does? Scopes of the key or token (spec 5.3 and 2.5):
// provider calls (every `/v1` request and realtime session) need `completions.write`.
import type { Identity } from '../access/index.js';
import { gatewayError } from '../errors.js';
import { H } from '../request/service-headers.js';

/** The scope of calling a provider through the gateway, whatever the endpoint or method. */
export const PROVIDER_CALL_SCOPE = 'completions.write';

export function authorise(
  identity: Identity,
  scope: string = PROVIDER_CALL_SCOPE,
  purpose = 'call providers',
): void {
  if (identity.scopes.includes(scope)) return;
  throw gatewayError(
    'insufficient_scope',
    `this ${identity.via === 'jwt' ? 'token' : 'API key'} does not hold the ${scope} scope needed to ${purpose}`,
    { param: H.apiKey },
  );
}
