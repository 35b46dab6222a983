import type { RetrySettings } from '@aigw/config-schema';
import { describe, expect, it } from 'vitest';
import {
  backoffMs,
  RETRY_AFTER_MAX_MS,
  RETRY_BASE_DELAY_MS,
  RETRY_MAX_BACKOFF_MS,
  retryAfterMs,
  retryDelayMs,
} from './retry-policy.js';

const retry = (use: boolean): RetrySettings => ({
  attempts: 3,
  on_status_codes: [429, 503],
  use_retry_after_header: use,
});

describe('retryAfterMs', () => {
  it('prefers retry-after-ms, then retry-after in seconds or as a date', () => {
    expect(retryAfterMs({ 'retry-after-ms': '1500', 'retry-after': '2' })).toBe(1500);
    expect(retryAfterMs({ 'retry-after-ms': '12.2' })).toBe(13);
    expect(retryAfterMs({ 'retry-after': '2' })).toBe(2000);
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterMs({ 'retry-after': 'Thu, 01 Jan 2026 00:00:03 GMT' }, now)).toBe(3000);
    expect(retryAfterMs({ 'retry-after': 'Wed, 31 Dec 2025 23:00:00 GMT' }, now)).toBe(0);
  });

  it('ignores absent and malformed values', () => {
    expect(retryAfterMs(undefined)).toBeUndefined();
    expect(retryAfterMs({})).toBeUndefined();
    expect(retryAfterMs({ 'retry-after': 'soon' })).toBeUndefined();
    expect(retryAfterMs({ 'retry-after-ms': '-5', 'retry-after': '1' })).toBe(1000);
  });
});

describe('backoffMs', () => {
  it('doubles from the base, with half of each wait random', () => {
    expect(backoffMs(1, () => 0)).toBe(RETRY_BASE_DELAY_MS / 2);
    expect(backoffMs(1, () => 0.999999)).toBe(RETRY_BASE_DELAY_MS);
    expect(backoffMs(2, () => 0)).toBe(RETRY_BASE_DELAY_MS);
    expect(backoffMs(3, () => 0.5)).toBe(RETRY_BASE_DELAY_MS * 3);
  });

  it('is capped', () => {
    expect(backoffMs(30, () => 0.999999)).toBe(RETRY_MAX_BACKOFF_MS);
    expect(backoffMs(30, () => 0)).toBe(RETRY_MAX_BACKOFF_MS / 2);
  });
});

describe('retryDelayMs', () => {
  it('follows retry-after only when the config asks for it', () => {
    const headers = { 'retry-after-ms': '700' };
    expect(retryDelayMs(1, retry(true), headers, () => 0)).toBe(700);
    expect(retryDelayMs(1, retry(false), headers, () => 0)).toBe(RETRY_BASE_DELAY_MS / 2);
    expect(retryDelayMs(2, retry(true), {}, () => 0)).toBe(RETRY_BASE_DELAY_MS);
  });

  it('gives up when the provider asks for longer than the gateway waits', () => {
    const headers = { 'retry-after': String(RETRY_AFTER_MAX_MS / 1000 + 1) };
    expect(retryDelayMs(1, retry(true), headers)).toBeUndefined();
  });
});
