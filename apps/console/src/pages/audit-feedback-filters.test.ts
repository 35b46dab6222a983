import { describe, expect, it } from 'vitest';
import { auditFilterFields, auditQuery } from './audit-filters.js';
import { feedbackFilterFields, feedbackQuery } from './feedback-filters.js';

const NOW = Date.parse('2026-11-27T12:00:00Z');

describe('the audit log query', () => {
  it('sends the filters of the URL with the time range and paging', () => {
    const search = new URLSearchParams(
      'action=api_keys.create,feedback.create&status=failure&resource_type=api_key&range=24h&page_size=10&cursor=c2&trace_id=x',
    );
    expect(auditQuery(search, NOW, true)).toEqual({
      action: 'api_keys.create,feedback.create',
      status: 'failure',
      resource_type: 'api_key',
      start_time: '2026-11-26T12:00:00.000Z',
      page_size: 10,
      cursor: 'c2',
    });
  });

  it('offers and sends workspace and platform scope only to an organisation-level caller', () => {
    const search = new URLSearchParams('workspace_id=w&scope=platform');
    expect(auditQuery(search, NOW, false)).toEqual({ page_size: 50 });
    expect(auditQuery(search, NOW, true)).toEqual({ workspace_id: 'w', scope: 'platform', page_size: 50 });
    expect(auditFilterFields(false).map((f) => f.name)).not.toContain('workspace_id');
  });
});

describe('the feedback query', () => {
  it('sends trace ids, value and weight bounds; the workspace only at organisation level', () => {
    const search = new URLSearchParams('trace_id=t1,t2&min_value=-3&max_weight=0.5&workspace_id=w');
    expect(feedbackQuery(search, NOW, false)).toEqual({
      trace_id: 't1,t2',
      min_value: '-3',
      max_weight: '0.5',
      page_size: 50,
    });
    expect(feedbackQuery(search, NOW, true)).toMatchObject({ workspace_id: 'w' });
    expect(feedbackFilterFields(false).map((f) => f.name)).not.toContain('workspace_id');
  });
});
