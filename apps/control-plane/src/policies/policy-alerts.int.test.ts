// Usage-limit alerts against a real database: raised once per group, recipients from roles (spec
// part 6), an AuditEvent for the logger, and the resets of spec part 3 when a limit is changed.
import { createDatabase } from '@aigw/db';
import { ActorType } from '@aigw/proto';
import type { Kysely } from 'kysely';
import { describe, expect } from 'vitest';
import { test } from '../../test/harness.js';
import { auditEvents } from '../../test/outbox-rows.js';
import { tenant } from '../api-keys/api-keys.test-support.js';
import type { ControlDatabase } from '../db/schema.js';
import { policyDb } from './policies.db.js';
import { createPolicy, createWorkspace, usageBody } from './policies.test-support.js';
import { raiseUsageAlert } from './policy-alerts.js';

const KEY_A = '11111111-1111-4111-8111-111111111111';
const KEY_B = '22222222-2222-4222-8222-222222222222';

/** A Kysely handle on the test database for the calls a future usage consumer will make. */
async function withDb<T>(url: string, fn: (db: Kysely<ControlDatabase>) => Promise<T>): Promise<T> {
  const database = createDatabase<ControlDatabase>({
    url,
    schema: 'control',
    applicationName: 'alerts-test',
  });
  try {
    return await fn(database.db);
  } finally {
    await database.close();
  }
}

