// A saved guardrail's `on_fail` feedback end to end: created through the admin API, run by the
// gateway on a request it fails without denying (246), carried on the request event, stored by the
// logger as feedback on the request's trace, and read back through the admin API on the log, in the
// feedback listing and in the analytics summary.
import { randomUUID } from 'node:crypto';
import { describe, expect } from 'vitest';
import { createTenant, pollUntil, logsTest as test } from './logs-stack.test-support.js';

describe('guardrail feedback', () => {
  test('a failed check records its on_fail feedback on the log of the request', async ({ stack }) => {
    const { admin } = stack;
    const tenant = await createTenant(admin, stack.mock, 'guarded');
    const { key } = await admin.createKey(tenant.workspaceId, 'guarded caller');
    const guardrail = await admin.post('/guardrails', {
      name: 'Needs a team',
      workspace_id: tenant.workspaceId,
      checks: [{ id: 'required_metadata_keys', parameters: { keys: ['team'] } }],
      actions: { deny: false, on_fail: { feedback: { value: -3, weight: 0.5 } } },
    });
    expect(guardrail.actions.on_fail.feedback).toEqual({ value: -3, weight: 0.5 });
    const config = JSON.stringify({ provider: tenant.provider, input_guardrails: [guardrail.slug] });

    // Retried until the gateway's snapshot has the key and the guardrail; no `team` metadata: fails.
    const send = async (traceId: string, metadata?: Record<string, string>) => {
      const res = await fetch(`${stack.gatewayBase}/v1/chat/completions`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-service-api-key': key,
          'x-service-config': config,
          'x-service-trace-id': traceId,
          ...(metadata && { 'x-service-metadata': JSON.stringify(metadata) }),
        },
        body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
        signal: AbortSignal.timeout(10_000),
      });
      await res.arrayBuffer();
      return res.status;
    };
    const failedTrace = `trace-failed-${randomUUID()}`;
    await pollUntil(
      () => send(failedTrace),
      (status) => status === 246,
      { boundMs: 15_000, intervalMs: 25, what: 'the gateway running the saved guardrail' },
    );
    const passedTrace = `trace-passed-${randomUUID()}`;
    expect(await send(passedTrace, { team: 'search' })).toBe(200);

    // The log of the failing request, once stored (the first tries, refused before the sync, share
    // its trace: the 246 one is wanted).
    const { value: logs } = await pollUntil(
      () => admin.expect(200, 'GET', `/logs?trace_id=${failedTrace}&status_code=246`),
      (body) => body.data.length === 1,
      { boundMs: 20_000, intervalMs: 50, what: 'the 246 request logged' },
    );
    const log = await admin.expect(200, 'GET', `/logs/${logs.data[0].id}`);
    expect(log.feedback).toMatchObject([
      {
        object: 'feedback',
        trace_id: failedTrace,
        value: -3,
        weight: 0.5,
        workspace_id: tenant.workspaceId,
        metadata: {
          source: 'guardrail',
          request_id: log.id,
          guardrail_id: guardrail.id,
          stage: 'input',
          verdict: 'fail',
        },
        created_by: { type: 'system', user_id: null, api_key_id: null, display_name: 'guardrail' },
      },
    ]);
    const listed = await admin.expect(200, 'GET', `/feedback?trace_id=${failedTrace}`);
    expect(listed.data.map((f: { id: string }) => f.id)).toEqual([log.feedback[0].id]);
    const summary = await admin.expect(
      200,
      'GET',
      `/analytics/summary?trace_id=${failedTrace}&workspace_id=${tenant.workspaceId}`,
    );
    expect(summary.feedback).toEqual({ count: 1, avg_value: -3 });

    // The passing request has no on_success feedback: none on its trace.
    const { value: passed } = await pollUntil(
      () => admin.expect(200, 'GET', `/logs?trace_id=${passedTrace}`),
      (body) => body.data.length === 1,
      { boundMs: 20_000, intervalMs: 50, what: 'the passing request logged' },
    );
    expect((await admin.expect(200, 'GET', `/logs/${passed.data[0].id}`)).feedback).toEqual([]);
  });
});
