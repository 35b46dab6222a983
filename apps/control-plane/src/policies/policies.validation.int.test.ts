// Validation of policy bodies: every refusal is 400 AB01 naming the field (or 404 for references
// the caller cannot see), and nothing is written.
import { describe, expect } from 'vitest';
import { test } from '../../test/harness.js';
import { createWorkspace, rateBody, usageBody } from './policies.test-support.js';

const MISSING = '00000000-0000-4000-8000-000000000000';

async function policyCount(pool: import('pg').Pool): Promise<number> {
  const { rows } = await pool.query<{ n: string }>('select count(*) as n from control.policies');
  return Number(rows[0]?.n);
}

describe('policy validation', () => {
  test('rate limits: each bad field is 400 AB01 with its path', async ({ cp, pg }) => {
    const cases: [Record<string, unknown>, string][] = [
      [{ name: '' }, 'body.name'],
      [{ name: 'n'.repeat(256) }, 'body.name'],
      [{ conditions: [] }, 'body.conditions'],
      [{ group_by: [] }, 'body.group_by'],
      [{ conditions: [{ key: 'colour', value: 'red' }] }, 'body.conditions.0.key'],
      [
        {
          conditions: [
            { key: 'model', value: '*' },
            { key: 'user', value: 'x' },
          ],
        },
        'body.conditions.1.key',
      ],
      [{ conditions: [{ key: 'metadata.', value: 'x' }] }, 'body.conditions.0.key'],
      [{ conditions: [{ key: `metadata.${'k'.repeat(65)}`, value: 'x' }] }, 'body.conditions.0.key'],
      [{ conditions: [{ key: 'metadata.a b', value: 'x' }] }, 'body.conditions.0.key'],
      [{ conditions: [{ key: 'model', value: '' }] }, 'body.conditions.0.value'],
      [{ conditions: [{ key: 'model', value: 'm'.repeat(256) }] }, 'body.conditions.0.value'],
      [{ conditions: [{ key: 'model', value: 7 }] }, 'body.conditions.0.value'],
      [{ conditions: [{ key: 'model', value: 'a', extra: 1 }] }, 'body.conditions.0'],
      [{ conditions: [{ key: 'api_key', value: 'not-a-key-id' }] }, 'body.conditions.0.value'],
      [{ conditions: [{ key: 'organisation_id', value: 'acme' }] }, 'body.conditions.0.value'],
      [
        {
          conditions: [
            { key: 'model', value: 'a' },
            { key: 'model', value: 'b' },
          ],
        },
        'body.conditions.1.key',
      ],
      [{ group_by: [{ key: 'region' }] }, 'body.group_by.0.key'],
      [{ group_by: [{ key: 'api_key' }, { key: 'api_key' }] }, 'body.group_by.1.key'],
      [{ group_by: [{ key: 'api_key', value: 'x' }] }, 'body.group_by.0'],
      [{ type: 'cost' }, 'body.type'],
      [{ unit: 'rps' }, 'body.unit'],
      [{ value: 0 }, 'body.value'],
      [{ value: -5 }, 'body.value'],
      [{ value: 2.5 }, 'body.value'],
      [{ value: '100' }, 'body.value'],
      [{ workspace_id: 'bad slug!' }, 'body.workspace_id'],
      [{ organisation_id: 'acme' }, 'body.organisation_id'],
      [{ status: 'active' }, 'body'],
    ];
    for (const [override, param] of cases) {
      const response = await cp.call('post', '/policies/rate-limits', { body: rateBody(override) });
      expect(response.status, JSON.stringify(override)).toBe(400);
      expect(response.body.error, JSON.stringify(override)).toMatchObject({
        code: 'AB01',
        type: 'invalid_request_error',
        param,
      });
      expect(response.body.error.message.startsWith(param), response.body.error.message).toBe(true);
    }
    for (const field of ['name', 'conditions', 'group_by', 'type', 'unit', 'value']) {
      const body = rateBody();
      delete body[field];
      const response = await cp.call('post', '/policies/rate-limits', { body });
      expect(response.status, field).toBe(400);
      expect(response.body.error.param, field).toBe(`body.${field}`);
    }
    const malformed = await cp.call('post', '/policies/rate-limits', { raw: '{"name":' });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.code).toBe('AB01');
    expect(await policyCount(pg.pool)).toBe(0);
  });

  test('every key of the vocabulary is accepted, with * as a value', async ({ cp }) => {
    const keys = [
      'api_key',
      'workspace_id',
      'organisation_id',
      'provider',
      'model',
      'config',
      'virtual_key',
      'metadata._user',
      'metadata.team-name.v2',
    ];
    const response = await cp.call('post', '/policies/rate-limits', {
      body: rateBody({
        conditions: keys.map((key) => ({ key, value: '*' })),
        group_by: keys.map((key) => ({ key })),
      }),
    });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
  });

  test('references: unknown workspaces and other organisations are 404; own workspace only in a workspace policy', async ({
    cp,
  }) => {
    const a = await createWorkspace(cp, 'val-a');
    const b = await createWorkspace(cp, 'val-b');
    const unknownOwner = await cp.call('post', '/policies/rate-limits', {
      body: rateBody({ workspace_id: 'no-such-workspace' }),
    });
    expect(unknownOwner.status).toBe(404);
    expect(unknownOwner.body.error.code).toBe('AB08');

    const otherOrg = await cp.call('post', '/policies/rate-limits', {
      body: rateBody({ organisation_id: MISSING }),
    });
    expect(otherOrg.status).toBe(404);
    expect(otherOrg.body.error).toMatchObject({ code: 'AB02', param: 'body.organisation_id' });

    const organisationId = (await cp.call('get', '/organisation')).body.id;
    const ownOrg = await cp.call('post', '/policies/rate-limits', {
      body: rateBody({ organisation_id: organisationId }),
    });
    expect(ownOrg.status).toBe(201);

    const unknownCondition = await cp.call('post', '/policies/rate-limits', {
      body: rateBody({ conditions: [{ key: 'workspace_id', value: 'nope' }] }),
    });
    expect(unknownCondition.status).toBe(404);
    expect(unknownCondition.body.error).toMatchObject({ code: 'AB02', param: 'body.conditions.0.value' });
    const otherOrgCondition = await cp.call('post', '/policies/rate-limits', {
      body: rateBody({ conditions: [{ key: 'organisation_id', value: MISSING }] }),
    });
    expect(otherOrgCondition.body.error).toMatchObject({ code: 'AB02', param: 'body.conditions.0.value' });

    const foreign = await cp.call('post', '/policies/rate-limits', {
      body: rateBody({ workspace_id: a.id, conditions: [{ key: 'workspace_id', value: b.slug }] }),
    });
    expect(foreign.status).toBe(400);
    expect(foreign.body.error).toMatchObject({ code: 'AB01', param: 'body.conditions.0.value' });
    const orgLevel = await cp.call('post', '/policies/rate-limits', {
      body: rateBody({ conditions: [{ key: 'workspace_id', value: b.slug }] }),
    });
    expect(orgLevel.status).toBe(201);
  });

  test('usage limits: limit rules on create and on the merged result of an update', async ({ cp }) => {
    const cases: [Record<string, unknown>, string][] = [
      [{ type: 'requests' }, 'body.type'],
      [{ credit_limit: 0 }, 'body.credit_limit'],
      [{ credit_limit: -1 }, 'body.credit_limit'],
      [{ alert_threshold: 100 }, 'body.alert_threshold'],
      [{ alert_threshold: 0 }, 'body.alert_threshold'],
      [{ type: 'tokens', credit_limit: 10.5, alert_threshold: null }, 'body.credit_limit'],
      [{ type: 'tokens', credit_limit: 1000, alert_threshold: 1.5 }, 'body.alert_threshold'],
      [{ periodic_reset: 'daily' }, 'body.periodic_reset'],
      [{ periodic_reset_days: 30 }, 'body.periodic_reset_days'],
      [{ periodic_reset: null, periodic_reset_days: 0 }, 'body.periodic_reset_days'],
      [{ periodic_reset: null, periodic_reset_days: 366 }, 'body.periodic_reset_days'],
      [{ periodic_reset: null, next_usage_reset_at: '2999-01-01T00:00:00Z' }, 'body.next_usage_reset_at'],
      [{ next_usage_reset_at: '2000-01-01T00:00:00Z' }, 'body.next_usage_reset_at'],
      [{ next_usage_reset_at: 'tomorrow' }, 'body.next_usage_reset_at'],
      [{ unit: 'rpm' }, 'body'],
    ];
    for (const [override, param] of cases) {
      const response = await cp.call('post', '/policies/usage-limits', { body: usageBody(override) });
      expect(response.status, JSON.stringify(override)).toBe(400);
      expect(response.body.error, JSON.stringify(override)).toMatchObject({ code: 'AB01', param });
    }

    const id = (await cp.call('post', '/policies/usage-limits', { body: usageBody() })).body.id;
    const updates: [Record<string, unknown>, string][] = [
      [{ alert_threshold: 150 }, 'body.alert_threshold'],
      [{ credit_limit: 50 }, 'body.credit_limit'],
      [{ periodic_reset: 'weekly', periodic_reset_days: 7 }, 'body.periodic_reset_days'],
      [{ next_usage_reset_at: '2000-01-01T00:00:00Z' }, 'body.next_usage_reset_at'],
      [{ type: 'tokens' }, 'body'],
      [{ conditions: [{ key: 'model', value: 'x' }] }, 'body'],
    ];
    for (const [body, param] of updates) {
      const response = await cp.call('put', `/policies/usage-limits/${id}`, { body });
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.error, JSON.stringify(body)).toMatchObject({ code: 'AB01', param });
    }
    expect((await cp.call('get', `/policies/usage-limits/${id}`)).body).toMatchObject({
      credit_limit: 100,
      alert_threshold: 80,
      periodic_reset: 'monthly',
      periodic_reset_days: null,
    });
  });
});
