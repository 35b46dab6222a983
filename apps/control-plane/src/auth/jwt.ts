// Token authentication (spec 5.4) lives in @aigw/jwt-auth, shared with the gateway; this module keeps
// the control plane's import path for it.
export {
  createJwtVerifier,
  type JwtSettings,
  type JwtVerifier,
  type JwtVerifierOptions,
  TokenError,
  type TokenFailureReason,
  type TokenIdentity,
  type TokenRole,
} from '@aigw/jwt-auth';
