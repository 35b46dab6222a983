// Token authentication against a real JWKS server: accepted tokens, claim mapping and every refusal reason.
import { CompactSign, exportSPKI, type JWTPayload } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { JwtSettings } from './jwt-settings.js';
import { jwtSettingsShape } from './jwt-settings.js';
import {
  createJwtVerifier,
  type JwtVerifier,
  type JwtVerifierOptions,
  TokenError,
  type TokenFailureReason,
} from './jwt-verifier.js';
import {
  closedUrl,
  hmacToken,
  type JwksServer,
  makeKey,
  signToken,
  startJwksServer,
  type TestKey,
  unsignedToken,
} from './test-support.js';

const ISSUER = 'https://idp.example.test/';
const AUDIENCE = 'aigw-control-plane';
const now = () => Math.floor(Date.now() / 1000);

let rsa: TestKey;
let ec: TestKey;
let server: JwksServer;
let verifier: JwtVerifier;

beforeAll(async () => {
  rsa = await makeKey('RS256', 'rsa-1');
  ec = await makeKey('ES256', 'ec-1');
  server = await startJwksServer([rsa.jwk, ec.jwk]);
  verifier = verifierFor();
});

afterAll(async () => {
  await server.close();
});

function settingsFor(overrides: Partial<JwtSettings> = {}): JwtSettings {
  return {
    JWT_JWKS_URL: server.url,
    JWT_ISSUER: ISSUER,
    JWT_AUDIENCE: AUDIENCE,
    JWT_ALGORITHMS: ['RS256', 'ES256'],
    JWT_CLOCK_SKEW_SECONDS: 30,
    JWT_CLAIM_USER: 'sub',
    JWT_CLAIM_ORGANISATION: 'organisation_id',
    JWT_CLAIM_WORKSPACE: 'workspace_id',
    JWT_CLAIM_ROLE: 'role',
    JWT_CLAIM_SCOPES: 'scope',
    ...overrides,
  };
}

function verifierFor(overrides: Partial<JwtSettings> = {}, options?: JwtVerifierOptions): JwtVerifier {
  const created = createJwtVerifier(settingsFor(overrides), options);
  if (created === null) throw new Error('expected a verifier');
  return created;
}

/** Valid workspace-member claims; an `undefined` override leaves that claim out of the token. */
function claims(overrides: Record<string, unknown> = {}): JWTPayload {
  return {
    iss: ISSUER,
    aud: AUDIENCE,
    sub: 'user-1',
    iat: now(),
    exp: now() + 600,
    jti: 'token-1',
    organisation_id: 'org-1',
    workspace_id: 'ws-1',
    role: 'member',
    scope: 'logs.view logs.list',
    ...overrides,
  };
}

async function refusal(token: string, using: JwtVerifier = verifier): Promise<TokenError> {
  const outcome = await using.verify(token).then(
    (identity) => new Error(`token accepted: ${JSON.stringify(identity)}`),
    (error: unknown) => error,
  );
  if (!(outcome instanceof TokenError)) throw outcome;
  return outcome;
}

/** The reason is right, the message says what is wrong, and no part of the token is echoed. */
function expectRefused(error: TokenError, token: string, reason: TokenFailureReason, says: RegExp): void {
  expect(error.reason).toBe(reason);
  expect(error.message).toMatch(says);
  if (token.length >= 8) expect(error.message).not.toContain(token);
  for (const part of token.split('.')) {
    if (part.length >= 8) expect(error.message).not.toContain(part);
  }
}

describe('createJwtVerifier', () => {
  it('is off (null) when no JWKS URL is configured', () => {
    expect(createJwtVerifier(settingsFor({ JWT_JWKS_URL: undefined }))).toBeNull();
  });

  it('refuses to start without an issuer and an audience', () => {
    expect(() => createJwtVerifier(settingsFor({ JWT_ISSUER: undefined }))).toThrow(/JWT_ISSUER/);
    expect(() => createJwtVerifier(settingsFor({ JWT_AUDIENCE: undefined }))).toThrow(/JWT_AUDIENCE/);
  });
});

