import { describe, expect, it } from 'vitest';
import type { Principal } from '../auth/principal.js';
import {
  assertScopesHeld,
  assertWorkspaceScopes,
  expiryOnCreate,
  expiryOnUpdate,
  workspaceKeySettings,
} from './api-keys.policy.js';

const DAY = 24 * 60 * 60 * 1000;
const NOW = new Date('2030-01-01T00:00:00Z');
const days = (n: number) => new Date(NOW.getTime() + n * DAY);

function caller(scopes: string[]): Principal {
  return {
    via: 'api_key',
    organisationId: '00000000-0000-4000-8000-000000000001',
    workspaceId: null,
    role: 'admin',
    scopes: new Set(scopes),
    userId: null,
    apiKeyId: null,
    keyType: 'admin',
    displayName: 'test',
  };
}

describe('scope rules', () => {
  it('allows subsets of the caller and names every missing scope', () => {
    expect(() => assertScopesHeld(caller(['logs.view', 'logs.list']), ['logs.view'])).not.toThrow();
    expect(() => assertScopesHeld(caller(['logs.view']), ['logs.view', 'logs.export', 'mcp.invoke'])).toThrow(
      expect.objectContaining({
        status: 403,
        code: 'AB03',
        message: expect.stringContaining('logs.export, mcp.invoke'),
      }),
    );
  });

  it('keeps organisation-only scopes off workspace keys', () => {
    expect(() =>
      assertWorkspaceScopes(['logs.view', 'mcp.invoke', 'virtual_keys.create', 'workspaces.read']),
    ).not.toThrow();
    for (const scope of [
      'workspaces.create',
      'users.list',
      'organisation.update',
      'workspace_members.create',
    ]) {
      expect(() => assertWorkspaceScopes(['logs.view', scope]), scope).toThrow(
        expect.objectContaining({ status: 400, code: 'AB01' }),
      );
    }
  });
});

describe('workspace key settings', () => {
  it('reads positive whole numbers and treats anything else as unset', () => {
    expect(
      workspaceKeySettings({
        max_api_keys_per_user: 3,
        api_key_default_expiry_days: 7,
        api_key_max_expiry_days: 30,
      }),
    ).toEqual({ maxApiKeysPerUser: 3, defaultExpiryDays: 7, maxExpiryDays: 30 });
    expect(
      workspaceKeySettings({
        max_api_keys_per_user: -1,
        api_key_default_expiry_days: '7',
        api_key_max_expiry_days: 1.5,
      }),
    ).toEqual({ maxApiKeysPerUser: 0, defaultExpiryDays: 0, maxExpiryDays: 0 });
    expect(workspaceKeySettings({})).toEqual({
      maxApiKeysPerUser: 0,
      defaultExpiryDays: 0,
      maxExpiryDays: 0,
    });
  });

  it('applies the default, falls back to the maximum, and refuses expiries past the maximum', () => {
    const both = { maxApiKeysPerUser: 0, defaultExpiryDays: 7, maxExpiryDays: 30 };
    expect(expiryOnCreate(both, undefined, NOW)).toEqual(days(7));
    expect(expiryOnCreate(both, days(30), NOW)).toEqual(days(30));
    expect(() => expiryOnCreate(both, new Date(days(30).getTime() + 1), NOW)).toThrow(
      expect.objectContaining({ code: 'AB01', param: 'body.expires_at' }),
    );
    expect(expiryOnCreate({ ...both, defaultExpiryDays: 0 }, undefined, NOW)).toEqual(days(30));
    expect(expiryOnCreate({ ...both, defaultExpiryDays: 90 }, undefined, NOW)).toEqual(days(30));
    expect(
      expiryOnCreate({ maxApiKeysPerUser: 0, defaultExpiryDays: 0, maxExpiryDays: 0 }, undefined, NOW),
    ).toBeNull();
  });

  it('refuses a never-expiring update only when a maximum is set', () => {
    const free = { maxApiKeysPerUser: 0, defaultExpiryDays: 7, maxExpiryDays: 0 };
    expect(expiryOnUpdate(free, null, NOW)).toBeNull();
    expect(expiryOnUpdate(free, days(1000), NOW)).toEqual(days(1000));
    expect(() => expiryOnUpdate({ ...free, maxExpiryDays: 10 }, null, NOW)).toThrow(
      expect.objectContaining({ code: 'AB01' }),
    );
  });
});
