import { AuditOutcome } from '@aigw/proto';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { ADMIN_KEY, apiClient, startControlPlane, test } from '../../test/harness.js';
import { auditEvents } from '../../test/outbox-rows.js';
import { type JwksServer, makeKey, signToken, startJwksServer, type TestKey } from './jwks.test-support.js';

const ISSUER = 'https://issuer.test';
const AUDIENCE = 'aigw-admin';

let jwks: JwksServer;
let key: TestKey;

beforeAll(async () => {
  key = await makeKey('RS256', 'k1');
  jwks = await startJwksServer([key.jwk]);
});
afterAll(() => jwks.close());

function token(claims: Record<string, unknown>, expiresInS = 300): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return signToken(key, { iss: ISSUER, aud: AUDIENCE, iat: now, exp: now + expiresInS, ...claims });
}

describe('token authentication through the admin API', () => {
  test('maps claims to organisation, role and scopes, and audits rejected tokens', async ({ pg, nats }) => {
    const { app } = startControlPlane(
      { pg, nats },
      { JWT_JWKS_URL: jwks.url, JWT_ISSUER: ISSUER, JWT_AUDIENCE: AUDIENCE },
    );
    await app.start();
    try {
      const call = apiClient(`http://127.0.0.1:${app.ports.http}`, ADMIN_KEY);
      const organisation = (await call('get', '/organisation')).body;
      const organisationId: string = organisation.id;

      const owner = await token({
        sub: 'user-1',
        organisation_id: organisationId,
        role: 'owner',
        scope: 'organisation.read organisation.update',
      });
      const read = await call('get', '/organisation', { key: null, token: owner });
      expect(read.status).toBe(200);
      expect(read.body.id).toBe(organisationId);

      const update = await call('put', '/organisation', {
        key: null,
        token: owner,
        body: { name: 'By token' },
      });
      expect(update.status).toBe(200);
      const audit = (await auditEvents(pg.pool)).find((a) => a.action === 'organisation.update');
      expect(audit?.actor).toMatchObject({ userId: 'user-1', apiKeyId: '' });

      const readOnly = await token({
        sub: 'user-2',
        organisation_id: organisationId,
        role: 'admin',
        scope: 'organisation.read',
      });
      const refused = await call('put', '/organisation', { key: null, token: readOnly, body: { name: 'x' } });
      expect(refused.status).toBe(403);
      expect(refused.body.error).toMatchObject({
        code: 'AB03',
        message: 'missing scope organisation.update',
      });

      const otherOrg = await token({
        sub: 'user-3',
        organisation_id: '00000000-0000-4000-8000-000000000000',
        role: 'owner',
        scope: 'organisation.read',
      });
      // A signed token naming an organisation this control plane does not have: 401 for reads and
      // writes alike (was 404 / 200 with empty lists / 500 on a foreign key).
      for (const [method, path, body] of [
        ['get', '/organisation', undefined],
        ['get', '/workspaces', undefined],
        ['put', '/organisation', { name: 'x' }],
      ] as const) {
        const unknown = await call(method, path, { key: null, token: otherOrg, body });
        expect(unknown.status).toBe(401);
        expect(unknown.body.error).toMatchObject({
          code: 'AB05',
          message: 'invalid token: the token names an organisation that does not exist on this control plane',
        });
      }

      const manager = await token({
        sub: 'user-4',
        organisation_id: organisationId,
        workspace_id: '00000000-0000-4000-8000-000000000001',
        role: 'manager',
        scope: 'organisation.read',
      });
      const managerRead = await call('get', '/organisation', { key: null, token: manager });
      expect(managerRead.status).toBe(403);

      const expired = await token(
        { sub: 'user-5', organisation_id: organisationId, role: 'owner', scope: 'organisation.read' },
        -3600,
      );
      const rejected = await call('get', '/organisation', { key: null, token: expired });
      expect(rejected.status).toBe(401);
      expect(rejected.body.error.code).toBe('AB05');
      expect(rejected.body.error.message).toMatch(/^invalid token: .*expired/i);
      expect(rejected.body.error.message).not.toContain(expired);
      const tokenAudit = (await auditEvents(pg.pool)).filter((a) =>
        a.action.startsWith('auth.token_rejected'),
      );
      expect(tokenAudit.at(-1)).toMatchObject({
        action: 'auth.token_rejected.expired',
        outcome: AuditOutcome.FAILURE,
        statusCode: 401,
        requestPath: '/v1/organisation',
      });
      expect(tokenAudit.at(-1)?.requestDetailsJson).not.toContain(expired);
      // The signature verified, so the organisation it names owns the record.
      expect(tokenAudit.at(-1)?.organisationId).toBe(organisationId);
      // The unknown organisation's refusals are recorded, unattributed.
      const unknownOrg = tokenAudit.filter((a) => a.action === 'auth.token_rejected.invalid_claim');
      expect(unknownOrg).toHaveLength(3);
      expect(unknownOrg.every((a) => a.organisationId === '')).toBe(true);

      // Signed by a key the control plane does not trust: its claims prove nothing, so the record
      // is unattributed even though it names a real organisation.
      const stranger = await makeKey('RS256', 'k-untrusted');
      const now = Math.floor(Date.now() / 1000);
      const forged = await signToken(stranger, {
        iss: ISSUER,
        aud: AUDIENCE,
        iat: now,
        exp: now + 300,
        sub: 'intruder',
        organisation_id: organisationId,
        role: 'owner',
        scope: 'organisation.read',
      });
      expect((await call('get', '/organisation', { key: null, token: forged })).status).toBe(401);
      const forgedAudit = (await auditEvents(pg.pool)).filter(
        (a) => a.action === 'auth.token_rejected.unknown_key',
      );
      expect(forgedAudit).toHaveLength(1);
      expect(forgedAudit[0]?.organisationId).toBe('');
    } finally {
      await app.stop();
    }
  });

  test('answers 503 with retry-after, not 401, while the identity provider cannot be reached', async ({
    pg,
    nats,
  }) => {
    const gone = await startJwksServer([key.jwk]);
    await gone.close();
    const { app } = startControlPlane(
      { pg, nats },
      { JWT_JWKS_URL: gone.url, JWT_ISSUER: ISSUER, JWT_AUDIENCE: AUDIENCE },
    );
    await app.start();
    try {
      const call = apiClient(`http://127.0.0.1:${app.ports.http}`, ADMIN_KEY);
      const organisationId: string = (await call('get', '/organisation')).body.id;
      const owner = await token({
        sub: 'user-1',
        organisation_id: organisationId,
        role: 'owner',
        scope: 'organisation.read',
      });
      const res = await call('get', '/organisation', { key: null, token: owner });
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('5');
      expect(res.body.error).toMatchObject({ code: 'service_unavailable', type: 'server_error' });
      expect(res.body.error.message).toMatch(/identity provider/);
    } finally {
      await app.stop();
    }
  });
});
