// The JWT_* settings of token authentication (spec 5.4), as one zod shape each app spreads into its
// own config schema, so the control plane and the gateway read the same names the same way.
import { serviceUrl } from '@aigw/runtime';
import { z } from 'zod';

/** Asymmetric algorithms only: `none` and HMAC (HS*) are never accepted. */
export const JWT_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
] as const;

export type JwtAlgorithm = (typeof JWT_ALGORITHMS)[number];

const claimName = (fallback: string) =>
  z
    .string()
    .regex(/^[\w.:/-]{1,128}$/, 'must be a claim name (letters, digits, _ . : / -)')
    .default(fallback);

export const jwtSettingsShape = {
  /** Token authentication is on only when a JWKS URL is set. */
  JWT_JWKS_URL: serviceUrl(['https:', 'http:']).optional(),
  JWT_ISSUER: z.string().optional(),
  JWT_AUDIENCE: z.string().optional(),
  /** Pinned algorithms. */
  JWT_ALGORITHMS: z
    .string()
    .default('RS256,ES256')
    .transform((v) =>
      v
        .split(',')
        .map((a) => a.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.enum(JWT_ALGORITHMS)).min(1)),
  JWT_CLOCK_SKEW_SECONDS: z.coerce.number().int().min(0).max(300).default(30),
  /** Claim names mapped to the caller's identity. Dotted names read nested claims. */
  JWT_CLAIM_USER: claimName('sub'),
  JWT_CLAIM_ORGANISATION: claimName('organisation_id'),
  JWT_CLAIM_WORKSPACE: claimName('workspace_id'),
  JWT_CLAIM_ROLE: claimName('role'),
  JWT_CLAIM_SCOPES: claimName('scope'),
};

export interface JwtSettings {
  readonly JWT_JWKS_URL?: string | undefined;
  readonly JWT_ISSUER?: string | undefined;
  readonly JWT_AUDIENCE?: string | undefined;
  readonly JWT_ALGORITHMS: readonly string[];
  readonly JWT_CLOCK_SKEW_SECONDS: number;
  readonly JWT_CLAIM_USER: string;
  readonly JWT_CLAIM_ORGANISATION: string;
  readonly JWT_CLAIM_WORKSPACE: string;
  readonly JWT_CLAIM_ROLE: string;
  readonly JWT_CLAIM_SCOPES: string;
}

/** For an app schema's superRefine: issuer and audience are required once a JWKS URL is set. */
export function checkJwtSettings(
  s: Pick<JwtSettings, 'JWT_JWKS_URL' | 'JWT_ISSUER' | 'JWT_AUDIENCE'>,
  ctx: z.RefinementCtx,
): void {
  if (s.JWT_JWKS_URL === undefined) return;
  for (const key of ['JWT_ISSUER', 'JWT_AUDIENCE'] as const) {
    if (s[key] === undefined)
      ctx.addIssue({ code: 'custom', path: [key], message: 'required when JWT_JWKS_URL is set' });
  }
}
