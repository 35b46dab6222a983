// Issue 17 item 3 end to end: every audit record is kept and none holds a secret. The test creates
// resources carrying secrets (provider credentials and custom headers, a virtual key, API keys used,
// revoked and refused, invite tokens accepted and refused, a password in a refused body, key
// material pasted where no secret belongs), then searches every stored audit row, and every audit
// event in the control plane's outbox, for every secret it made. A policy's conditions and group_by
// stay readable; refused keys are recorded under their organisation, unknown ones unattributed and
// listed only in the platform scope.
import { randomBytes, randomUUID } from 'node:crypto';
import { AuditEvent } from '@aigw/proto';
import { describe, expect } from 'vitest';
import { PROVIDER_SECRET } from './enforcement-stack.test-support.js';
import { callAs, createTenant, logsTest, pollUntil } from './logs-stack.test-support.js';

const test = logsTest;

const hex = (n: number) => randomBytes(n).toString('hex');

describe('the audit store keeps every record and no secret', () => {
  test('no secret the test created reaches any stored audit row; policy conditions survive', async ({
    stack,
    pg,
  }) => {
    const { admin } = stack;
    const secrets: string[] = [PROVIDER_SECRET];
    const secret = (value: string) => {
      secrets.push(value);
      return value;
    };
    const tenant = await createTenant(admin, stack.mock, 'Audit secrets');

    // Provider credentials, with custom headers and an AWS secret.
    await admin.post('/integrations', {
      name: 'openai with headers',
      ai_provider: 'openai',
      credentials: {
        api_key: secret(`sk-proj-${hex(24)}`),
        custom_headers: { 'x-upstream-auth': secret(`tenant-${hex(12)}`) },
      },
      workspaces: [{ id: tenant.workspaceId }],
    });
    await admin.post('/integrations', {
      name: 'bedrock',
      ai_provider: 'bedrock',
      credentials: {
        aws_access_key_id: `AKIA${hex(8).toUpperCase()}`,
        aws_secret_access_key: secret(randomBytes(30).toString('base64')),
      },
      options: { region: 'us-east-1' },
      workspaces: [{ id: tenant.workspaceId }],
    });
    // A virtual key holding its own provider key, and a refused create whose body holds one too.
    const vk = await admin.call('POST', '/virtual-keys', {
      name: 'vk with key',
      provider: 'openai',
      key: secret(`sk-${hex(20)}`),
      workspace_id: tenant.workspaceId,
    });
    expect(vk.status, JSON.stringify(vk.body)).toBe(201);
    const refusedIntegration = await admin.call('POST', '/integrations', {
      name: 'refused',
      ai_provider: 'openai',
      credentials: { api_key: secret(`sk-${hex(20)}`) },
      unknown_field: true,
    });
    expect(refusedIntegration.status).toBe(400);

    // API keys: created (the key is in the answer only), used, revoked and used again, pasted into
    // a body where no secret belongs, and an unknown key.
    const service = await admin.post('/api-keys/workspace/service', {
      name: 'audited service key',
      workspace_id: tenant.workspaceId,
      scopes: ['completions.write', 'feedback.create'],
    });
    secret(service.key);
    // An admin key that expires in a moment: used while valid, then refused once expired.
    const adminKey = await admin.post('/api-keys/organisation/service', {
      name: 'second admin key',
      scopes: ['workspaces.create', 'workspaces.read'],
      expires_at: new Date(Date.now() + 3_000).toISOString(),
    });
    secret(adminKey.key);
    expect(
      (await callAs(stack, adminKey.key, 'POST', '/workspaces', { name: `made by key ${hex(3)}` })).status,
    ).toBe(201);
    const pasted = await admin.call('POST', '/workspaces', {
      name: 'pasted',
      description: `key ${adminKey.key}`,
    });
    expect(pasted.status).toBe(201);
    await pollUntil(
      async () =>
        (await callAs(stack, adminKey.key, 'POST', '/workspaces', { name: `late ${hex(3)}` })).status,
      (status) => status === 401,
      { boundMs: 15_000, intervalMs: 250, what: 'the admin key expired' },
    );
    const unknownKey = secret(`aigw_${randomBytes(32).toString('base64url')}`);
    expect((await callAs(stack, unknownKey, 'POST', '/workspaces', { name: 'unknown key' })).status).toBe(
      401,
    );
    const jwt = secret(`eyJhbGciOiJSUzI1NiJ9.${Buffer.from('{"sub":"x"}').toString('base64url')}.${hex(32)}`);
    const byToken = await fetch(`${stack.controlPlaneBase}/v1/workspaces`, {
      method: 'POST',
      headers: { authorization: `Bearer ${jwt}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'by token' }),
    });
    expect(byToken.status).toBe(401);

    // Invites: the accept token used, used again, a token that matches nothing, a password.
    const invite = await admin.post('/user-invites', {
      email: `${randomUUID()}@example.com`,
      role: 'member',
    });
    secret(invite.accept_token);
    expect(
      (await callAs(stack, '', 'POST', '/user-invites/accept', { token: invite.accept_token })).status,
    ).toBe(201);
    expect(
      (await callAs(stack, '', 'POST', '/user-invites/accept', { token: invite.accept_token })).status,
    ).toBe(404);
    const wrongToken = secret(`aigw_invite_${randomBytes(32).toString('base64url')}`);
    expect((await callAs(stack, '', 'POST', '/user-invites/accept', { token: wrongToken })).status).toBe(404);
    const withPassword = await admin.call('POST', '/user-invites', {
      email: `${randomUUID()}@example.com`,
      role: 'member',
      password: secret(`Pw-${hex(6)}!`),
    });
    expect(withPassword.status).toBe(400);

    // A policy whose conditions name an API key id and a metadata key: readable in its record.
    const conditions = [
      { key: 'api_key', value: service.id },
      { key: 'metadata.team', value: 'research' },
    ];
    const groupBy = [{ key: 'api_key' }, { key: 'metadata._user' }];
    const policy = await admin.post('/policies/usage-limits', {
      name: 'audited policy',
      type: 'tokens',
      credit_limit: 1000,
      conditions,
      group_by: groupBy,
      workspace_id: tenant.workspaceId,
    });

    // Every record arrives (outbox -> NATS -> logger).
    const stored = async () =>
      (
        await pg.pool.query<{ id: string; action: string; organisation_id: string | null; row: string }>(
          'select id::text, action, organisation_id, row_to_json(a)::text as row from logs.audit_logs a',
        )
      ).rows;
    const outbox = (
      await pg.pool.query<{ payload: Buffer }>(
        "select payload from control.outbox where subject like '%aigw.audit.v1' order by id",
      )
    ).rows;
    const written = outbox.map(({ payload }) => AuditEvent.decode(payload));
    // Every record the control plane wrote is stored, the unattributed ones included; the failure
    // names the records still missing.
    const missing = (rows: { id: string }[]) => {
      const ids = new Set(rows.map((r) => r.id));
      return written.filter((e) => !ids.has(e.id.toLowerCase())).map((e) => `${e.action} ${e.id}`);
    };
    const { value: rows } = await pollUntil(
      async () => missing(await stored()),
      (m) => m.length === 0,
      {
        boundMs: 20_000,
        intervalMs: 100,
        what: 'every audit record stored (the value is the records missing)',
      },
    ).then(async () => ({ value: await stored() }));
    expect(rows.length).toBe(outbox.length);
    for (const action of [
      'usage_limits_policies.create',
      'auth.api_key_rejected.unknown',
      'auth.api_key_rejected.expired',
      'user_invites.accept',
      'user_invites.create',
      'integrations.create',
      'virtual_keys.create',
    ])
      expect(rows.map((r) => r.action)).toContain(action);
    const leaks: string[] = [];
    for (const value of secrets) {
      for (const row of rows)
        if (row.row.includes(value)) leaks.push(`${value} in audit_logs ${row.row.slice(0, 200)}`);
      for (const { payload } of outbox)
        if (payload.includes(value)) leaks.push(`${value} in an outbox audit event`);
    }
    expect(leaks).toEqual([]);

    // The policy's record keeps its conditions and group_by as sent.
    const audit = await admin.expect(
      200,
      'GET',
      `/audit-logs?action=usage_limits_policies.create&resource_id=${policy.id}`,
    );
    expect(audit.data[0].request_details.body).toMatchObject({ conditions, group_by: groupBy });

    // Refused keys: the expired one under its organisation (the key as actor), the unknown one
    // unattributed, listed only in the platform scope.
    const organisationId = (await admin.expect(200, 'GET', '/organisation')).id;
    const mine = await admin.expect(200, 'GET', '/audit-logs?action=auth.api_key_rejected.expired');
    expect(mine.data.slice(0, 1)).toMatchObject([
      {
        organisation_id: organisationId,
        resource_id: adminKey.id,
        actor: { api_key_id: adminKey.id },
        status_code: 401,
      },
    ]);
    expect((await admin.expect(200, 'GET', '/audit-logs?action=auth.api_key_rejected.unknown')).data).toEqual(
      [],
    );
    const platform = await admin.expect(
      200,
      'GET',
      '/audit-logs?scope=platform&action=auth.api_key_rejected.unknown',
    );
    expect(platform.data).toMatchObject([{ organisation_id: null, resource_id: null, status_code: 401 }]);
    // Only the platform organisation's owners and admins read the platform scope.
    const workspaceReader = await admin.post('/api-keys/workspace/service', {
      name: 'workspace audit reader',
      workspace_id: tenant.workspaceId,
      scopes: ['audit_logs.list'],
    });
    const refused = await callAs(stack, workspaceReader.key, 'GET', '/audit-logs?scope=platform');
    expect([refused.status, refused.body.error.code]).toEqual([403, 'AB03']);
  });
});
