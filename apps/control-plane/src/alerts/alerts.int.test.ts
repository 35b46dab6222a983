// Alerts end to end inside the control plane: gateway events from NATS stored once, listed with
// filters, pagination, scopes and workspace isolation, and e-mailed through a real SMTP server to
// the people spec part 6 names.
import { EntityKind, UsageAlertKind, UsageLimitType } from '@aigw/proto';
import { test as base } from '@aigw/testkit';
import { startSmtpServer, type TestSmtpServer } from '@aigw/testkit/smtp';
import { describe, expect } from 'vitest';
import { ADMIN_KEY, apiClient, type ControlPlaneFixture, startControlPlane } from '../../test/harness.js';
import { tenant } from '../api-keys/api-keys.test-support.js';
import { expectError, serviceKey } from '../integrations/integrations.test-support.js';
import { createPolicy, createWorkspace, usageBody } from '../policies/policies.test-support.js';
import { alertPublisher, until, usageAlertEvent } from './alerts.test-support.js';

const KEY_A = '11111111-1111-4111-8111-111111111111';
const KEY_B = '22222222-2222-4222-8222-222222222222';

const test = base.extend<{ smtp: TestSmtpServer; mailingCp: ControlPlaneFixture }>({
  smtp: [
    // biome-ignore lint/correctness/noEmptyPattern: vitest reads a fixture's dependencies from this pattern
    async ({}, use) => {
      const smtp = await startSmtpServer();
      try {
        await use(smtp);
      } finally {
        await smtp.close();
      }
    },
    { scope: 'file' },
  ],
  mailingCp: [
    async ({ pg, nats, smtp }, use) => {
      const { app, namespace } = startControlPlane(
        { pg, nats },
        { SMTP_URL: smtp.url, SMTP_FROM: 'Gateway alerts <alerts@example.test>', SMTP_POLL_MS: '50' },
      );
      await app.start();
      const base = `http://127.0.0.1:${app.ports.http}`;
      try {
        await use({ app, base, adminKey: ADMIN_KEY, namespace, call: apiClient(base, ADMIN_KEY) });
      } finally {
        await app.stop();
      }
    },
    { scope: 'file' },
  ],
});

