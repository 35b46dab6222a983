import { describe, expect, it } from 'vitest';
import { isoToLocalInput, localInputToIso } from '../components/logs-time-range-query.js';
import { type Attempt, attemptKind } from './logs-types.js';

const attempt = (target_path: string, retry_index: number): Attempt => ({
  target_path,
  provider: 'p',
  ai_service: 'openai',
  model: 'm',
  status_code: 500,
  started_at: null,
  latency_ms: 1,
  retry_index,
  error: null,
});

describe('attempt kinds', () => {
  it('tells the first try, retries of a target and fallbacks to another target apart', () => {
    const attempts = [
      attempt('config.targets[0]', 0),
      attempt('config.targets[0]', 1),
      attempt('config.targets[0]', 2),
      attempt('config.targets[1]', 0),
    ];
    expect(attempts.map((_, i) => attemptKind(attempts, i))).toEqual(['first', 'retry', 'retry', 'fallback']);
  });
});

describe('custom time range inputs', () => {
  it('round-trip a local datetime-local value through UTC ISO', () => {
    const iso = localInputToIso('2026-11-27T10:30');
    expect(iso).toMatch(/^2026-11-2\dT\d\d:30:00\.000Z$/);
    expect(isoToLocalInput(iso)).toBe('2026-11-27T10:30');
  });

  it('leave an empty or unreadable value empty (no filter) rather than guessing', () => {
    expect(localInputToIso('')).toBe('');
    expect(localInputToIso('not a time')).toBe('');
    expect(isoToLocalInput(null)).toBe('');
    expect(isoToLocalInput('garbage')).toBe('');
  });
});
