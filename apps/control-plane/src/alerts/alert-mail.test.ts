// The alert e-mail's subject and body.
import { describe, expect, it } from 'vitest';
import { alertMail } from './alert-mail.js';
import type { AlertRow } from './alerts.db.js';

const row: AlertRow = {
  id: 'a1',
  dedupe_key: 'k',
  organisation_id: 'org',
  workspace_id: 'ws',
  kind: 'exhausted',
  subject_kind: 'api_key',
  subject_id: 'key-1',
  group_values: { type: 'cost' },
  limit_type: 'cost',
  window_ms: null,
  usage: 10.5,
  credit_limit: 10,
  alert_threshold: 8,
  period_start: new Date(Date.UTC(2026, 10, 1)),
  occurred_at: new Date(Date.UTC(2026, 10, 2)),
  gateway_instance: null,
  created_at: new Date(),
  reset_at: null,
  email_state: 'pending',
  email_attempts: 0,
  email_next_attempt_at: null,
  email_last_error: null,
  email_sent_at: null,
  email_recipients: null,
};

describe('alert mail', () => {
  it('names what carries the limit and every fact of the alert', () => {
    const mail = alertMail(row, 'CI key');
    expect(mail.subject).toBe('Usage limit reached: API key "CI key"');
    expect(mail.text).toContain('refused (412)');
    expect(mail.text).toContain('Usage:           10.50 USD');
    expect(mail.text).toContain('Limit:           10.00 USD');
    expect(mail.text).toContain('Alert threshold: 8.00 USD');
    expect(mail.text).toContain('Period start:    2026-11-01T00:00:00.000Z');
    expect(mail.text).toContain('Workspace:       ws');
  });

  it('falls back to the id of a deleted subject, and a name cannot break the subject line', () => {
    const threshold = {
      ...row,
      kind: 'threshold' as const,
      limit_type: 'tokens' as const,
      usage: 800,
      credit_limit: 1000,
    };
    expect(alertMail(threshold, null).subject).toBe('Usage alert threshold reached: API key key-1');
    expect(alertMail(threshold, 'a\r\nBcc: x@evil.test').subject).toBe(
      'Usage alert threshold reached: API key "a Bcc: x@evil.test"',
    );
    expect(alertMail(threshold, null).text).toContain('Usage:           800 tokens');
  });

  it('names a rate limit, its window and the 429 in a rate-limited alert', () => {
    const mail = alertMail(
      {
        ...row,
        kind: 'rate_limited',
        subject_kind: 'rate_limit_policy',
        limit_type: 'requests',
        usage: 60,
        credit_limit: 60,
        alert_threshold: null,
        window_ms: 60_000,
      },
      'Per key',
    );
    expect(mail.subject).toBe('Rate limit reached: Rate limits policy "Per key"');
    expect(mail.text).toContain('refused requests over its rate limit of 60 requests per minute (429)');
    expect(mail.text).toContain('Limit:           60 requests');
  });
});
