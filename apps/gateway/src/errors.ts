// Gateway-made errors: stable codes, and the one place that writes their envelope (to an HTTP
// response or to a socket refused before a WebSocket upgrade), with the `x-service-gateway-error`
// header so clients can tell them from provider errors (which pass through).
import { type ServerResponse, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { AppError, flaggedError, GATEWAY_ERROR_HEADER, isFlaggedError } from '@aigw/runtime';

export { GATEWAY_ERROR_HEADER };

const CODES = {
  /** A header or body the gateway must read is malformed. */
  bad_request: { status: 400, type: 'invalid_request_error' },
  /** A header value is not acceptable (e.g. not valid JSON, or unsafe in a hostname). */
  invalid_header: { status: 400, type: 'invalid_request_error' },
  /** The JSON body the gateway had to read does not parse. */
  invalid_json: { status: 400, type: 'invalid_request_error' },
  /** No provider could be determined from the headers. */
  missing_provider: { status: 400, type: 'invalid_request_error' },
  /** `x-service-provider` names a provider the gateway does not know. */
  unknown_provider: { status: 400, type: 'invalid_request_error' },
  /** `x-service-config` does not validate (`param` holds the JSON path of the first issue). */
  invalid_config: { status: 400, type: 'invalid_request_error' },
  /** The config needs control-plane data a standalone gateway does not have (saved ids, `@slug`). */
  config_unavailable: { status: 400, type: 'invalid_request_error' },
  /** A conditional node has no condition that holds and no default. */
  no_matching_target: { status: 400, type: 'invalid_request_error' },
  /** The custom host is not an allowed public http(s) URL (SSRF protection). */
  custom_host_blocked: { status: 400, type: 'invalid_request_error' },
  /** Control-plane mode: `x-service-provider` names a provider but no provider credential came with it. */
  missing_provider_auth: { status: 400, type: 'invalid_request_error' },
  /** Headers that name two providers, or send a managed provider's credentials to a custom host. */
  conflicting_credentials: { status: 400, type: 'invalid_request_error' },
  /** `@slug` or virtual key not found in the key's workspace. */
  provider_not_found: { status: 400, type: 'invalid_request_error' },
  /** `x-service-config` names no saved, active config of the key's workspace. */
  config_not_found: { status: 400, type: 'invalid_request_error' },
  /** `x-service-deployment` names no active deployment of the key's workspace. */
  deployment_not_found: { status: 400, type: 'invalid_request_error' },
  /** A config names a saved guardrail that is not an active guardrail of the key's workspace or organisation. */
  guardrail_not_found: { status: 400, type: 'invalid_request_error' },
  /** `/v1/prompts/{id}/completions`: no active prompt (or label, or version) of that name in the key's workspace. */
  prompt_not_found: { status: 404, type: 'invalid_request_error' },
  /** The prompt's template needs variables the request did not send (the message names them). */
  missing_variables: { status: 400, type: 'invalid_request_error' },
  /** The prompt cannot be rendered as the request asks (an unknown partial, `messages` sent as an override). */
  invalid_prompt: { status: 400, type: 'invalid_request_error' },
  /** Control-plane mode: no `x-service-api-key`. */
  missing_api_key: { status: 401, type: 'authentication_error' },
  /** Unknown, revoked, disabled or archived API key. */
  invalid_api_key: { status: 401, type: 'authentication_error' },
  /** The API key is past its expiry (or marked expired). */
  api_key_expired: { status: 401, type: 'authentication_error' },
  /** A JWT in `x-service-api-key` was refused (the message says why). */
  invalid_token: { status: 401, type: 'authentication_error' },
  /** Admin keys and organisation-level tokens cannot call providers: a workspace is needed. */
  workspace_key_required: { status: 403, type: 'permission_error' },
  /** The key or token does not hold the scope the route needs (`completions.write` for provider calls). */
  insufficient_scope: { status: 403, type: 'permission_error' },
  /** The key's workspace is archived. */
  workspace_archived: { status: 403, type: 'permission_error' },
  /** The key's organisation is disabled. */
  organisation_disabled: { status: 403, type: 'permission_error' },
  /** The managed provider, virtual key or its integration is expired, disabled, archived or not shared with the workspace. */
  provider_unavailable: { status: 403, type: 'permission_error' },
  /** The key or token may not use this MCP server (not in its user access). */
  mcp_access_denied: { status: 403, type: 'permission_error' },
  /** The MCP server's integration is archived or gone. */
  mcp_server_unavailable: { status: 403, type: 'permission_error' },
  /** `/v1/mcp/<slug>` names no active MCP server of the key's workspace (or the gateway is standalone). */
  mcp_server_not_found: { status: 404, type: 'not_found_error' },
  /** The API key runs its default config on every request (`allow_config_override: false`): the request named another. */
  config_override_not_allowed: { status: 403, type: 'permission_error' },
  /** The model is not in the managed provider's (or its integration's) allow-list. */
  model_not_allowed: { status: 403, type: 'permission_error' },
  /**
   * A batch created under an allow-list: its input file could not be read from the provider to check
   * the models it runs (pipeline/batch-models.ts).
   */
  batch_input_unchecked: { status: 502, type: 'upstream_error' },
  /** The managed provider's credentials cannot be opened on this gateway (MASTER_KEY unset or wrong). */
  credentials_unavailable: { status: 500, type: 'server_error' },
  /** `x-service-request-timeout` elapsed before the provider answered. */
  request_timeout: { status: 408, type: 'timeout_error' },
  /** A budget (usage limit) is exhausted: usage >= credit_limit; the code names who carries it. */
  policy_usage_limit_exhausted: { status: 412, type: 'usage_limit_error' },
  api_key_usage_limit_exhausted: { status: 412, type: 'usage_limit_error' },
  workspace_usage_limit_exhausted: { status: 412, type: 'usage_limit_error' },
  provider_usage_limit_exhausted: { status: 412, type: 'usage_limit_error' },
  integration_usage_limit_exhausted: { status: 412, type: 'usage_limit_error' },
  virtual_key_usage_limit_exhausted: { status: 412, type: 'usage_limit_error' },
  payload_too_large: { status: 413, type: 'invalid_request_error' },
  /** A translated request (docs/unified-api.md) uses a parameter the target provider cannot take. */
  unsupported_parameter: { status: 400, type: 'invalid_request_error' },
  /** A rate limit refused the request (`retry-after`); the code names who carries it. */
  policy_rate_limited: { status: 429, type: 'rate_limit_error' },
  api_key_rate_limited: { status: 429, type: 'rate_limit_error' },
  workspace_rate_limited: { status: 429, type: 'rate_limit_error' },
  provider_rate_limited: { status: 429, type: 'rate_limit_error' },
  integration_rate_limited: { status: 429, type: 'rate_limit_error' },
  virtual_key_rate_limited: { status: 429, type: 'rate_limit_error' },
  /** What is left of a budget is reserved by requests in flight (`retry-after`). */
  usage_limit_in_flight: { status: 429, type: 'rate_limit_error' },
  /**
   * A config's guardrail with `deny` failed: the envelope plus `hook_results`
   * (guardrails/response-body.ts; written by the config relay, which also keeps it in the event).
   */
  guardrail_denied: { status: 446, type: 'guardrail_error' },
  upstream_unreachable: { status: 502, type: 'upstream_error' },
  /** Control-plane mode: no snapshot is loaded yet (starting up), so no key can be checked (`retry-after`). */
  snapshot_not_loaded: { status: 503, type: 'server_error' },
  /**
   * A token's signing keys could not be fetched from JWT_JWKS_URL (the identity provider is down):
   * not the token's fault, so not a 401 that SDKs take for a bad key (`retry-after`).
   */
  identity_provider_unavailable: { status: 503, type: 'server_error' },
  /** Redis is down and LIMITS_REDIS_DOWN_* is `closed`: limits cannot be checked (`retry-after`). */
  limits_unavailable: { status: 503, type: 'server_error' },
  upstream_timeout: { status: 504, type: 'upstream_error' },
} as const satisfies Record<string, { status: number; type: string }>;

export type GatewayErrorCode = keyof typeof CODES;

/** The status a code is answered with. */
export function gatewayErrorStatus(code: GatewayErrorCode): number {
  return CODES[code].status;
}

export function gatewayError(
  code: GatewayErrorCode,
  message: string,
  options: { param?: string; cause?: unknown } = {},
): AppError {
  return flaggedError(CODES, code, message, options);
}

export function isGatewayError(err: unknown, code?: GatewayErrorCode): err is AppError {
  return isFlaggedError(err, code);
}

/** A gateway error that carries response headers of its own (`retry-after`, `x-ratelimit-*`). */
export function gatewayErrorWithHeaders(
  code: GatewayErrorCode,
  message: string,
  headers: Readonly<Record<string, string>>,
): AppError {
  return flaggedError(CODES, code, message, { headers });
}

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Answers `res` with the error's envelope: its own headers (`retry-after`, `x-ratelimit-*`, the
 * gateway-error flag), then `extra` (trace id, provider), then the content type.
 */
