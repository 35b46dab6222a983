// Issue 23 items 2, 3, 10, 11 end to end (real control plane, NATS, logger and gateway): input no
// store can hold is refused with 400 before it changes anything, well-formed text is audited as sent,
// refused invite accepts reach /audit-logs (under the invite's organisation, or unattributed in scope=platform), a
// policy's audit record keeps its keys readable, a request log whose body nests 5,000 deep is
// readable, and time filters accept ISO 8601 only.
import { randomUUID } from 'node:crypto';
import { describe, expect } from 'vitest';
import { callAs, createTenant, type LogsStack, logsTest, pollUntil } from './logs-stack.test-support.js';

const test = logsTest;

interface AuditRecord {
  readonly organisation_id: string | null;
  readonly action: string;
  readonly resource_id: string | null;
  readonly status_code: number;
  readonly request_details: { body?: Record<string, unknown> };
}

/** /audit-logs (admin key) once `done` accepts its records: they travel outbox, NATS, logger. */
async function auditUntil(
  stack: LogsStack,
  query: string,
  done: (records: AuditRecord[]) => boolean,
  what: string,
): Promise<AuditRecord[]> {
  const reply = await pollUntil(
    () => stack.admin.call('GET', `/audit-logs?${query}`),
    (r) => r.status === 200 && done(r.body.data),
    { boundMs: 15_000, intervalMs: 100, what },
  );
  return reply.value.body.data;
}

describe('the audit trail keeps every change and refusal', () => {
  test('a body no store can hold is 400; well-formed text is audited as sent', async ({ stack }) => {
    // JSON.stringify writes a lone surrogate as the escape `\ud800`: the body the issue describes.
    const lone = await stack.admin.call('POST', '/workspaces', { name: 'ops\ud800' });
    expect([lone.status, lone.body.error.code, lone.body.error.param]).toEqual([400, 'AB01', 'body.name']);
    const key = await stack.admin.call('POST', '/api-keys/organisation/service', {
      name: 'ops\udfff',
      scopes: ['organisation.read'],
    });
    expect([key.status, key.body.error.code]).toEqual([400, 'AB01']);
    const workspaces = await stack.admin.expect(200, 'GET', '/workspaces?page_size=100');
    expect(workspaces.data.some((w: { name: string }) => w.name.startsWith('ops'))).toBe(false);

    const rocket = await stack.admin.expect(201, 'POST', '/workspaces', { name: 'ops \u{1F680}' });
    const [record] = await auditUntil(
      stack,
      `action=workspaces.create&resource_id=${rocket.id}`,
      (r) => r.length === 1,
      'workspace audit record',
    );
    expect(record?.request_details.body?.name).toBe('ops \u{1F680}');
  });

  test('refused invite accepts are listed: the invite organisation owns them, else unattributed', async ({
    stack,
  }) => {
    const organisationId = (await stack.admin.expect(200, 'GET', '/organisation')).id;
    const invite = await stack.admin.expect(201, 'POST', '/user-invites', {
      email: `${randomUUID()}@example.com`,
      role: 'member',
    });
    expect(
      (await callAs(stack, '', 'POST', '/user-invites/accept', { token: invite.accept_token })).status,
    ).toBe(201);
    // The same token again: it matches the (accepted) invite, so its organisation is known.
    const again = await callAs(stack, '', 'POST', '/user-invites/accept', { token: invite.accept_token });
    expect(again.status).toBe(404);
    // A token that matches nothing: no organisation can be known.
    const unknown = await callAs(stack, '', 'POST', '/user-invites/accept', {
      token: `aigw_invite_${'x'.repeat(43)}`,
    });
    expect(unknown.status).toBe(404);

    // The organisation's readers see the refusal that is theirs; the unattributed one is listed
    // in the platform scope only (the bootstrap organisation's admin key operates the deployment).
    const unattributed = await auditUntil(
      stack,
      'action=user_invites.accept&status=failure&scope=platform',
      (r) => r.length === 1,
      'unattributed refused invite accept',
    );
    expect(unattributed.map((r) => [r.organisation_id, r.resource_id, r.status_code])).toEqual([
      [null, null, 404],
    ]);
    const failures = await auditUntil(
      stack,
      'action=user_invites.accept&status=failure',
      (r) => r.length === 1,
      'refused invite accepts',
    );
    expect(failures.map((r) => [r.organisation_id, r.resource_id, r.status_code])).toEqual([
      [organisationId, invite.id, 404],
    ]);
  });

  test("a policy's audit record keeps its condition and group_by keys readable", async ({ stack }) => {
    const tenant = await createTenant(stack.admin, stack.mock, 'Audit policy');
    const policy = await stack.admin.expect(201, 'POST', '/policies/usage-limits', {
      name: 'per key budget',
      type: 'cost',
      credit_limit: 10,
      conditions: [{ key: 'metadata.team', value: 'ops' }],
      group_by: [{ key: 'api_key' }],
      workspace_id: tenant.workspaceId,
    });
    const [record] = await auditUntil(
      stack,
      `resource_id=${policy.id}`,
      (r) => r.length === 1,
      'policy audit record',
    );
    expect(record?.request_details.body).toMatchObject({
      conditions: [{ key: 'metadata.team', value: 'ops' }],
      group_by: [{ key: 'api_key' }],
    });
  });

  test('a request log whose body nests 5,000 deep is readable', async ({ stack }) => {
    const tenant = await createTenant(stack.admin, stack.mock, 'Deep bodies');
    const key = await stack.admin.createKey(tenant.workspaceId, 'deep body key');
    const traceId = `deep-${randomUUID()}`;
    const deep = `${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}`;
    // The reply does not matter (the provider may refuse such a body): the request is logged.
    await pollUntil(
      async () =>
        (
          await fetch(`${stack.gatewayBase}/v1/chat/completions`, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              'x-service-api-key': key.key,
              'x-service-provider': tenant.provider,
              'x-service-trace-id': traceId,
            },
            body: `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}],"max_tokens":3,"deep":${deep}}`,
            signal: AbortSignal.timeout(10_000),
          })
        ).status,
      (status) => status !== 401,
      { boundMs: 15_000, intervalMs: 25, what: 'gateway serving the deep body key' },
    );
    const listed = await pollUntil(
      () => stack.admin.call('GET', `/logs?trace_id=${traceId}`),
      (r) => r.status === 200 && r.body.data.length >= 1,
      { boundMs: 15_000, intervalMs: 100, what: 'deep body log stored' },
    );
    const id = listed.value.body.data[0].id;
    const one = await stack.admin.call('GET', `/logs/${id}`);
    expect(one.status).toBe(200);
    // Too deep to hand back as JSON: the captured text comes back as it was sent.
    expect(one.body.request).toMatchObject({ truncated: false });
    expect(one.body.request.json).toBeUndefined();
    expect(one.body.request.text).toContain(deep);
  });

  test('time filters accept ISO 8601 or epoch milliseconds only', async ({ stack }) => {
    for (const path of ['/logs', '/audit-logs'])
      for (const value of ["' OR '1'='1", '$1', '-1', 'Nov 1 2026']) {
        const reply = await stack.admin.call('GET', `${path}?start_time=${encodeURIComponent(value)}`);
        expect([path, value, reply.status, reply.body.error.code, reply.body.error.param]).toEqual([
          path,
          value,
          400,
          'AB01',
          'query.start_time',
        ]);
      }
    expect((await stack.admin.call('GET', '/audit-logs?start_time=2026-01-01T00:00:00Z')).status).toBe(200);
    expect((await stack.admin.call('GET', '/logs?end_time=2026-01-01')).status).toBe(200);
  });
});