describe('accepted tokens', () => {
  it('accepts an RS256 token and maps its claims', async () => {
    const exp = now() + 600;
    const identity = await verifier.verify(await signToken(rsa, claims({ exp })));
    expect(identity).toEqual({
      subject: 'user-1',
      organisationId: 'org-1',
      workspaceId: 'ws-1',
      role: 'member',
      scopes: ['logs.view', 'logs.list'],
      expiresAt: new Date(exp * 1000),
      tokenId: 'token-1',
    });
  });

  it('reads scopes from an array claim, drops duplicates and ignores OpenID Connect scopes', async () => {
    const token = await signToken(
      rsa,
      claims({
        scope: ['openid', 'virtual_keys.create', 'logs.export', 'virtual_keys.create', 'offline_access'],
      }),
    );
    expect((await verifier.verify(token)).scopes).toEqual(['virtual_keys.create', 'logs.export']);
  });

  it('maps an organisation-level admin token without workspace, scopes or jti', async () => {
    const token = await signToken(
      rsa,
      claims({ role: 'admin', workspace_id: undefined, scope: undefined, jti: undefined }),
    );
    const identity = await verifier.verify(token);
    expect(identity).toMatchObject({ role: 'admin', workspaceId: null, scopes: [], tokenId: null });
  });

  it('reads nested and namespaced claim names configured through the settings', async () => {
    const config = z.object(jwtSettingsShape).parse({
      JWT_JWKS_URL: server.url,
      JWT_ISSUER: ISSUER,
      JWT_AUDIENCE: AUDIENCE,
      JWT_CLAIM_USER: 'user.id',
      JWT_CLAIM_ORGANISATION: 'https://aigw.example/org',
      JWT_CLAIM_WORKSPACE: 'https://aigw.example/claims.workspace.id',
      JWT_CLAIM_ROLE: 'https://aigw.example/claims.role',
      JWT_CLAIM_SCOPES: 'permissions',
    });
    const nested = createJwtVerifier(config);
    if (nested === null) throw new Error('expected a verifier');
    const token = await signToken(rsa, {
      ...claims({ sub: undefined, organisation_id: undefined, workspace_id: undefined, role: undefined }),
      scope: 'openid',
      user: { id: 'user-9' },
      'https://aigw.example/org': 'org-9',
      'https://aigw.example/claims': { workspace: { id: 'ws-9' }, role: 'manager' },
      permissions: ['mcp.invoke'],
    });
    expect(await nested.verify(token)).toMatchObject({
      subject: 'user-9',
      organisationId: 'org-9',
      workspaceId: 'ws-9',
      role: 'manager',
      scopes: ['mcp.invoke'],
    });
  });

  it('accepts ES256 when it is allowed and refuses it when it is not', async () => {
    const token = await signToken(ec, claims());
    expect((await verifier.verify(token)).subject).toBe('user-1');
    const rsaOnly = verifierFor({ JWT_ALGORITHMS: ['RS256'] });
    expectRefused(await refusal(token, rsaOnly), token, 'algorithm_not_allowed', /accepted: RS256\b/);
  });

  it('accepts a token expired by less than the clock skew', async () => {
    const token = await signToken(rsa, claims({ iat: now() - 600, exp: now() - 10 }));
    expect((await verifier.verify(token)).subject).toBe('user-1');
  });

  it('accepts a token without kid when exactly one key matches its algorithm', async () => {
    const token = await signToken(rsa, claims(), { kid: null });
    expect((await verifier.verify(token)).subject).toBe('user-1');
  });

  it('accepts an audience array that includes the configured audience', async () => {
    const token = await signToken(rsa, claims({ aud: ['other-service', AUDIENCE] }));
    expect((await verifier.verify(token)).subject).toBe('user-1');
  });

  it('keeps two tokens with the same header apart (no identity is cached by a token prefix)', async () => {
    const first = await signToken(rsa, claims({ sub: 'user-a', role: 'member', scope: 'logs.view' }));
    const second = await signToken(
      rsa,
      claims({ sub: 'user-b', role: 'owner', workspace_id: undefined, scope: 'users.delete' }),
    );
    const header = first.split('.')[0] ?? '';
    expect(header.length).toBeGreaterThan(20);
    expect(second.startsWith(`${header}.`)).toBe(true);
    const [a, b] = await Promise.all([verifier.verify(first), verifier.verify(second)]);
    expect([a.subject, a.role, a.scopes]).toEqual(['user-a', 'member', ['logs.view']]);
    expect([b.subject, b.role, b.scopes]).toEqual(['user-b', 'owner', ['users.delete']]);
    expect((await verifier.verify(first)).subject).toBe('user-a');
  });

  it('refetches the key set for an unknown kid once the cooldown is over (key rotation)', async () => {
    const rotated = await makeKey('RS256', 'rsa-2');
    const jwks = await startJwksServer([rsa.jwk]);
    try {
      const rotating = createJwtVerifier(settingsFor({ JWT_JWKS_URL: jwks.url }), { cooldownMs: 0 });
      if (rotating === null) throw new Error('expected a verifier');
      await rotating.verify(await signToken(rsa, claims()));
      jwks.setKeys([rsa.jwk, rotated.jwk]);
      expect((await rotating.verify(await signToken(rotated, claims()))).subject).toBe('user-1');
      expect(jwks.requests).toBe(2);
    } finally {
      await jwks.close();
    }
  });
});

