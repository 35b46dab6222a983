import { createHash } from 'node:crypto';
import { AuditOutcome, EntityStatus } from '@aigw/proto';
import { describe, expect } from 'vitest';
import { test } from '../../test/harness.js';
import { auditEvents } from '../../test/outbox-rows.js';
import { keyChanges, tenant, userKey } from './api-keys.test-support.js';

describe('a key that may not set its default config aside', () => {
  test('allow_config_override: false is stored, answered and published; it needs a config_id', async ({
    cp,
    pg,
  }) => {
    const post = (defaults: Record<string, unknown>) =>
      cp.call('post', '/api-keys/organisation/service', {
        body: { name: 'enforced', scopes: ['logs.view'], defaults },
      });
    const created = await post({ config_id: 'cfg-guarded', allow_config_override: false });
    expect(created.status).toBe(201);
    expect(created.body.defaults).toEqual({
      metadata: {},
      config_id: 'cfg-guarded',
      allow_config_override: false,
    });
    const [change] = await keyChanges(pg.pool, created.body.id);
    expect(change?.entity?.body).toMatchObject({
      $case: 'apiKey',
      value: { defaults: { configId: 'cfg-guarded', configEnforced: true } },
    });
    const refused = await post({ allow_config_override: false });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'AB01', param: 'body.defaults.allow_config_override' });
  });
});

