// The shared JWT_* settings: defaults, pinned algorithms, and issuer/audience required with a JWKS URL.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { checkJwtSettings, jwtSettingsShape } from './jwt-settings.js';

const schema = z.object(jwtSettingsShape).superRefine(checkJwtSettings);

describe('JWT settings', () => {
  it('is off with defaults when nothing is set', () => {
    const parsed = schema.parse({});
    expect(parsed.JWT_JWKS_URL).toBeUndefined();
    expect(parsed).toMatchObject({
      JWT_ALGORITHMS: ['RS256', 'ES256'],
      JWT_CLOCK_SKEW_SECONDS: 30,
      JWT_CLAIM_USER: 'sub',
      JWT_CLAIM_WORKSPACE: 'workspace_id',
    });
  });

  it('requires an issuer and an audience once a JWKS URL is set', () => {
    const result = schema.safeParse({ JWT_JWKS_URL: 'https://idp.example.test/jwks.json' });
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((i) => i.path.join('.')).sort()).toEqual(['JWT_AUDIENCE', 'JWT_ISSUER']);
  });

  it('never accepts HMAC or unsigned algorithms', () => {
    expect(schema.safeParse({ JWT_ALGORITHMS: 'RS256,HS256' }).success).toBe(false);
    expect(schema.safeParse({ JWT_ALGORITHMS: 'none' }).success).toBe(false);
    expect(schema.parse({ JWT_ALGORITHMS: ' ES384 , EdDSA ' }).JWT_ALGORITHMS).toEqual(['ES384', 'EdDSA']);
  });
});
