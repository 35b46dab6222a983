// Error bodies in each provider's own shape, and the status -> error-type tables they use.

/** Which provider's error envelope a route answers with. */
export type ErrorStyle = 'openai' | 'anthropic' | 'azure' | 'bedrock' | 'google' | 'cohere';

export interface ProviderError {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export function openaiError(
  status: number,
  message: string,
  type: string,
  code: string | null = null,
  param: string | null = null,
): ProviderError {
  return { status, body: { error: { message, type, param, code } } };
}

export function anthropicError(status: number, type: string, message: string): ProviderError {
  return { status, body: { type: 'error', error: { type, message } } };
}

/** Azure's gateway-level errors (auth, routing) use string codes and no type. */
export function azureError(status: number, code: string, message: string): ProviderError {
  return { status, body: { error: { code, message } } };
}

/** Bedrock (AWS JSON protocol): `{"message"}` body and the error name in `x-amzn-errortype`. */
export function bedrockError(status: number, errorType: string, message: string): ProviderError {
  return {
    status,
    body: { message },
    headers: {
      'x-amzn-errortype': `${errorType}:http://internal.amazon.com/coral/com.amazon.coral.service/`,
    },
  };
}

export function googleError(
  status: number,
  message: string,
  statusText = googleStatus(status),
): ProviderError {
  return { status, body: { error: { code: status, message, status: statusText } } };
}

const OPENAI_TYPES: Record<number, [type: string, code: string | null, message: string]> = {
  400: ['invalid_request_error', null, 'Bad request (simulated by the mock provider).'],
  401: ['invalid_request_error', 'invalid_api_key', 'Incorrect API key provided (simulated).'],
  403: ['permission_error', null, 'You are not allowed to access this resource (simulated).'],
  404: ['invalid_request_error', null, 'The requested resource does not exist (simulated).'],
  408: ['timeout', null, 'Request timed out (simulated).'],
  409: ['invalid_request_error', null, 'Conflict (simulated).'],
  422: ['invalid_request_error', null, 'Unprocessable entity (simulated).'],
  429: ['requests', 'rate_limit_exceeded', 'Rate limit reached for requests (simulated).'],
  500: ['server_error', null, 'The server had an error while processing your request (simulated).'],
  502: ['server_error', null, 'Bad gateway (simulated).'],
  503: ['server_error', null, 'The engine is currently overloaded, please try again later (simulated).'],
  504: ['server_error', null, 'Gateway timeout (simulated).'],
};

const ANTHROPIC_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};

const BEDROCK_TYPES: Record<number, string> = {
  400: 'ValidationException',
  403: 'AccessDeniedException',
  404: 'ResourceNotFoundException',
  408: 'ModelTimeoutException',
  424: 'ModelErrorException',
  429: 'ThrottlingException',
  500: 'InternalServerException',
  503: 'ServiceUnavailableException',
};

const GOOGLE_STATUS: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  409: 'ABORTED',
  429: 'RESOURCE_EXHAUSTED',
  499: 'CANCELLED',
  500: 'INTERNAL',
  501: 'NOT_IMPLEMENTED',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

function googleStatus(status: number): string {
  return GOOGLE_STATUS[status] ?? (status >= 500 ? 'INTERNAL' : 'FAILED_PRECONDITION');
}

/** The error a knob (`status`, `failFirst`) produces, shaped like the route's provider would. */
export function simulatedError(style: ErrorStyle, status: number): ProviderError {
  const message = `Simulated ${status} from the mock provider.`;
  switch (style) {
    case 'openai': {
      const [type, code, text] = OPENAI_TYPES[status] ?? [
        status >= 500 ? 'server_error' : 'invalid_request_error',
        null,
        message,
      ];
      return openaiError(status, text, type, code);
    }
    case 'azure': {
      const [type, code, text] = OPENAI_TYPES[status] ?? ['server_error', null, message];
      return { status, body: { error: { message: text, type, param: null, code: code ?? String(status) } } };
    }
    case 'anthropic':
      return anthropicError(
        status,
        ANTHROPIC_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error'),
        message,
      );
    case 'bedrock':
      return bedrockError(
        status,
        BEDROCK_TYPES[status] ?? (status >= 500 ? 'InternalServerException' : 'ValidationException'),
        message,
      );
    case 'google':
      return googleError(status, message);
    case 'cohere':
      return cohereError(status, message);
  }
}

/** A 400 for a request body the route cannot use, in the route's style. */
export function invalidRequest(
  style: ErrorStyle,
  message: string,
  param: string | null = null,
): ProviderError {
  switch (style) {
    case 'openai':
      return openaiError(
        400,
        message,
        'invalid_request_error',
        param ? 'missing_required_parameter' : null,
        param,
      );
    case 'azure':
      return { status: 400, body: { error: { message, type: 'invalid_request_error', param, code: null } } };
    case 'anthropic':
      return anthropicError(400, 'invalid_request_error', message);
    case 'bedrock':
      return bedrockError(400, 'ValidationException', message);
    case 'google':
      return googleError(400, message);
    case 'cohere':
      return cohereError(400, message);
  }
}

/** Cohere's error body: `{"message"}` (v2 adds an id). */
export function cohereError(status: number, message: string): ProviderError {
  return { status, body: { id: 'mock-error', message } };
}
