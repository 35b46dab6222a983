// Issue 17 item 3, the token half, end to end (control plane with token authentication, outbox,
// NATS, logger): refused tokens (spec parts 1 and 6: token-authentication errors are audited) reach
// /audit-logs. A token whose signature verified is its organisation's record; one that names an
// unknown organisation or whose signature does not verify belongs to no organisation and is listed
// in the platform scope only. No token is stored.
import { randomUUID } from 'node:crypto';
import { test } from '@aigw/testkit';
import { describe, expect } from 'vitest';
import { AUDIENCE, ISSUER, startIssuer } from './jwt-issuer.test-support.js';
import { pollUntil, startLogsStack } from './logs-stack.test-support.js';

interface AuditRecord {
  readonly organisation_id: string | null;
  readonly action: string;
  readonly status_code: number;
  readonly request_path?: string;
}

describe('refused tokens in the audit log', () => {
  test('attributed to the organisation a verified token names, else unattributed in scope=platform', async ({
    pg,
    nats,
  }) => {
    const issuer = await startIssuer();
    // Another key under the same kid: its tokens never verify against the issuer's JWKS.
    const stranger = await startIssuer();
    const stack = await startLogsStack(
      { pg, nats },
      {},
      { JWT_JWKS_URL: issuer.url, JWT_ISSUER: ISSUER, JWT_AUDIENCE: AUDIENCE },
    );
    try {
      const { admin } = stack;
      const organisationId = (await admin.expect(200, 'GET', '/organisation')).id as string;
      const claims = { sub: randomUUID(), role: 'owner', scope: 'organisation.read' };
      const withToken = async (token: string) =>
        (
          await fetch(`${stack.controlPlaneBase}/v1/organisation`, {
            headers: { authorization: `Bearer ${token}` },
            signal: AbortSignal.timeout(10_000),
          })
        ).status;
      // A good token works: the refusals below are about the tokens, not the setup.
      expect(await withToken(issuer.sign({ ...claims, organisation_id: organisationId }))).toBe(200);

      const expired = issuer.sign({
        ...claims,
        organisation_id: organisationId,
        exp: Math.floor(Date.now() / 1000) - 3600,
      });
      const unknownOrganisation = issuer.sign({ ...claims, organisation_id: randomUUID() });
      const forged = stranger.sign({ ...claims, organisation_id: organisationId });
      for (const token of [expired, unknownOrganisation, forged]) expect(await withToken(token)).toBe(401);

      const listed = async (query: string, count: number, what: string): Promise<AuditRecord[]> =>
        (
          await pollUntil(
            () => admin.call('GET', `/audit-logs?${query}`),
            (r) =>
              r.status === 200 &&
              r.body.data.filter((a: AuditRecord) => a.action.startsWith('auth.token_rejected.')).length ===
                count,
            { boundMs: 20_000, intervalMs: 100, what },
          )
        ).value.body.data.filter((a: AuditRecord) => a.action.startsWith('auth.token_rejected.'));

      // The organisation's readers see the expired token's refusal, and only that one.
      const mine = await listed('status=failure', 1, 'the expired token under its organisation');
      expect(mine).toMatchObject([
        {
          organisation_id: organisationId,
          action: 'auth.token_rejected.expired',
          status_code: 401,
        },
      ]);
      // The other two are kept with no organisation, for the deployment's operator.
      const platform = await listed(
        'scope=platform&status=failure',
        2,
        'the unattributed token refusals in scope=platform',
      );
      expect(platform.map((a) => [a.organisation_id, a.status_code])).toEqual([
        [null, 401],
        [null, 401],
      ]);
      expect(platform.map((a) => a.action).sort()).toEqual([
        'auth.token_rejected.bad_signature',
        'auth.token_rejected.invalid_claim',
      ]);

      // No token reaches the audit store.
      const rows = (
        await pg.pool.query<{ row: string }>('select row_to_json(a)::text as row from logs.audit_logs a')
      ).rows;
      expect(rows.length).toBeGreaterThan(0);
      for (const token of [expired, unknownOrganisation, forged])
        expect(rows.filter((r) => r.row.includes(token.split('.')[2] as string))).toEqual([]);
    } finally {
      await stack.close();
      await stranger.close();
      await issuer.close();
    }
  });
});
