import { ActorType, AuditOutcome } from '@aigw/proto';
import { describe, expect } from 'vitest';
import { auditEvents } from '../../test/outbox-rows.js';
import { idsOf, statusesOf, test } from '../users/users.test-support.js';
import { hashInviteToken } from './invite-token.js';

const DAY_MS = 24 * 60 * 60 * 1000;

describe('user invites', () => {
  test('an invite is created, listed, resent, accepted once, and audited without its token', async ({
    org,
  }) => {
    const alpha = await org.workspace('alpha');
    const beta = await org.workspace('beta');
    const created = await org.call('post', '/user-invites', {
      body: {
        email: ' Ada@Example.COM ',
        role: 'member',
        workspaces: [
          { id: 'alpha', role: 'manager' },
          { id: beta, role: 'member' },
        ],
      },
    });
    expect(created.status).toBe(201);
    const invite = created.body;
    expect(invite).toMatchObject({
      object: 'user_invite',
      email: 'ada@example.com',
      role: 'member',
      status: 'pending',
      workspaces: [
        { id: alpha, role: 'manager' },
        { id: beta, role: 'member' },
      ],
      invited_by_api_key_id: org.adminKeyId,
      invited_by_user_id: null,
      accepted_user_id: null,
    });
    expect(invite.accept_token).toMatch(/^aigw_invite_[A-Za-z0-9_-]{43}$/);
    const expiresIn = Date.parse(invite.expires_at) - Date.parse(invite.created_at);
    expect(Math.abs(expiresIn - 7 * DAY_MS)).toBeLessThan(60_000);

    const stored = await org.pool.query('select token_hash from control.user_invites where id = $1', [
      invite.id,
    ]);
    expect(stored.rows[0].token_hash).toBe(hashInviteToken(invite.accept_token));
    const leaked = await org.pool.query(
      'select count(*)::int as n from control.user_invites where token_hash = $1',
      [invite.accept_token],
    );
    expect(leaked.rows[0].n).toBe(0);

    const got = await org.call('get', `/user-invites/${invite.id}`);
    expect(got.status).toBe(200);
    expect(got.body).not.toHaveProperty('accept_token');
    expect(got.body.status).toBe('pending');

    const pending = await org.call('get', '/user-invites?status=pending');
    expect(idsOf(pending.body)).toContain(invite.id);
    const accepted = await org.call('get', '/user-invites?status=accepted,cancelled');
    expect(idsOf(accepted.body)).not.toContain(invite.id);

    const duplicate = await org.call('post', '/user-invites', {
      body: { email: 'ada@example.com', role: 'member' },
    });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.error).toMatchObject({ code: 'AB07', param: 'body.email' });

    const resent = await org.call('post', `/user-invites/${invite.id}/resend`, {
      body: { expires_in_days: 2 },
    });
    expect(resent.status).toBe(200);
    expect(resent.body.accept_token).not.toBe(invite.accept_token);
    expect(Math.abs(Date.parse(resent.body.expires_at) - Date.now() - 2 * DAY_MS)).toBeLessThan(60_000);

    const stale = await org.call('post', '/user-invites/accept', {
      key: null,
      body: { token: invite.accept_token },
    });
    expect(stale.status).toBe(404);
    expect(stale.body.error.code).toBe('AB08');

    const joined = await org.call('post', '/user-invites/accept', {
      key: null,
      body: { token: resent.body.accept_token, first_name: 'Ada', last_name: 'Lovelace' },
    });
    expect(joined.status).toBe(201);
    expect(joined.body).toMatchObject({
      object: 'user',
      email: 'ada@example.com',
      first_name: 'Ada',
      last_name: 'Lovelace',
      role: 'member',
      status: 'active',
      workspaces: [
        { id: alpha, slug: 'alpha', role: 'manager' },
        { id: beta, slug: 'beta', role: 'member' },
      ],
    });
    const user = await org.call('get', `/users/${joined.body.id}`);
    expect(user.status).toBe(200);
    const members = await org.pool.query(
      'select workspace_id, role from control.workspace_members where user_id = $1 order by role',
      [joined.body.id],
    );
    expect(members.rows).toEqual([
      { workspace_id: alpha, role: 'manager' },
      { workspace_id: beta, role: 'member' },
    ]);

    const after = await org.call('get', `/user-invites/${invite.id}`);
    expect(after.body).toMatchObject({ status: 'accepted', accepted_user_id: joined.body.id });
    const acceptedList = await org.call('get', '/user-invites?status=accepted&email=ADA@example.com');
    expect(acceptedList.body).toMatchObject({ object: 'list', total: 1 });
    expect(acceptedList.body.data[0].id).toBe(invite.id);

    const again = await org.call('post', '/user-invites/accept', {
      key: null,
      body: { token: resent.body.accept_token },
    });
    expect(again.status).toBe(404);
    expect((await org.call('post', `/user-invites/${invite.id}/resend`)).status).toBe(409);
    expect((await org.call('delete', `/user-invites/${invite.id}`)).status).toBe(409);
    const member = await org.call('post', '/user-invites', {
      body: { email: 'ada@example.com', role: 'member' },
    });
    expect(member.status).toBe(409);
    expect(member.body.error.message).toContain('already a member');

    const audits = (await auditEvents(org.pool)).filter((a) => a.resourceId === invite.id);
    const successes = audits.filter((a) => a.outcome === AuditOutcome.SUCCESS);
    expect(successes.map((a) => a.action)).toEqual([
      'user_invites.create',
      'user_invites.resend',
      'user_invites.accept',
    ]);
    expect(successes[0]?.actor).toMatchObject({ type: ActorType.API_KEY, apiKeyId: org.adminKeyId });
    expect(successes[2]).toMatchObject({
      organisationId: org.organisationId,
      resourceType: 'user_invite',
      statusCode: 201,
      actor: { type: ActorType.USER, userId: joined.body.id, apiKeyId: '' },
    });
    expect(JSON.parse(successes[2]?.requestDetailsJson ?? '{}').body.token).toBe('[redacted]');
    const failures = (await auditEvents(org.pool)).filter(
      (a) => a.action === 'user_invites.accept' && a.outcome === AuditOutcome.FAILURE,
    );
    expect(failures.length).toBeGreaterThanOrEqual(2);
    // The second accept's token matched the (accepted) invite: its organisation owns the refusal.
    expect(
      audits.filter((a) => a.outcome === AuditOutcome.FAILURE && a.action === 'user_invites.accept'),
    ).toEqual([
      expect.objectContaining({
        action: 'user_invites.accept',
        organisationId: org.organisationId,
        resourceId: invite.id,
        statusCode: 404,
        actor: expect.objectContaining({ type: ActorType.SYSTEM, displayName: 'unauthenticated' }),
      }),
    ]);
    // The replaced token matches no invite: the refusal is kept, unattributed (no organisation).
    expect(
      failures.filter((a) => a.organisationId === '' && a.statusCode === 404).length,
    ).toBeGreaterThanOrEqual(1);
    for (const audit of [...audits, ...failures]) {
      expect(audit.requestDetailsJson).not.toContain(invite.accept_token);
      expect(audit.requestDetailsJson).not.toContain(resent.body.accept_token);
    }
  });

  test('a cancelled invite cannot be accepted, resent or cancelled again', async ({ org }) => {
    const created = await org.call('post', '/user-invites', {
      body: { email: 'bo@example.com', role: 'member' },
    });
    const cancelled = await org.call('delete', `/user-invites/${created.body.id}`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ id: created.body.id, status: 'cancelled' });
    expect(cancelled.body).not.toHaveProperty('accept_token');

    const accept = await org.call('post', '/user-invites/accept', {
      key: null,
      body: { token: created.body.accept_token },
    });
    expect(accept.status).toBe(404);
    expect(accept.body.error.message).toBe('invite not found, expired, cancelled or already accepted');
    const twice = await org.call('delete', `/user-invites/${created.body.id}`);
    expect(twice.status).toBe(409);
    expect(twice.body.error.code).toBe('AB07');
    expect((await org.call('post', `/user-invites/${created.body.id}/resend`)).status).toBe(409);
    const listed = await org.call('get', '/user-invites?status=cancelled');
    expect(idsOf(listed.body)).toContain(created.body.id);
    expect((await org.call('get', '/users?email=bo@example.com')).body.total).toBe(0);

    const again = await org.call('post', '/user-invites', {
      body: { email: 'bo@example.com', role: 'member' },
    });
    expect(again.status).toBe(201);
    const both = await Promise.all(
      [1, 2].map(() =>
        org.call('post', '/user-invites/accept', { key: null, body: { token: again.body.accept_token } }),
      ),
    );
    expect(both.map((r) => r.status).sort()).toEqual([201, 404]);
    expect((await org.call('get', '/users?email=bo@example.com')).body.total).toBe(1);

    const audit = (await auditEvents(org.pool)).find(
      (a) => a.action === 'user_invites.cancel' && a.resourceId === created.body.id,
    );
    expect(audit).toMatchObject({ outcome: AuditOutcome.SUCCESS, actor: { apiKeyId: org.adminKeyId } });
  });

  test('an expired invite lists as expired, cannot be accepted, and can be resent or replaced', async ({
    org,
  }) => {
    const first = await org.call('post', '/user-invites', {
      body: { email: 'cy@example.com', role: 'member' },
    });
    await org.pool.query(
      "update control.user_invites set expires_at = now() - interval '1 hour' where id = $1",
      [first.body.id],
    );
    expect((await org.call('get', `/user-invites/${first.body.id}`)).body.status).toBe('expired');
    const expired = await org.call('get', '/user-invites?status=expired');
    expect(idsOf(expired.body)).toContain(first.body.id);
    const pending = await org.call('get', '/user-invites?status=pending');
    expect(idsOf(pending.body)).not.toContain(first.body.id);

    const accept = await org.call('post', '/user-invites/accept', {
      key: null,
      body: { token: first.body.accept_token },
    });
    expect(accept.status).toBe(404);
    expect((await org.call('delete', `/user-invites/${first.body.id}`)).status).toBe(409);

    // Resent: pending again, and only the new token works.
    const resent = await org.call('post', `/user-invites/${first.body.id}/resend`);
    expect(resent.status).toBe(200);
    expect(resent.body.status).toBe('pending');
    expect(Math.abs(Date.parse(resent.body.expires_at) - Date.now() - 7 * DAY_MS)).toBeLessThan(60_000);
    await org.pool.query(
      "update control.user_invites set expires_at = now() - interval '1 minute' where id = $1",
      [first.body.id],
    );

    // Replaced: a new invite for the same e-mail takes over and the old one stays expired for good.
    const second = await org.call('post', '/user-invites', {
      body: { email: 'cy@example.com', role: 'member' },
    });
    expect(second.status).toBe(201);
    const old = await org.call('get', `/user-invites/${first.body.id}`);
    expect(old.body.status).toBe('expired');
    const oldResend = await org.call('post', `/user-invites/${first.body.id}/resend`);
    expect(oldResend.status).toBe(409);
    const byEmail = await org.call('get', '/user-invites?email=cy@example.com&status=expired,pending');
    expect(statusesOf(byEmail.body)).toEqual([
      [second.body.id, 'pending'],
      [first.body.id, 'expired'],
    ]);
    const joined = await org.call('post', '/user-invites/accept', {
      key: null,
      body: { token: second.body.accept_token },
    });
    expect(joined.status).toBe(201);
    expect(
      (
        await org.call('post', '/user-invites/accept', {
          key: null,
          body: { token: resent.body.accept_token },
        })
      ).status,
    ).toBe(404);
  });
});
