// JWT token authentication (spec 5.4) shared by the control plane and the gateway.
export {
  checkJwtSettings,
  JWT_ALGORITHMS,
  type JwtAlgorithm,
  type JwtSettings,
  jwtSettingsShape,
} from './jwt-settings.js';
export {
  createJwtVerifier,
  type JwtVerifier,
  type JwtVerifierOptions,
  TokenError,
  type TokenFailureReason,
  type TokenIdentity,
  type TokenRole,
} from './jwt-verifier.js';