export function writeError(
  res: ServerResponse,
  error: AppError,
  extra?: Readonly<Record<string, string>>,
): void {
  const answer = errorAnswer(error);
  // A body too large is not read to its end: the connection closes after the answer instead of
  // node:http reading the rest (up to REQUEST_BODY_TIMEOUT_MS) only to throw it away.
  const close = answer.status === 413 ? CLOSE : undefined;
  res.writeHead(answer.status, { ...answer.headers, ...extra, ...close });
  res.end(answer.body);
}

const CLOSE = { connection: 'close' } as const;

/** The status, headers and body of an error's answer, for writers that send it themselves. */
export function errorAnswer(error: AppError): {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: Buffer;
} {
  return {
    status: error.status,
    headers: { ...error.headers, 'content-type': JSON_TYPE },
    body: Buffer.from(JSON.stringify(error.toBody()), 'utf8'),
  };
}

/** The same answer as a raw HTTP/1.1 response on a socket whose upgrade is refused. */
export function writeErrorToSocket(
  socket: Duplex,
  error: AppError,
  extra?: Readonly<Record<string, string>>,
): void {
  const answer = errorAnswer(error);
  let head = `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status] ?? 'Error'}\r\n`;
  const headers: Record<string, string> = { ...answer.headers, ...extra };
  for (const name in headers) head += `${name}: ${headers[name]}\r\n`;
  head += `content-length: ${answer.body.length}\r\nconnection: close\r\n\r\n`;
  socket.write(head);
  socket.end(answer.body);
}

/**
 * V8 ran out of stack. JSON.parse copes with any depth, but JSON.stringify and the walks over a
 * parsed body recurse: a client's body nested thousands deep is the input that gets here.
 */
export function isStackOverflow(err: unknown): boolean {
  return err instanceof RangeError && err.message === 'Maximum call stack size exceeded';
}

/** Any failure as the gateway error a client gets (an unexpected one is a 400 that hides its cause). */
export function asGatewayError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (isStackOverflow(err)) {
    return gatewayError('bad_request', 'The request JSON is nested too deeply to process', { cause: err });
  }
  return gatewayError('bad_request', 'The request could not be processed', { cause: err });
}
