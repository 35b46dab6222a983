import { describe, expect, it } from 'vitest';
import { providerStatus } from './providers.entity.js';

const NOW = new Date('2030-01-01T00:00:00Z');
const limits = [{ type: 'cost', credit_limit: 10 }];

describe('providerStatus', () => {
  it('derives expired from expires_at and exhausted from usage, never storing either', () => {
    const active = { status: 'active' as const, expires_at: null, usage_limits: limits };
    expect(providerStatus(active, NOW, () => 0)).toBe('active');
    expect(providerStatus(active, NOW, () => 9.99)).toBe('active');
    expect(providerStatus(active, NOW, () => 10)).toBe('exhausted');
    const past = { ...active, expires_at: new Date('2029-12-31T23:59:59Z') };
    expect(providerStatus(past, NOW, () => 10)).toBe('expired');
    const future = { ...active, expires_at: new Date('2030-01-02T00:00:00Z') };
    expect(providerStatus(future, NOW, () => 0)).toBe('active');
  });

  it('raising the limit reactivates at once', () => {
    const row = { status: 'active' as const, expires_at: null, usage_limits: limits };
    expect(providerStatus(row, NOW, () => 12)).toBe('exhausted');
    expect(
      providerStatus({ ...row, usage_limits: [{ type: 'cost', credit_limit: 20 }] }, NOW, () => 12),
    ).toBe('active');
  });

  it('keeps stored non-active statuses as they are', () => {
    for (const status of ['disabled', 'archived', 'expired'] as const) {
      expect(providerStatus({ status, expires_at: null, usage_limits: limits }, NOW, () => 100)).toBe(status);
    }
  });
});
