// Spec part 3 on a usage-limits policy's stored alerts: lowering a limit resets nothing, raising the
// threshold (or clearing it) resets threshold alerts, raising the credit limit resets both; a reset
// alert can be stored again when the gateway raises it anew. Recipients and storage: src/alerts.
import { describe, expect } from 'vitest';
import { test } from '../../test/harness.js';
import { activeAlerts, insertAlert } from '../alerts/alerts.test-support.js';
import { createPolicy, createWorkspace, usageBody } from './policies.test-support.js';

const KEY_A = '11111111-1111-4111-8111-111111111111';
const KEY_B = '22222222-2222-4222-8222-222222222222';

describe('usage-limits policy alerts', () => {
  test('reset as spec part 3 says when the policy changes', async ({ cp, pg }) => {
    const ws = await createWorkspace(cp, 'alerts');
    const org = (await cp.call('get', '/organisation')).body.id as string;
    const id = await createPolicy(cp, 'usage-limits', usageBody({ workspace_id: ws.id }));
    const subject = { kind: 'usage_limit_policy', id };
    const raise = (kind: 'threshold' | 'exhausted', key: string) =>
      insertAlert(pg.pool, {
        organisationId: org,
        workspaceId: ws.id,
        subjectKind: 'usage_limit_policy',
        subjectId: id,
        kind,
        group: { api_key: key },
      });
    const state = async () => ({
      a: await activeAlerts(pg.pool, subject, { api_key: KEY_A }),
      b: await activeAlerts(pg.pool, subject, { api_key: KEY_B }),
    });
    const put = async (body: Record<string, unknown>) => {
      const res = await cp.call('put', `/policies/usage-limits/${id}`, { body });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    };
    await raise('threshold', KEY_A);
    await raise('exhausted', KEY_A);
    await raise('threshold', KEY_B);
    expect(await state()).toEqual({ a: [true, true], b: [true, false] });

    // Lowering the limit or the threshold resets nothing.
    await put({ credit_limit: 90, alert_threshold: 70 });
    expect(await state()).toEqual({ a: [true, true], b: [true, false] });

    // Raising the threshold resets the threshold alerts only; the alert can be raised again.
    await put({ alert_threshold: 75 });
    expect(await state()).toEqual({ a: [false, true], b: [false, false] });
    await raise('threshold', KEY_B);
    expect((await state()).b).toEqual([true, false]);

    // Setting the threshold to null resets it too.
    await put({ alert_threshold: null });
    expect((await state()).b).toEqual([false, false]);

    // Raising the credit limit resets both.
    await put({ credit_limit: 200 });
    expect((await state()).a).toEqual([false, false]);

    // Reset alerts stay listed, marked as reset.
    const listed = await cp.call('get', `/policies/usage-limits/${id}/alerts?status=reset`);
    expect(listed.status, JSON.stringify(listed.body)).toBe(200);
    expect(listed.body.total).toBe(4);
    for (const alert of listed.body.data) expect(alert.reset_at).toEqual(expect.any(String));
    expect((await cp.call('get', `/policies/usage-limits/${id}/alerts?status=active`)).body.total).toBe(0);
  });
});
