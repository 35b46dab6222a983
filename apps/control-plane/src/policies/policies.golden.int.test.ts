// Golden request/response pairs: the rate limits policy API of spec 4.1 field for field (create,
// list and its filters, get, the empty-object update, archive, errors) and the usage limits and
// entities routes built on it. Refresh with UPDATE_GOLDEN=1 after a deliberate change only.
import { describe } from 'vitest';
import { test } from '../../test/harness.js';
import { expectGolden, GoldenCase } from './policies.golden.test-support.js';
import { createWorkspace } from './policies.test-support.js';

const rate = (name: string, extra: Record<string, unknown>) => ({
  name,
  conditions: [{ key: 'workspace_id', value: extra.workspace_id }],
  group_by: [{ key: 'api_key' }],
  type: 'requests',
  unit: 'rpm',
  value: 100,
  ...extra,
});

describe('policies golden files', () => {
  test('rate-limits-create', async ({ cp }) => {
    await createWorkspace(cp, 'golden-create');
    const g = new GoldenCase(cp);
    const created = await g.call('post', '/policies/rate-limits', {
      name: 'Per key, per minute',
      conditions: [
        { key: 'workspace_id', value: 'golden-create' },
        { key: 'metadata.env', value: 'prod' },
      ],
      group_by: [{ key: 'api_key' }],
      type: 'requests',
      unit: 'rpm',
      value: 60,
      workspace_id: 'golden-create',
    });
    await g.call('get', `/policies/rate-limits/${created.body.id}`);
    expectGolden('rate-limits-create', g.exchanges);
  });

  test('rate-limits-list', async ({ cp }) => {
    await createWorkspace(cp, 'golden-list');
    const g = new GoldenCase(cp);
    const workspace_id = 'golden-list';
    const first = await g.call(
      'post',
      '/policies/rate-limits',
      rate('requests per minute', { workspace_id }),
    );
    await g.call(
      'post',
      '/policies/rate-limits',
      rate('tokens per hour', { workspace_id, type: 'tokens', unit: 'rph', value: 100000 }),
    );
    await g.call(
      'post',
      '/policies/rate-limits',
      rate('requests per day', { workspace_id, unit: 'rpd', value: 5000 }),
    );
    await g.call('get', `/policies/rate-limits?workspace_id=${workspace_id}`);
    await g.call('get', `/policies/rate-limits?workspace_id=${workspace_id}&type=tokens`);
    await g.call('get', `/policies/rate-limits?workspace_id=${workspace_id}&unit=rpd`);
    await g.call('get', `/policies/rate-limits?workspace_id=${workspace_id}&page_size=1&current_page=1`);
    await g.call('delete', `/policies/rate-limits/${first.body.id}`);
    await g.call('get', `/policies/rate-limits?workspace_id=${workspace_id}&status=archived`);
    await g.call('get', `/policies/rate-limits?workspace_id=${workspace_id}&status=active&page_size=0`);
    expectGolden('rate-limits-list', g.exchanges);
  });

  test('rate-limits-update', async ({ cp }) => {
    await createWorkspace(cp, 'golden-update');
    const g = new GoldenCase(cp);
    const created = await g.call(
      'post',
      '/policies/rate-limits',
      rate('before', { workspace_id: 'golden-update' }),
    );
    const path = `/policies/rate-limits/${created.body.id}`;
    await g.call('put', path, { name: 'after', unit: 'rph', value: 250 });
    await g.call('put', path, { value: 300 });
    await g.call('get', path);
    expectGolden('rate-limits-update', g.exchanges);
  });

  test('rate-limits-delete', async ({ cp }) => {
    await createWorkspace(cp, 'golden-delete');
    const g = new GoldenCase(cp);
    const created = await g.call(
      'post',
      '/policies/rate-limits',
      rate('short lived', { workspace_id: 'golden-delete' }),
    );
    const path = `/policies/rate-limits/${created.body.id}`;
    await g.call('delete', path);
    await g.call('get', path);
    await g.call('delete', path);
    expectGolden('rate-limits-delete', g.exchanges);
  });

  test('rate-limits-errors', async ({ cp }) => {
    await createWorkspace(cp, 'golden-errors');
    const g = new GoldenCase(cp);
    const missing = '00000000-0000-4000-8000-000000000000';
    await g.call(
      'post',
      '/policies/rate-limits',
      rate('bad key', {
        workspace_id: 'golden-errors',
        conditions: [{ key: 'region', value: 'eu' }],
      }),
    );
    await g.call(
      'post',
      '/policies/rate-limits',
      rate('no groups', { workspace_id: 'golden-errors', group_by: [] }),
    );
    await g.call('post', '/policies/rate-limits', rate('n'.repeat(256), { workspace_id: 'golden-errors' }));
    await g.call(
      'post',
      '/policies/rate-limits',
      rate('unit', { workspace_id: 'golden-errors', unit: 'rps' }),
    );
    await g.call('put', `/policies/rate-limits/${missing}`, { value: 10 });
    await g.call('get', `/policies/rate-limits/${missing}`);
    await g.call('delete', `/policies/rate-limits/${missing}`);
    await g.call('put', '/policies/rate-limits/not-a-uuid', { value: 10 });
    await g.call('get', '/policies/rate-limits?status=deleted');
    await g.call('get', '/policies/rate-limits?workspace_id=no-such-workspace');
    expectGolden('rate-limits-errors', g.exchanges);
  });

  test('usage-limits', async ({ cp }) => {
    await createWorkspace(cp, 'golden-usage');
    const g = new GoldenCase(cp);
    const created = await g.call('post', '/policies/usage-limits', {
      name: 'Monthly budget per key',
      conditions: [{ key: 'workspace_id', value: 'golden-usage' }],
      group_by: [{ key: 'api_key' }],
      type: 'cost',
      credit_limit: 250.5,
      alert_threshold: 200,
      periodic_reset: 'monthly',
      workspace_id: 'golden-usage',
    });
    const path = `/policies/usage-limits/${created.body.id}`;
    await g.call('get', path);
    await g.call('put', path, { credit_limit: 400, alert_threshold: null, periodic_reset_days: 30 });
    await g.call('put', path, { alert_threshold: 500 });
    await g.call('get', '/policies/usage-limits?workspace_id=golden-usage&type=cost');
    await g.call('get', `${path}/entities`);
    await g.call('delete', path);
    expectGolden('usage-limits', g.exchanges);
  });
});
