// Gateway-made errors: stable codes, rendered by the runtime's single error boundary with the
// `x-service-gateway-error` header so clients can tell them from provider errors (which pass through).
import { AppError } from '@aigw/runtime';

export const GATEWAY_ERROR_HEADER = 'x-service-gateway-error';

export type GatewayErrorCode =
  | 'route_not_found'
  | 'upstream_unreachable'
  | 'upstream_timeout'
  | 'bad_request';

const STATUS: Record<GatewayErrorCode, { status: number; type: string }> = {
  bad_request: { status: 400, type: 'invalid_request_error' },
  route_not_found: { status: 404, type: 'not_found' },
  upstream_unreachable: { status: 502, type: 'upstream_error' },
  upstream_timeout: { status: 504, type: 'upstream_error' },
};

export function gatewayError(
  code: GatewayErrorCode,
  message: string,
  options: { param?: string } = {},
): AppError {
  const { status, type } = STATUS[code];
  return new AppError(status, type, message, {
    code,
    ...(options.param === undefined ? {} : { param: options.param }),
    headers: { [GATEWAY_ERROR_HEADER]: 'true' },
  });
}