describe('refused tokens', () => {
  it('refuses an unsigned alg "none" token without fetching keys', async () => {
    const jwks = await startJwksServer([rsa.jwk]);
    try {
      const fresh = verifierFor({ JWT_JWKS_URL: jwks.url });
      const token = unsignedToken(claims({ role: 'owner' }));
      expectRefused(await refusal(token, fresh), token, 'algorithm_not_allowed', /alg "none"/);
      expect(jwks.requests).toBe(0);
    } finally {
      await jwks.close();
    }
  });

  it('refuses an HS256 token signed with the public key bytes (algorithm confusion)', async () => {
    const pem = new TextEncoder().encode(await exportSPKI(rsa.publicKey));
    const token = await hmacToken(pem, claims({ role: 'owner' }), rsa.kid);
    expectRefused(await refusal(token), token, 'algorithm_not_allowed', /HS\*/);
  });

  it('refuses a token signed by another key under a published kid', async () => {
    const impostor = await makeKey('RS256', rsa.kid);
    const token = await signToken(impostor, claims());
    expectRefused(await refusal(token), token, 'bad_signature', /signature does not verify/);
  });

  it('refuses a token whose claims were changed after signing', async () => {
    const [header, , signature] = (await signToken(rsa, claims())).split('.');
    const forged = Buffer.from(JSON.stringify(claims({ role: 'owner' }))).toString('base64url');
    const token = `${header}.${forged}.${signature}`;
    expectRefused(await refusal(token), token, 'bad_signature', /signature does not verify/);
  });

  it('refuses a kid that is not in the key set', async () => {
    const token = await signToken(await makeKey('RS256', 'retired'), claims());
    expectRefused(await refusal(token), token, 'unknown_key', /"kid"/);
  });

  it('refuses hostile kids (path traversal, SQL, huge) as unknown keys', async () => {
    const attacker = await makeKey('RS256', 'attacker');
    for (const kid of ['../../x', "x' OR '1'='1", '%2e%2e%2f', 'k'.repeat(4096)]) {
      const token = await signToken(attacker, claims({ role: 'owner' }), { kid });
      expectRefused(await refusal(token), token, 'unknown_key', /"kid"/);
    }
  });

  it('never follows jku, x5u or an embedded jwk: the attacker key set is not fetched', async () => {
    const attacker = await makeKey('RS256', 'attacker');
    const theirs = await startJwksServer([attacker.jwk]);
    try {
      for (const header of [
        { jku: theirs.url },
        { x5u: theirs.url },
        { jwk: attacker.jwk },
        { jku: theirs.url, x5u: theirs.url, jwk: attacker.jwk },
      ]) {
        const token = await signToken(attacker, claims({ role: 'owner' }), { header });
        expectRefused(await refusal(token), token, 'unknown_key', /"kid"/);
        // Under a kid the real key set publishes, the attacker's signature does not verify.
        const posing = await signToken(attacker, claims({ role: 'owner' }), { header, kid: rsa.kid });
        expectRefused(await refusal(posing), posing, 'bad_signature', /signature does not verify/);
      }
      expect(theirs.requests).toBe(0);
    } finally {
      await theirs.close();
    }
  });

  it('a flood of unknown kids fetches the key set once per cooldown (default 30 s)', async () => {
    const jwks = await startJwksServer([rsa.jwk]);
    try {
      const fresh = verifierFor({ JWT_JWKS_URL: jwks.url });
      await fresh.verify(await signToken(rsa, claims()));
      expect(jwks.requests).toBe(1);
      const stranger = await makeKey('RS256', 'stranger');
      const flood = await Promise.all(
        Array.from({ length: 50 }, (_, i) => signToken(stranger, claims(), { kid: `unknown-${i}` })),
      );
      const refusals = await Promise.all(flood.map((token) => refusal(token, fresh)));
      expect(refusals.map((r) => r.reason)).toEqual(flood.map(() => 'unknown_key'));
      expect(jwks.requests).toBe(1);
    } finally {
      await jwks.close();
    }
  });

  it('refuses a token without kid when several keys match its algorithm', async () => {
    const second = await makeKey('RS256', 'rsa-other');
    const jwks = await startJwksServer([rsa.jwk, second.jwk]);
    try {
      const token = await signToken(rsa, claims(), { kid: null });
      const ambiguous = verifierFor({ JWT_JWKS_URL: jwks.url });
      expectRefused(await refusal(token, ambiguous), token, 'unknown_key', /several keys/);
    } finally {
      await jwks.close();
    }
  });

  it('refuses a token expired beyond the clock skew', async () => {
    const token = await signToken(rsa, claims({ iat: now() - 600, exp: now() - 60 }));
    expectRefused(await refusal(token), token, 'expired', /expired.*clock skew of 30 s/);
    const strict = verifierFor({ JWT_CLOCK_SKEW_SECONDS: 0 });
    const recent = await signToken(rsa, claims({ exp: now() - 10 }));
    expectRefused(await refusal(recent, strict), recent, 'expired', /clock skew of 0 s/);
  });

  it('refuses a token that is not valid yet', async () => {
    const token = await signToken(rsa, claims({ nbf: now() + 120 }));
    expectRefused(await refusal(token), token, 'not_yet_valid', /"nbf" is in the future/);
  });

  it.each([
    ['no exp', { exp: undefined }, 'missing_exp', /no expiry/],
    ['an exp that is not a number', { exp: String(now() + 600) }, 'invalid_claim', /"exp".*NumericDate/],
    [
      'another issuer',
      { iss: 'https://evil.example.test/' },
      'wrong_issuer',
      /issuer this service does not trust/,
    ],
    ['no issuer', { iss: undefined }, 'wrong_issuer', /no issuer/],
    ['another audience', { aud: 'some-other-api' }, 'wrong_audience', /not meant for this service/],
    ['no audience', { aud: undefined }, 'wrong_audience', /no audience/],
    ['no organisation', { organisation_id: undefined }, 'missing_claim', /no "organisation_id" claim/],
    ['no user', { sub: undefined }, 'missing_claim', /no "sub" claim/],
    ['no role', { role: undefined }, 'missing_claim', /no "role" claim/],
    ['an unknown role', { role: 'superuser' }, 'invalid_claim', /"role".*owner, admin, manager, member/],
    ['a role that is not a string', { role: ['admin'] }, 'invalid_claim', /"role" claim must be one of/],
    [
      'a manager without workspace',
      { role: 'manager', workspace_id: undefined },
      'invalid_claim',
      /workspace role/,
    ],
    ['a member without workspace', { workspace_id: null }, 'invalid_claim', /"workspace_id" claim/],
    [
      'an organisation that is a number',
      { organisation_id: 42 },
      'invalid_claim',
      /"organisation_id".*string/,
    ],
    ['an organisation with a line break', { organisation_id: 'org\n1' }, 'invalid_claim', /printable/],
    ['an empty workspace', { workspace_id: '' }, 'invalid_claim', /"workspace_id" claim must be/],
    ['a malformed scope', { scope: 'logs.view Logs.Export' }, 'invalid_claim', /"resource\.action"/],
    ['a scope without action', { scope: ['admin'] }, 'invalid_claim', /"resource\.action"/],
    ['scopes that are not strings', { scope: [1, 2] }, 'invalid_claim', /space-separated string or an array/],
    ['a jti that is not a string', { jti: 7 }, 'invalid_claim', /"jti"/],
  ] as const)('refuses a token with %s', async (_case, overrides, reason, says) => {
    const token = await signToken(rsa, claims(overrides));
    expectRefused(await refusal(token), token, reason, says);
  });

  it.each([
    ['garbage', 'not-a-jwt'],
    ['empty', ''],
    ['three parts that are not JSON', 'aaaaaaaaaa.bbbbbbbbbb.cccccccccc'],
    ['a header without alg', `${Buffer.from('{"typ":"JWT"}').toString('base64url')}.e30.c2lnbmF0dXJl`],
  ])('refuses a malformed token (%s)', async (_case, token) => {
    expectRefused(await refusal(token), token, 'malformed', /not a well-formed signed JWT/);
  });

  it('refuses a signed token whose payload is not a claims object', async () => {
    const token = await new CompactSign(new TextEncoder().encode('["not", "claims"]'))
      .setProtectedHeader({ alg: 'RS256', kid: rsa.kid })
      .sign(rsa.privateKey);
    expectRefused(await refusal(token), token, 'malformed', /not a JSON object of claims/);
  });

  it('refuses an oversized token before parsing it', async () => {
    const token = await signToken(rsa, claims({ padding: 'x'.repeat(20_000) }));
    expectRefused(await refusal(token), token, 'malformed', /longer than 16384 characters/);
  });
});

