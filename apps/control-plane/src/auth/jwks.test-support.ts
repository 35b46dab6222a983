// Test support for token authentication (a real JWKS server and token builders) lives in
// @aigw/jwt-auth; this module keeps the control plane tests' import path for it.
export {
  closedUrl,
  hmacToken,
  type JwksMode,
  type JwksServer,
  makeKey,
  type SignOptions,
  signToken,
  startJwksServer,
  type TestKey,
  unsignedToken,
} from '@aigw/jwt-auth/test-support';
