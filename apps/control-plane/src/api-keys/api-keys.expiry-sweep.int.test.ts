import { randomUUID } from 'node:crypto';
import { openDatabase } from '@aigw/db';
import { ActorType, EntityKind, EntityStatus } from '@aigw/proto';
import { createLogger } from '@aigw/runtime';
import { test } from '@aigw/testkit';
import { describe, expect } from 'vitest';
import { auditEvents, changeEvents } from '../../test/outbox-rows.js';
import { generateApiKey } from '../auth/api-key-secret.js';
import { bootstrap } from '../bootstrap.js';
import { migrations } from '../db/migrations/index.js';
import { type ControlDatabase, SCHEMA } from '../db/schema.js';
import { createApiKeyExpiryWorker } from './api-keys.expiry.js';
import { until } from './api-keys.test-support.js';

const log = createLogger({ app: 'expiry-sweep-test', level: 'silent' });

describe('the API key expiry sweep', () => {
  test('expires each due active key exactly once, also when two replicas sweep together', async ({ pg }) => {
    const database = await openDatabase<ControlDatabase>({
      url: pg.url,
      schema: SCHEMA,
      applicationName: 'expiry-sweep-test',
      migrations,
    });
    try {
      const { db } = database;
      const boot = await bootstrap(db, {
        BOOTSTRAP_ORGANISATION_NAME: 'Sweep',
        BOOTSTRAP_OWNER_EMAIL: 'o@example.com',
      });
      if (!boot) throw new Error('expected a fresh database');
      const insertKey = async (status: 'active' | 'disabled', expiresInMs: number | null) => {
        const id = randomUUID();
        const secret = generateApiKey();
        await db
          .insertInto('api_keys')
          .values({
            id,
            organisation_id: boot.organisationId,
            workspace_id: null,
            user_id: null,
            type: 'admin',
            name: 'k',
            key_hash: secret.hash,
            last4: secret.last4,
            scopes: ['logs.view'],
            expires_at: expiresInMs === null ? null : new Date(Date.now() + expiresInMs),
            created_by_user_id: null,
            created_by_api_key_id: null,
          })
          .execute();
        if (status === 'disabled')
          await db.updateTable('api_keys').set({ status }).where('id', '=', id).execute();
        return id;
      };
      const due = [
        await insertKey('active', -60_000),
        await insertKey('active', -1),
        await insertKey('active', -5_000),
      ];
      const future = await insertKey('active', 3_600_000);
      const never = await insertKey('active', null);
      const disabled = await insertKey('disabled', -60_000);

      const first = createApiKeyExpiryWorker({ db, log, intervalMs: 60_000 });
      const second = createApiKeyExpiryWorker({ db, log, intervalMs: 60_000, auditEnabled: true });
      const counts = await Promise.all([first.sweep(), second.sweep()]);
      expect(counts[0] + counts[1]).toBe(3);
      expect(await first.sweep()).toBe(0);

      const rows = await db.selectFrom('api_keys').select(['id', 'status', 'version']).execute();
      const byId = new Map(rows.map((r) => [r.id, r]));
      for (const id of due) expect(byId.get(id)).toMatchObject({ status: 'expired', version: '2' });
      expect(byId.get(future)).toMatchObject({ status: 'active', version: '1' });
      expect(byId.get(never)).toMatchObject({ status: 'active', version: '1' });
      expect(byId.get(disabled)?.status).toBe('disabled');

      const changes = (await changeEvents(pg.pool)).filter(
        (c) =>
          c.entity?.kind === EntityKind.API_KEY &&
          c.entity.body?.$case === 'apiKey' &&
          c.entity.body.value.status === EntityStatus.EXPIRED,
      );
      expect(changes.map((c) => c.entity?.id).sort()).toEqual([...due].sort());
      for (const change of changes) {
        expect(change.entity?.version).toBe(2);
        expect(change.actor?.type).toBe(ActorType.SYSTEM);
      }
      const audits = (await auditEvents(pg.pool)).filter((a) => a.action === 'api_keys.expire');
      expect(audits.map((a) => a.resourceId).sort()).toEqual([...due].sort());
      expect(audits[0]).toMatchObject({ organisationId: boot.organisationId, resourceType: 'api_key' });

      // start() sweeps at once and then on its interval; with auditing off no audit is written.
      const later = await insertKey('active', 300);
      const quiet = createApiKeyExpiryWorker({ db, log, intervalMs: 100, auditEnabled: false });
      quiet.start();
      try {
        const row = await until(
          () => db.selectFrom('api_keys').select('status').where('id', '=', later).executeTakeFirstOrThrow(),
          (r) => r.status === 'expired',
          15_000,
        );
        expect(row.status).toBe('expired');
      } finally {
        await quiet.stop();
      }
      expect((await auditEvents(pg.pool)).filter((a) => a.resourceId === later)).toHaveLength(0);
    } finally {
      await database.close();
    }
  });
});
