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
  JWT_JWKS_URL: serviceUrl(['https:', 'http:'])
    .optional()
    .describe(
      '`https://` (or `http://`) URL of the key set of token authentication (spec 5.4, docs/control-plane-auth.md). Unset: token authentication is off.',
    ),
  JWT_ISSUER: z.string().optional().describe('Required with JWT_JWKS_URL: the only accepted `iss`.'),
  JWT_AUDIENCE: z
    .string()
    .optional()
    .describe('Required with JWT_JWKS_URL: `aud` must be this string or an array that contains it.'),
  JWT_ALGORITHMS: z
    .string()
    .default('RS256,ES256')
    .transform((v) =>
      v
        .split(',')
        .map((a) => a.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.enum(JWT_ALGORITHMS)).min(1))
    .describe(
      'Pinned algorithms, comma-separated: `RS*`, `PS*`, `ES*` (256/384/512) and `EdDSA`; `none` and HMAC are never accepted.',
    ),
  JWT_CLOCK_SKEW_SECONDS: z.coerce
    .number()
    .int()
    .min(0)
    .max(300)
    .default(30)
    .describe('Tolerance (seconds) applied to `exp` and `nbf`.'),
  JWT_CLAIM_USER: claimName('sub').describe('Claim holding the user id (dotted names read nested claims).'),
  JWT_CLAIM_ORGANISATION: claimName('organisation_id').describe('Claim holding the organisation id.'),
  JWT_CLAIM_WORKSPACE: claimName('workspace_id').describe(
    'Claim holding the workspace id (absent or `null`: an organisation-level token).',
  ),
  JWT_CLAIM_ROLE: claimName('role').describe(
    'Claim holding the role (`owner`, `admin`, `manager` or `member`).',
  ),
  JWT_CLAIM_SCOPES: claimName('scope').describe(
    'Claim holding the scopes (a space-separated string or an array).',
  ),
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
