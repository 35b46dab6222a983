// Key and token checks for OpenAI, Anthropic, Azure and Google (Vertex), with each provider's own errors.
import type { IncomingHttpHeaders } from 'node:http';
import type { MockState } from './context.js';
import {
  anthropicError,
  azureError,
  cohereError,
  googleError,
  openaiError,
  type ProviderError,
} from './errors.js';
import type { KeyedProvider } from './types.js';

export type AuthKind =
  | 'openai'
  | 'anthropic'
  | 'azure'
  | 'google'
  | 'google-key'
  | 'cohere'
  | 'sigv4'
  | 'none';

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const raw = headers[name];
  const value = Array.isArray(raw) ? raw[0] : raw;
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

/** The token of an `Authorization: Bearer <token>` header. */
export function bearerToken(headers: IncomingHttpHeaders): string | undefined {
  const match = /^Bearer\s+(\S.*)$/i.exec(header(headers, 'authorization') ?? '');
  return match?.[1]?.trim();
}

function accepted(state: MockState, provider: KeyedProvider, key: string): boolean {
  const allowed = state.apiKeys[provider];
  return allowed === undefined || allowed.has(key);
}

/** How OpenAI echoes a wrong key: first and last characters only. */
function maskKey(key: string): string {
  return key.length <= 8 ? '*'.repeat(key.length) : `${key.slice(0, 3)}***${key.slice(-4)}`;
}

export function checkOpenAiAuth(state: MockState, headers: IncomingHttpHeaders): ProviderError | undefined {
  const token = bearerToken(headers);
  if (token === undefined) {
    return openaiError(
      401,
      "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
      'invalid_request_error',
    );
  }
  if (!accepted(state, 'openai', token)) {
    return openaiError(
      401,
      `Incorrect API key provided: ${maskKey(token)}. You can find your API key at https://platform.openai.com/account/api-keys.`,
      'invalid_request_error',
      'invalid_api_key',
    );
  }
  return undefined;
}

export function checkAnthropicAuth(
  state: MockState,
  headers: IncomingHttpHeaders,
): ProviderError | undefined {
  const key = header(headers, 'x-api-key');
  if (key === undefined) return anthropicError(401, 'authentication_error', 'x-api-key header is required');
  if (!accepted(state, 'anthropic', key))
    return anthropicError(401, 'authentication_error', 'invalid x-api-key');
  if (header(headers, 'anthropic-version') === undefined) {
    return anthropicError(400, 'invalid_request_error', 'anthropic-version: header is required');
  }
  return undefined;
}

export function checkAzureAuth(state: MockState, headers: IncomingHttpHeaders): ProviderError | undefined {
  const key = header(headers, 'api-key') ?? bearerToken(headers);
  if (key === undefined) {
    return azureError(
      401,
      '401',
      'Access denied due to missing subscription key. Make sure to include subscription key when making requests to an API.',
    );
  }
  if (!accepted(state, 'azure', key)) {
    return azureError(
      401,
      '401',
      'Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.',
    );
  }
  return undefined;
}

export function checkGoogleAuth(state: MockState, headers: IncomingHttpHeaders): ProviderError | undefined {
  const token = bearerToken(headers);
  const hint =
    'Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.';
  if (token === undefined)
    return googleError(401, `Request is missing required authentication credential. ${hint}`);
  if (!accepted(state, 'vertex', token))
    return googleError(401, `Request had invalid authentication credentials. ${hint}`);
  return undefined;
}

/** Google AI Studio: the API key in `x-goog-api-key` (Google's SDKs send it there). */
export function checkGoogleKeyAuth(
  state: MockState,
  headers: IncomingHttpHeaders,
): ProviderError | undefined {
  const key = header(headers, 'x-goog-api-key');
  if (key === undefined) {
    return googleError(
      403,
      "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
      'PERMISSION_DENIED',
    );
  }
  if (!accepted(state, 'google', key)) {
    return googleError(400, 'API key not valid. Please pass a valid API key.', 'INVALID_ARGUMENT');
  }
  return undefined;
}

/** Cohere: `Authorization: Bearer <key>`; its errors are `{"message"}`. */
export function checkCohereAuth(state: MockState, headers: IncomingHttpHeaders): ProviderError | undefined {
  const token = bearerToken(headers);
  if (token === undefined) return cohereError(401, 'no api key supplied');
  if (!accepted(state, 'cohere', token)) return cohereError(401, 'invalid api token');
  return undefined;
}
