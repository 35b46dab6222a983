import { describe, expect, it } from 'vitest';
import { isoToLocal, NO_LIMITS } from '../components/limits-form.js';
import { createRequest, type KeyForm, kindsFor, listQuery, updateBody } from './api-keys-form.js';

const form: KeyForm = {
  kind: 'service',
  name: 'ci',
  description: '',
  workspace: 'ws-1',
  userId: '',
  scopes: ['completions.write'],
  limits: NO_LIMITS,
};

describe('API keys form', () => {
  it('offers admin keys to organisation owners and admins, workspace keys to managers too', () => {
    const scopes = ['api_keys.create'];
    expect(kindsFor({ workspace: null, role: 'admin', scopes })).toEqual(['admin', 'service', 'user']);
    expect(kindsFor({ workspace: { id: 'w', slug: 'w', name: 'W' }, role: 'manager', scopes })).toEqual([
      'service',
      'user',
    ]);
    expect(kindsFor({ workspace: { id: 'w', slug: 'w', name: 'W' }, role: 'member', scopes })).toEqual([]);
    expect(kindsFor({ workspace: null, role: 'owner', scopes: [] })).toEqual([]);
  });

  it('builds the list query from the filters, leaving out the empty ones', () => {
    expect(listQuery({ type: '', status: '', workspace: '', page: 0 })).toEqual({
      page_size: 25,
      current_page: 0,
    });
    expect(listQuery({ type: 'service', status: 'active', workspace: 'w', page: 2 })).toEqual({
      page_size: 25,
      current_page: 2,
      type: 'service',
      status: 'active',
      workspace_id: 'w',
    });
  });

  it('sends each kind to its route with the fields that route accepts', () => {
    expect(createRequest({ ...form, kind: 'admin' })).toEqual({
      path: '/api-keys/organisation/service',
      body: { name: 'ci', scopes: ['completions.write'] },
    });
    expect(createRequest(form)).toEqual({
      path: '/api-keys/workspace/service',
      body: { name: 'ci', scopes: ['completions.write'], workspace_id: 'ws-1' },
    });
    expect(createRequest({ ...form, kind: 'user', userId: 'u-1', description: 'laptop' })).toEqual({
      path: '/api-keys/workspace/user',
      body: {
        name: 'ci',
        description: 'laptop',
        scopes: ['completions.write'],
        workspace_id: 'ws-1',
        user_id: 'u-1',
      },
    });
  });

  it('adds the limits when set', () => {
    const { body } = createRequest({
      ...form,
      limits: { ...NO_LIMITS, rate: [{ type: 'requests', unit: 'rpm', value: '10' }] },
    });
    expect(body.rate_limits).toEqual([{ type: 'requests', unit: 'rpm', value: 10 }]);
  });
});

describe('API key update', () => {
  const key = {
    name: 'ci',
    description: '',
    scopes: ['logs.list', 'completions.write'],
    rate_limits: [{ type: 'requests', unit: 'rpm', value: 10 }],
    usage_limits: [
      { type: 'cost', credit_limit: 5, alert_threshold: null, periodic_reset: 'monthly', current_usage: 1 },
    ],
    expires_at: '2031-05-01T10:00:00.000Z',
  };
  const unchanged = {
    name: 'ci',
    description: '',
    scopes: ['completions.write', 'logs.list'],
    limits: {
      rate: [{ type: 'requests' as const, unit: 'rpm' as const, value: '10' }],
      usage: [
        { type: 'cost' as const, credit_limit: '5', alert_threshold: '', periodic_reset: 'monthly' as const },
      ],
      expiresAt: isoToLocal('2031-05-01T10:00:00.000Z'),
    },
  };

  it('sends nothing when nothing changed', () => {
    expect(updateBody(key, unchanged)).toEqual({});
  });

  it('sends what changed; removed limits and expiry are cleared with null', () => {
    expect(
      updateBody(key, {
        ...unchanged,
        name: 'ci 2',
        scopes: ['logs.list'],
        limits: { rate: [], usage: [], expiresAt: '' },
      }),
    ).toEqual({
      name: 'ci 2',
      scopes: ['logs.list'],
      rate_limits: null,
      usage_limits: null,
      expires_at: null,
    });
  });
});
