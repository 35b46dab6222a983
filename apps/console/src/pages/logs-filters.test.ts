import { describe, expect, it } from 'vitest';
import { fieldOfParam, withFilters } from '../components/url-query.js';
import { logFilterFields, logsQuery } from './logs-filters.js';

const NOW = Date.parse('2026-11-27T12:00:00Z');

describe('the logs list query', () => {
  it('sends the URL filters the API knows, with the page size and cursor', () => {
    const search = new URLSearchParams(
      'status_code=200,429&model=gpt-4o-mini&trace_id=t-1&cache_status=miss&metadata={"_user":"u1"}&min_cost=0.5&page_size=25&cursor=abc&unknown=x&model_x=',
    );
    expect(logsQuery(search, NOW, true)).toEqual({
      status_code: '200,429',
      model: 'gpt-4o-mini',
      trace_id: 't-1',
      cache_status: 'miss',
      metadata: '{"_user":"u1"}',
      min_cost: '0.5',
      page_size: 25,
      cursor: 'abc',
    });
  });

  it('keeps a preset range relative to now, and a custom range as given', () => {
    expect(logsQuery(new URLSearchParams('range=1h'), NOW, true)).toEqual({
      start_time: '2026-11-27T11:00:00.000Z',
      page_size: 50,
    });
    expect(
      logsQuery(
        new URLSearchParams('start_time=2026-11-01T00:00:00Z&end_time=2026-11-02T00:00:00Z'),
        NOW,
        true,
      ),
    ).toEqual({ start_time: '2026-11-01T00:00:00Z', end_time: '2026-11-02T00:00:00Z', page_size: 50 });
  });

  it('falls back to the default page size for a size the selector does not offer', () => {
    expect(logsQuery(new URLSearchParams('page_size=100000'), NOW, true).page_size).toBe(50);
  });

  it('never sends a workspace filter for a workspace caller, nor offers one', () => {
    const search = new URLSearchParams('workspace_id=other-team&model=m');
    expect(logsQuery(search, NOW, false)).toEqual({ model: 'm', page_size: 50 });
    expect(logsQuery(search, NOW, true)).toEqual({ workspace_id: 'other-team', model: 'm', page_size: 50 });
    expect(logFilterFields(false).map((f) => f.name)).not.toContain('workspace_id');
    expect(logFilterFields(true).map((f) => f.name)).toContain('workspace_id');
  });
});

describe('filters in the URL', () => {
  it('applying filters drops the cursor and empty values, keeps the page size', () => {
    const next = withFilters(
      new URLSearchParams('cursor=c&page_size=25&model=a&provider=p'),
      ['model', 'provider'],
      {
        model: ' b ',
        provider: '',
      },
    );
    expect(next.toString()).toBe('page_size=25&model=b');
  });

  it("maps an API error's param to the field it names", () => {
    expect(fieldOfParam('query.status_code.0')).toBe('status_code');
    expect(fieldOfParam('query.metadata')).toBe('metadata');
    expect(fieldOfParam('cursor')).toBe('cursor');
    expect(fieldOfParam(null)).toBeUndefined();
  });
});