async function policyRow(db: Kysely<ControlDatabase>, id: string) {
  return policyDb(db).selectFrom('policies').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

async function alertState(db: Kysely<ControlDatabase>, id: string) {
  const rows = await policyDb(db)
    .selectFrom('policy_alerts')
    .select(['group_values', 'threshold_alerted_at', 'exhausted_alerted_at'])
    .where('subject_id', '=', id)
    .execute();
  return Object.fromEntries(
    rows.map((r) => [
      r.group_values.api_key ?? r.group_values.workspace_id,
      { threshold: r.threshold_alerted_at !== null, exhausted: r.exhausted_alerted_at !== null },
    ]),
  );
}

describe('usage-limit alerts', () => {
  test('raised once per group with role-based recipients, and reset as spec part 3 says', async ({
    cp,
    pg,
  }) => {
    const t = await tenant(cp, pg.pool);
    const ws = await createWorkspace(cp, 'alerts');
    const other = await createWorkspace(cp, 'alerts-other');
    const admin = await t.user('admin');
    const manager = await t.user('member');
    const member = await t.user('member');
    const otherManager = await t.user('member');
    await t.member(ws.id, manager, 'manager');
    await t.member(ws.id, member, 'member');
    await t.member(other.id, otherManager, 'manager');
    await t.member(ws.id, admin, 'manager');

    const id = await createPolicy(cp, 'usage-limits', usageBody({ workspace_id: ws.id }));
    await withDb(pg.url, async (db) => {
      const raise = async (group: Record<string, string>, usage: number) =>
        db
          .transaction()
          .execute(async (trx) => raiseUsageAlert(trx, await policyRow(trx, id), { group, usage }));

      expect(await raise({ api_key: KEY_A }, 79.99)).toBeNull();
      const threshold = await raise({ api_key: KEY_A }, 80);
      expect(threshold).toMatchObject({
        object: 'usage_limit_alert',
        alert: 'threshold',
        policy_id: id,
        workspace_id: ws.id,
        group: { api_key: KEY_A },
        type: 'cost',
        usage: 80,
        credit_limit: 100,
        alert_threshold: 80,
      });
      const owner = (await pg.pool.query("select id from control.users where role = 'owner'")).rows[0]?.id;
      const recipients = Object.fromEntries(threshold!.recipients.map((r) => [r.user_id, r.reason]));
      expect(recipients).toEqual({
        [owner]: 'organisation_owner',
        [admin]: 'organisation_admin',
        [manager]: 'workspace_manager',
      });
      expect(await raise({ api_key: KEY_A }, 95)).toBeNull();
      expect((await raise({ api_key: KEY_B }, 85))?.alert).toBe('threshold');

      const exhausted = await raise({ api_key: KEY_A }, 100);
      expect(exhausted?.alert).toBe('exhausted');
      expect(await raise({ api_key: KEY_A }, 130)).toBeNull();
      expect(await alertState(db, id)).toEqual({
        [KEY_A]: { threshold: true, exhausted: true },
        [KEY_B]: { threshold: true, exhausted: false },
      });

      const audits = (await auditEvents(pg.pool)).filter((a) => a.action === 'usage_limits_policies.alert');
      expect(audits).toHaveLength(3);
      expect(audits[0]).toMatchObject({
        resourceId: id,
        workspaceId: ws.id,
        resourceType: 'usage_limits_policy',
      });
      expect(audits[0]?.actor?.type).toBe(ActorType.SYSTEM);
      expect(JSON.parse(audits[2]?.requestDetailsJson ?? '{}')).toEqual(
        JSON.parse(JSON.stringify(exhausted)),
      );

      // Lowering the limit or the threshold resets nothing.
      await cp.call('put', `/policies/usage-limits/${id}`, {
        body: { credit_limit: 90, alert_threshold: 70 },
      });
      expect((await alertState(db, id))[KEY_A]).toEqual({ threshold: true, exhausted: true });

      // Raising the threshold resets the threshold alerts only.
      await cp.call('put', `/policies/usage-limits/${id}`, { body: { alert_threshold: 75 } });
      expect(await alertState(db, id)).toEqual({
        [KEY_A]: { threshold: false, exhausted: true },
        [KEY_B]: { threshold: false, exhausted: false },
      });
      expect((await raise({ api_key: KEY_B }, 76))?.alert).toBe('threshold');

      // Setting the threshold to null resets it too.
      await cp.call('put', `/policies/usage-limits/${id}`, { body: { alert_threshold: null } });
      expect((await alertState(db, id))[KEY_B]).toEqual({ threshold: false, exhausted: false });
      expect(await raise({ api_key: KEY_B }, 89)).toBeNull();

      // Raising the credit limit reactivates: both alerts reset, and can be raised again.
      await cp.call('put', `/policies/usage-limits/${id}`, { body: { credit_limit: 200 } });
      expect((await alertState(db, id))[KEY_A]).toEqual({ threshold: false, exhausted: false });
      expect(await raise({ api_key: KEY_A }, 150)).toBeNull();
      expect((await raise({ api_key: KEY_A }, 200))?.alert).toBe('exhausted');

      await cp.call('delete', `/policies/usage-limits/${id}`);
      expect(await raise({ api_key: KEY_B }, 500)).toBeNull();
    });
  });

  test("an organisation policy grouped by workspace alerts that workspace's managers", async ({ cp, pg }) => {
    const t = await tenant(cp, pg.pool);
    const ws = await createWorkspace(cp, 'alerts-org');
    const manager = await t.user('member');
    await t.member(ws.id, manager, 'manager');
    const id = await createPolicy(
      cp,
      'usage-limits',
      usageBody({
        type: 'tokens',
        credit_limit: 1000,
        alert_threshold: null,
        group_by: [{ key: 'workspace_id' }],
      }),
    );
    const alert = await withDb(pg.url, (db) =>
      db
        .transaction()
        .execute(async (trx) =>
          raiseUsageAlert(trx, await policyRow(trx, id), { group: { workspace_id: ws.id }, usage: 1000 }),
        ),
    );
    expect(alert?.alert).toBe('exhausted');
    expect(alert?.workspace_id).toBeNull();
    const managers = alert?.recipients.filter((r) => r.reason === 'workspace_manager');
    expect(managers?.map((r) => r.user_id)).toEqual([manager]);
    expect(alert?.recipients.some((r) => r.reason === 'organisation_owner')).toBe(true);
  });
});