describe('alerts', () => {
  test('a threshold alert is stored once, listed, and e-mailed to owners, admins and the managers', async ({
    mailingCp: cp,
    pg,
    nats,
    smtp,
  }) => {
    const t = await tenant(cp, pg.pool);
    const ws = await createWorkspace(cp, 'alerts-mail');
    const other = await createWorkspace(cp, 'alerts-mail-other');
    const admin = await t.user('admin');
    const manager = await t.user('member');
    const member = await t.user('member');
    const otherManager = await t.user('member');
    await t.member(ws.id, manager, 'manager');
    await t.member(ws.id, member, 'member');
    await t.member(other.id, otherManager, 'manager');
    const policy = await createPolicy(
      cp,
      'usage-limits',
      usageBody({ name: 'Team budget', workspace_id: ws.id }),
    );

    const gateway = await alertPublisher(nats.url, cp.namespace);
    try {
      const event = usageAlertEvent({
        organisationId: t.organisationId,
        workspaceId: ws.id,
        entityId: policy,
        groupValue: `api_key=${KEY_A}`,
        occurredAtMs: Date.UTC(2026, 9, 15),
      });
      await gateway.publish(event);
      // The same transition from a second replica after JetStream's duplicate window: stored once.
      await gateway.publish(event, `${event.id}#replica-2`);
      const listed = await until(
        () => cp.call('get', `/alerts?policy_id=${policy}`),
        (res) => res.body.data?.[0]?.email.state === 'sent',
      );
      expect(listed.body.total).toBe(1);
      const owner = (await pg.pool.query("select id from control.users where role = 'owner'")).rows[0].id;
      expect(listed.body.data[0]).toMatchObject({
        object: 'alert',
        kind: 'threshold',
        organisation_id: t.organisationId,
        workspace_id: ws.id,
        policy_id: policy,
        entity: { object: 'usage-limits-policy', type: 'usage_limit_policy', id: policy },
        group: { api_key: KEY_A },
        type: 'cost',
        usage: 80.5,
        credit_limit: 100,
        alert_threshold: 80,
        period_start: '2026-11-01T00:00:00.000Z',
        reset_at: null,
        email: { state: 'sent', attempts: 1, sent_at: expect.any(String) },
      });
      const reasons = Object.fromEntries(
        listed.body.data[0].email.recipients.map((r: { user_id: string; reason: string }) => [
          r.user_id,
          r.reason,
        ]),
      );
      expect(reasons).toEqual({
        [owner]: 'organisation_owner',
        [admin]: 'organisation_admin',
        [manager]: 'workspace_manager',
      });

      const [mail] = await smtp.waitFor(1);
      expect(smtp.received).toHaveLength(1);
      expect(mail?.to.sort()).toEqual(
        ['owner@example.com', `${admin}@example.com`, `${manager}@example.com`].sort(),
      );
      expect(mail?.from).toBe('alerts@example.test');
      expect(mail?.subject).toBe('Usage alert threshold reached: Usage limits policy "Team budget"');
      expect(mail?.text).toContain('Usage:           80.50 USD');
      expect(mail?.text).toContain(`Group:           api_key=${KEY_A}`);
    } finally {
      await gateway.close();
    }
  });

  test('filters, pagination, scopes and workspace isolation', async ({ mailingCp: cp, pg, nats }) => {
    const t = await tenant(cp, pg.pool);
    const ws = await createWorkspace(cp, 'alerts-list');
    const other = await createWorkspace(cp, 'alerts-list-other');
    const policy = await createPolicy(cp, 'usage-limits', usageBody({ name: 'Listed', workspace_id: ws.id }));
    const otherKey = '33333333-3333-4333-8333-333333333333';
    const gateway = await alertPublisher(nats.url, cp.namespace);
    const at = Date.UTC(2026, 10, 20, 12);
    try {
      await gateway.publish(
        usageAlertEvent({
          organisationId: t.organisationId,
          workspaceId: ws.id,
          entityId: policy,
          groupValue: `api_key=${KEY_A}`,
          occurredAtMs: at,
        }),
      );
      await gateway.publish(
        usageAlertEvent({
          organisationId: t.organisationId,
          workspaceId: ws.id,
          entityId: policy,
          groupValue: `api_key=${KEY_A}`,
          kind: UsageAlertKind.EXHAUSTED,
          usage: 100_000_000,
          occurredAtMs: at + 60_000,
        }),
      );
      await gateway.publish(
        usageAlertEvent({
          organisationId: t.organisationId,
          workspaceId: ws.id,
          entityId: policy,
          groupValue: `api_key=${KEY_B}`,
          occurredAtMs: at + 120_000,
        }),
      );
      // An API key's own token limit in the other workspace.
      await gateway.publish(
        usageAlertEvent({
          organisationId: t.organisationId,
          workspaceId: other.id,
          entityKind: EntityKind.API_KEY,
          entityId: otherKey,
          groupValue: 'type=tokens',
          type: UsageLimitType.TOKENS,
          usage: 900,
          creditLimit: 1000,
          alertThreshold: 900,
          periodStartMs: 0,
          occurredAtMs: at + 180_000,
        }),
      );
      // This file's other test raised an alert in October: the window leaves it out.
      const window = 'start_time=2026-11-20&end_time=2026-11-21';
      const all = await until(
        () => cp.call('get', `/alerts?${window}`),
        (res) => res.body.total === 4,
      );
      expect(all.body.data.map((a: { occurred_at: string }) => a.occurred_at)).toEqual([
        new Date(at + 180_000).toISOString(),
        new Date(at + 120_000).toISOString(),
        new Date(at + 60_000).toISOString(),
        new Date(at).toISOString(),
      ]);
      expect(all.body.data[0]).toMatchObject({
        entity: { object: 'api-key', type: 'api_key', id: otherKey },
        policy_id: null,
        group: { type: 'tokens' },
        type: 'tokens',
        usage: 900,
        period_start: null,
      });

      const total = async (query: string, key?: string) => {
        const res = await cp.call('get', `/alerts?${window}&${query}`, key === undefined ? {} : { key });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        return res.body.total as number;
      };
      expect(await total(`policy_id=${policy}`)).toBe(3);
      expect(await total('kind=exhausted')).toBe(1);
      expect(await total('kind=threshold,exhausted')).toBe(4);
      expect(await total(`entity_id=${KEY_A}`)).toBe(2);
      expect(await total(`entity_id=${otherKey}`)).toBe(1);
      expect(await total('entity_type=api_key')).toBe(1);
      expect(await total(`workspace_id=${other.slug}`)).toBe(1);
      const from = async (start: string, end = '2026-11-21') => {
        const res = await cp.call('get', `/alerts?start_time=${start}&end_time=${end}`);
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        return res.body.total as number;
      };
      expect(await from(new Date(at + 60_000).toISOString())).toBe(3);
      expect(await from('2026-11-20', new Date(at + 60_000).toISOString())).toBe(1);
      expect(await from('2026-11-21', '2026-11-22')).toBe(0);
      expect(await from('2026-10-01', '2026-11-21')).toBe(5);
      expect(await total('status=active')).toBe(4);
      const page = await cp.call('get', `/alerts?${window}&page_size=1&current_page=2`);
      expect(page.body).toMatchObject({ object: 'list', total: 4 });
      expect(page.body.data).toHaveLength(1);
      expect(page.body.data[0].id).toBe(all.body.data[2].id);

      const byPolicy = await cp.call('get', `/policies/usage-limits/${policy}/alerts?kind=threshold`);
      expect(byPolicy.status, JSON.stringify(byPolicy.body)).toBe(200);
      expect(byPolicy.body.total).toBe(2);
      expectError(
        await cp.call('get', '/policies/usage-limits/44444444-4444-4444-8444-444444444444/alerts'),
        404,
        'AB08',
      );

      // A workspace key sees its workspace's alerts only; another workspace is not found.
      const wsKey = await serviceKey(cp, ws.id, ['usage_limits_policies.list', 'usage_limits_policies.read']);
      expect(await total('', wsKey)).toBe(3);
      expect(await total(`entity_id=${otherKey}`, wsKey)).toBe(0);
      expectError(await cp.call('get', `/alerts?workspace_id=${other.id}`, { key: wsKey }), 404, 'AB08');
      const otherWsKey = await serviceKey(cp, other.id, ['usage_limits_policies.read']);
      expectError(
        await cp.call('get', `/policies/usage-limits/${policy}/alerts`, { key: otherWsKey }),
        404,
        'AB08',
      );
      expectError(await cp.call('get', '/alerts', { key: otherWsKey }), 403, 'AB03');

      expectError(await cp.call('get', '/alerts?kind=bogus'), 400, 'AB01', 'query.kind.0');
      expectError(await cp.call('get', '/alerts?start_time=yesterday'), 400, 'AB01', 'query.start_time');
      expectError(
        await cp.call('get', '/alerts?start_time=2026-11-02&end_time=2026-11-01'),
        400,
        'AB01',
        'query.start_time',
      );
      expectError(await cp.call('get', '/alerts?policy_id=nope'), 400, 'AB01', 'query.policy_id');
      expectError(await cp.call('get', '/alerts?unknown=1'), 400, 'AB01');
      expect(await total('')).toBe(4);
    } finally {
      await gateway.close();
    }
  });
});
