// OAuth 2.0 client credentials grant (RFC 6749 4.4): the access token the control plane's sync sends
// to an MCP server whose integration authenticates that way. Client authentication is HTTP Basic
// (RFC 6749 2.3.1), the method every authorisation server must support. The endpoint is an
// organisation's host: checked and pinned by outbound/outbound-fetch.ts.
import { type OutboundOptions, withOutboundHost } from '../outbound/outbound-fetch.js';

export interface ClientCredentials {
  readonly client_id: string;
  readonly client_secret: string;
  readonly token_url: string;
  readonly scope?: string;
}

/** The token endpoint's access token; errors name the status, never the secret. */
export async function clientCredentialsToken(
  creds: ClientCredentials,
  signal: AbortSignal,
  options: OutboundOptions = {},
): Promise<string> {
  const form = new URLSearchParams({ grant_type: 'client_credentials' });
  if (creds.scope) form.set('scope', creds.scope);
  const basic = Buffer.from(
    `${encodeURIComponent(creds.client_id)}:${encodeURIComponent(creds.client_secret)}`,
  ).toString('base64');
  const url = new URL(creds.token_url);
  return withOutboundHost(url, options, async (fetch) => {
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        authorization: `Basic ${basic}`,
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
      },
      body: form,
      redirect: 'error',
      signal,
    });
    if (!res.ok) throw new Error(`the token endpoint answered ${res.status}`);
    const body = (await res.json().catch(() => ({}))) as { access_token?: unknown };
    if (typeof body.access_token !== 'string' || body.access_token === '') {
      throw new Error('the token endpoint answered without an access_token');
    }
    return body.access_token;
  });
}