describe('creating admin API keys', () => {
  test('returns the raw key once, stores only its hash, and the key works', async ({ cp, pg }) => {
    const created = await cp.call('post', '/api-keys/organisation/service', {
      body: { name: 'CI', description: 'deploys', scopes: ['organisation.read', 'logs.view', 'logs.view'] },
    });
    expect(created.status).toBe(201);
    const { id, key } = created.body;
    expect(created.body).toMatchObject({
      object: 'api-key',
      type: 'admin',
      name: 'CI',
      description: 'deploys',
      workspace_id: null,
      user_id: null,
      scopes: ['organisation.read', 'logs.view'],
      status: 'active',
      expires_at: null,
      last4: key.slice(-4),
      masked_key: `aigw_...${key.slice(-4)}`,
    });
    expect(key).toMatch(/^aigw_[A-Za-z0-9_-]{40,}$/);
    expect(created.body).not.toHaveProperty('key_hash');

    const stored = await pg.pool.query('select key_hash from control.api_keys where id = $1', [id]);
    expect(stored.rows[0].key_hash).toBe(createHash('sha256').update(key).digest('hex'));
    expect(JSON.stringify(stored.rows[0])).not.toContain(key);

    expect((await cp.call('get', '/organisation', { key })).status).toBe(200);
    // Held scopes only: the new key has no api_keys.list.
    expect((await cp.call('get', '/api-keys', { key })).status).toBe(403);

    const fetched = await cp.call('get', `/api-keys/${id}`);
    expect(fetched.status).toBe(200);
    expect(fetched.body).not.toHaveProperty('key');
    expect(JSON.stringify(fetched.body)).not.toContain(key);

    const [change] = await keyChanges(pg.pool, id);
    expect(change?.entity).toMatchObject({ version: 1, tombstone: false });
    expect(change?.entity?.body).toMatchObject({
      $case: 'apiKey',
      value: {
        keyHash: stored.rows[0].key_hash,
        status: EntityStatus.ACTIVE,
        scopes: ['organisation.read', 'logs.view'],
      },
    });
    const audit = (await auditEvents(pg.pool)).find(
      (a) => a.action === 'api_keys.create' && a.resourceId === id,
    );
    expect(audit).toMatchObject({ resourceType: 'api_key', outcome: AuditOutcome.SUCCESS, statusCode: 201 });
    expect(audit?.requestDetailsJson).not.toContain(key);
  });

  test('refuses unknown scopes, scopes the creator lacks, and workspace-bound callers', async ({
    cp,
    pg,
  }) => {
    const unknown = await cp.call('post', '/api-keys/organisation/service', {
      body: { name: 'x', scopes: ['logs.view', 'logs.delete_everything'] },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({ code: 'AB01', param: 'body.scopes.1' });
    const empty = await cp.call('post', '/api-keys/organisation/service', {
      body: { name: 'x', scopes: [] },
    });
    expect(empty.status).toBe(400);
    const withWorkspace = await cp.call('post', '/api-keys/organisation/service', {
      body: { name: 'x', scopes: ['logs.view'], workspace_id: 'default' },
    });
    expect(withWorkspace.status).toBe(400);

    const narrow = await cp.call('post', '/api-keys/organisation/service', {
      body: { name: 'narrow', scopes: ['api_keys.create', 'logs.view'] },
    });
    expect(narrow.status).toBe(201);
    const escalate = await cp.call('post', '/api-keys/organisation/service', {
      key: narrow.body.key,
      body: { name: 'wider', scopes: ['logs.view', 'workspaces.create', 'users.delete'] },
    });
    expect(escalate.status).toBe(403);
    expect(escalate.body.error).toMatchObject({ code: 'AB03' });
    expect(escalate.body.error.message).toContain('workspaces.create, users.delete');
    const same = await cp.call('post', '/api-keys/organisation/service', {
      key: narrow.body.key,
      body: { name: 'same', scopes: ['logs.view'] },
    });
    expect(same.status).toBe(201);
    expect(same.body.created_by_api_key_id).toBe(narrow.body.id);

    const t = await tenant(cp, pg.pool);
    const ws = await t.workspace('admins-ws');
    const manager = await t.user();
    await t.member(ws, manager, 'manager');
    const managerKey = await userKey(cp, ws, manager);
    const refused = await cp.call('post', '/api-keys/organisation/service', {
      key: managerKey.key,
      body: { name: 'x', scopes: ['logs.view'] },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('AB03');
    const failures = (await auditEvents(pg.pool)).filter(
      (a) => a.action === 'api_keys.create' && a.outcome === AuditOutcome.FAILURE,
    );
    expect(failures.map((a) => a.statusCode)).toEqual(expect.arrayContaining([400, 403]));
  });

  test('validates rate and usage limits strictly and reports current_usage', async ({ cp }) => {
    const post = (body: Record<string, unknown>) =>
      cp.call('post', '/api-keys/organisation/service', {
        body: { name: 'limits', scopes: ['logs.view'], ...body },
      });

    const ok = await post({
      rate_limits: [{ type: 'requests', unit: 'rpm', value: 60 }],
      usage_limits: { type: 'cost', credit_limit: 12.5, alert_threshold: 10.25, periodic_reset: 'monthly' },
      defaults: { metadata: { team: 'core' }, config_id: 'cfg-main' },
    });
    expect(ok.status).toBe(201);
    expect(ok.body.rate_limits).toEqual([{ type: 'requests', unit: 'rpm', value: 60 }]);
    expect(ok.body.usage_limits).toEqual([
      {
        type: 'cost',
        credit_limit: 12.5,
        alert_threshold: 10.25,
        periodic_reset: 'monthly',
        current_usage: 0,
      },
    ]);
    expect(ok.body.defaults).toEqual({
      metadata: { team: 'core' },
      config_id: 'cfg-main',
      allow_config_override: true,
    });

    const refused: [Record<string, unknown>, string][] = [
      [{ rate_limits: [{ type: 'requests', unit: 'rpm', value: 60, burst: 5 }] }, 'body.rate_limits.0'],
      [{ rate_limits: [{ type: 'requests', unit: 'rps', value: 60 }] }, 'body.rate_limits.0.unit'],
      [{ rate_limits: [{ type: 'requests', unit: 'rpm', value: 1.5 }] }, 'body.rate_limits.0.value'],
      [
        {
          rate_limits: [
            { type: 'requests', unit: 'rpm', value: 1 },
            { type: 'requests', unit: 'rpm', value: 2 },
          ],
        },
        'body.rate_limits',
      ],
      [{ usage_limits: { type: 'tokens', credit_limit: 10.5 } }, 'body.usage_limits'],
      [{ usage_limits: { credit_limit: 10, current_usage: 3 } }, 'body.usage_limits'],
      [{ usage_limits: { credit_limit: 10, alert_threshold: 20 } }, 'body.usage_limits'],
      [{ usage_limits: { credit_limit: -1 } }, 'body.usage_limits'],
      [
        { usage_limits: { credit_limit: 10, periodic_reset: 'weekly', periodic_reset_days: 3 } },
        'body.usage_limits',
      ],
      [{ defaults: { metadata: { team: 'core' }, extra: true } }, 'body.defaults'],
      [{ expires_at: new Date(Date.now() - 60_000).toISOString() }, 'body.expires_at'],
      [{ expires_at: 'tomorrow' }, 'body.expires_at'],
    ];
    for (const [body, param] of refused) {
      const response = await post(body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.error.code).toBe('AB01');
      expect(response.body.error.param, JSON.stringify(body)).toMatch(
        new RegExp(`^${param.replace(/\./g, '\\.')}`),
      );
    }
  });
});
