// Workspace request validation: usage and rate limits, settings ranges and cross-field rules.
import { PeriodicReset, RateLimitType, RateLimitUnit, UsageLimitType } from '@aigw/proto';
import { describe, expect } from 'vitest';
import { type ControlPlaneFixture, test } from '../../test/harness.js';
import { changeEvents } from '../../test/outbox-rows.js';

const DAY_MS = 86_400_000;
const future = () => new Date(Date.now() + 7 * DAY_MS).toISOString();

async function refused(
  cp: ControlPlaneFixture,
  body: Record<string, unknown>,
  param: string,
  message?: string,
) {
  const response = await cp.call('post', '/workspaces', { body: { name: 'Limits', ...body } });
  expect(response.status, JSON.stringify(body)).toBe(400);
  expect(response.body.error).toMatchObject({ code: 'AB01', type: 'invalid_request_error', param });
  if (message) expect(response.body.error.message).toContain(message);
}

describe('workspace validation', () => {
  test('usage limits: periodic_reset_days range and exclusivity, next_usage_reset_at, strict keys', async ({
    cp,
  }) => {
    const limit = { type: 'cost', credit_limit: 100 };
    await refused(
      cp,
      { usage_limits: [{ ...limit, periodic_reset_days: 0 }] },
      'body.usage_limits.0.periodic_reset_days',
    );
    await refused(
      cp,
      { usage_limits: [{ ...limit, periodic_reset_days: 366 }] },
      'body.usage_limits.0.periodic_reset_days',
    );
    // A non-integer fails both shapes of the limits union (object or list), so zod names the list only.
    const fractionalDays = await cp.call('post', '/workspaces', {
      body: { name: 'Limits', usage_limits: [{ ...limit, periodic_reset_days: 1.5 }] },
    });
    expect(fractionalDays.status).toBe(400);
    expect(fractionalDays.body.error.code).toBe('AB01');
    expect(fractionalDays.body.error.param).toMatch(/^body\.usage_limits/);
    await refused(
      cp,
      { usage_limits: [{ ...limit, periodic_reset: 'monthly', periodic_reset_days: 30 }] },
      'body.usage_limits.0.periodic_reset_days',
      'mutually exclusive',
    );
    await refused(
      cp,
      { usage_limits: [{ ...limit, next_usage_reset_at: future() }] },
      'body.usage_limits.0.next_usage_reset_at',
      'needs periodic_reset',
    );
    await refused(
      cp,
      { usage_limits: [{ ...limit, periodic_reset_days: 7, next_usage_reset_at: '2020-01-01T00:00:00Z' }] },
      'body.usage_limits.0.next_usage_reset_at',
      'future',
    );
    await refused(
      cp,
      { usage_limits: [{ ...limit, periodic_reset_days: 7, next_usage_reset_at: 'tomorrow' }] },
      'body.usage_limits.0.next_usage_reset_at',
    );
    await refused(cp, { usage_limits: [{ ...limit, colour: 'red' }] }, 'body.usage_limits.0');
    await refused(
      cp,
      { usage_limits: [{ type: 'tokens', credit_limit: 10.5 }] },
      'body.usage_limits.0.credit_limit',
    );
    await refused(
      cp,
      { usage_limits: [{ ...limit, alert_threshold: 100 }] },
      'body.usage_limits.0.alert_threshold',
    );
    await refused(cp, { usage_limits: [limit, limit] }, 'body.usage_limits');

    const boundaries = await cp.call('post', '/workspaces', {
      body: {
        name: 'Boundaries',
        usage_limits: [
          {
            type: 'cost',
            credit_limit: 12.5,
            alert_threshold: 10,
            periodic_reset_days: 365,
            next_usage_reset_at: future(),
          },
          { type: 'tokens', credit_limit: 1000, periodic_reset_days: 1 },
        ],
      },
    });
    expect(boundaries.status).toBe(201);
    expect(boundaries.body.usage_limits).toMatchObject([
      { type: 'cost', credit_limit: 12.5, periodic_reset_days: 365 },
      { type: 'tokens', credit_limit: 1000, periodic_reset_days: 1 },
    ]);
  });

  test('rate limits are strict; valid limits reach the gateway entity in proto form', async ({ cp, pg }) => {
    const rate = { type: 'requests', unit: 'rpm', value: 60 };
    await refused(cp, { rate_limits: [{ ...rate, value: 0 }] }, 'body.rate_limits.0.value');
    await refused(cp, { rate_limits: [{ ...rate, value: 1.5 }] }, 'body.rate_limits.0.value');
    await refused(cp, { rate_limits: [{ ...rate, unit: 'rps' }] }, 'body.rate_limits.0.unit');
    await refused(cp, { rate_limits: [{ ...rate, extra: true }] }, 'body.rate_limits.0');
    await refused(cp, { rate_limits: [rate, rate] }, 'body.rate_limits');

    const created = await cp.call('post', '/workspaces', {
      body: {
        name: 'Proto',
        rate_limits: [rate, { type: 'tokens', unit: 'rpd', value: 100000 }],
        usage_limits: { credit_limit: 2.5, periodic_reset: 'weekly' },
      },
    });
    expect(created.status).toBe(201);
    // A new workspace has used nothing yet: its limit shows current_usage 0 without asking the logger.
    expect(created.body.usage_limits).toEqual([
      { type: 'cost', credit_limit: 2.5, periodic_reset: 'weekly', current_usage: 0 },
    ]);
    const change = (await changeEvents(pg.pool)).find((c) => c.entity?.id === created.body.id);
    expect(change?.entity?.body).toMatchObject({
      $case: 'workspace',
      value: {
        rateLimits: [
          { type: RateLimitType.REQUESTS, unit: RateLimitUnit.RPM, value: 60 },
          { type: RateLimitType.TOKENS, unit: RateLimitUnit.RPD, value: 100000 },
        ],
        usageLimits: [
          { type: UsageLimitType.COST, creditLimit: 2_500_000, periodicReset: PeriodicReset.WEEKLY },
        ],
      },
    });

    const cleared = await cp.call('put', `/workspaces/${created.body.id}`, {
      body: { rate_limits: [], usage_limits: [] },
    });
    expect(cleared.body).toMatchObject({ rate_limits: [], usage_limits: [] });
    const badUpdate = await cp.call('put', `/workspaces/${created.body.id}`, {
      body: { usage_limits: [{ credit_limit: 5, periodic_reset_days: 400 }] },
    });
    expect(badUpdate.status).toBe(400);
    expect(badUpdate.body.error.param).toBe('body.usage_limits.0.periodic_reset_days');
  });

  test('settings: ranges, unknown names, default expiry not above the maximum (also across updates)', async ({
    cp,
  }) => {
    await refused(cp, { settings: { max_api_keys_per_user: 10_001 } }, 'body.settings.max_api_keys_per_user');
    await refused(cp, { settings: { max_api_keys_per_user: -1 } }, 'body.settings.max_api_keys_per_user');
    await refused(cp, { settings: { api_key_max_expiry_days: 0 } }, 'body.settings.api_key_max_expiry_days');
    await refused(cp, { settings: { membersViewAllData: 'yes' } }, 'body.settings.membersViewAllData');
    await refused(cp, { settings: { membersSeeEverything: true } }, 'body.settings');
    await refused(
      cp,
      { settings: { api_key_default_expiry_days: 90, api_key_max_expiry_days: 30 } },
      'body.settings.api_key_default_expiry_days',
    );
    await refused(cp, { name: '' }, 'body.name');
    await refused(cp, { name: 'x'.repeat(256) }, 'body.name');
    await refused(cp, { default_metadata: { team: 1 } }, 'body.default_metadata.team');

    const created = await cp.call('post', '/workspaces', {
      body: { name: 'Expiry', settings: { api_key_max_expiry_days: 30, max_api_keys_per_user: 10_000 } },
    });
    expect(created.status).toBe(201);
    const tooLong = await cp.call('put', `/workspaces/${created.body.id}`, {
      body: { settings: { api_key_default_expiry_days: 31 } },
    });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.error).toMatchObject({
      code: 'AB01',
      param: 'body.settings.api_key_default_expiry_days',
    });
    const fits = await cp.call('put', `/workspaces/${created.body.id}`, {
      body: { settings: { api_key_default_expiry_days: 30 } },
    });
    expect(fits.body.settings).toMatchObject({
      api_key_default_expiry_days: 30,
      api_key_max_expiry_days: 30,
    });
  });
});