describe('key set outages', () => {
  it('reports jwks_unavailable when the JWKS server is down', async () => {
    const down = verifierFor({ JWT_JWKS_URL: await closedUrl() });
    const token = await signToken(rsa, claims());
    expectRefused(await refusal(token, down), token, 'jwks_unavailable', /could not be reached/);
  });

  it.each(['error', 'invalid'] as const)(
    'reports jwks_unavailable when the JWKS server answers %s',
    async (mode) => {
      const jwks = await startJwksServer([rsa.jwk]);
      try {
        jwks.setMode(mode);
        const token = await signToken(rsa, claims());
        const failing = verifierFor({ JWT_JWKS_URL: jwks.url });
        expectRefused(
          await refusal(token, failing),
          token,
          'jwks_unavailable',
          /did not answer with a usable key set/,
        );
      } finally {
        await jwks.close();
      }
    },
  );

  it('reports jwks_unavailable when the JWKS request times out', async () => {
    const jwks = await startJwksServer([rsa.jwk]);
    try {
      jwks.setMode('hang');
      const token = await signToken(rsa, claims());
      const slow = verifierFor({ JWT_JWKS_URL: jwks.url }, { fetchTimeoutMs: 200 });
      expectRefused(await refusal(token, slow), token, 'jwks_unavailable', /timed out/);
    } finally {
      await jwks.close();
    }
  });
});
