import { describe, expect, it } from 'vitest';
import { pageQuery } from './paged-filters.js';

describe('pageQuery', () => {
  it('sends the page and only the filters that are set', () => {
    expect(pageQuery(25, 2, { type: 'openai', status: '', workspace_id: 'ws-1' })).toEqual({
      page_size: 25,
      current_page: 2,
      type: 'openai',
      workspace_id: 'ws-1',
    });
  });

  it('sends no filter when none is set', () => {
    expect(pageQuery(20, 0, { status: '' })).toEqual({ page_size: 20, current_page: 0 });
  });
});
