import { createDatabase } from '@aigw/db';
import { ActorType, EntityStatus } from '@aigw/proto';
import { createLogger } from '@aigw/runtime';
import { describe, expect } from 'vitest';
import { test } from '../../test/harness.js';
import { auditEvents } from '../../test/outbox-rows.js';
import { type ControlDatabase, SCHEMA } from '../db/schema.js';
import { createApiKeyExpiryWorker } from './api-keys.expiry.js';
import { keyChanges, until } from './api-keys.test-support.js';

describe('API key expiry through the running control plane', () => {
  test('a key flips to expired after expires_at without a request, reaches the outbox and stops working', {
    timeout: 60_000,
  }, async ({ cp, pg }) => {
    const database = createDatabase<ControlDatabase>({
      url: pg.url,
      schema: SCHEMA,
      applicationName: 'expiry-test',
    });
    const worker = createApiKeyExpiryWorker({
      db: database.db,
      log: createLogger({ app: 'expiry-test', level: 'silent' }),
      intervalMs: 200,
    });
    try {
      const created = await cp.call('post', '/api-keys/organisation/service', {
        body: {
          name: 'short-lived',
          scopes: ['organisation.read'],
          expires_at: new Date(Date.now() + 2_000).toISOString(),
        },
      });
      expect(created.status).toBe(201);
      const { id, key } = created.body;
      worker.start();

      const final = await until(
        () => cp.call('get', `/api-keys/${id}`),
        (response) => response.body.status === 'expired',
        30_000,
      );
      expect(final.body.status).toBe('expired');
      expect(Date.parse(final.body.last_updated_at)).toBeGreaterThanOrEqual(
        Date.parse(created.body.expires_at),
      );

      const changes = await keyChanges(pg.pool, id);
      expect(changes.map((c) => c.entity?.version)).toEqual([1, 2]);
      expect(changes[1]?.actor?.type).toBe(ActorType.SYSTEM);
      expect(changes[1]?.entity?.body).toMatchObject({
        $case: 'apiKey',
        value: { status: EntityStatus.EXPIRED },
      });

      const audit = (await auditEvents(pg.pool)).filter(
        (a) => a.action === 'api_keys.expire' && a.resourceId === id,
      );
      expect(audit).toHaveLength(1);
      expect(audit[0]?.actor?.type).toBe(ActorType.SYSTEM);

      const refused = await cp.call('get', '/organisation', { key });
      expect(refused.status).toBe(401);
      expect(refused.body.error.message).toContain('expired');
      const listed = await cp.call('get', '/api-keys?status=expired');
      expect(listed.body.data.map((k: { id: string }) => k.id)).toContain(id);
    } finally {
      await worker.stop();
      await database.close();
    }
  });
});
