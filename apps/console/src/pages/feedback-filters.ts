// The feedback list's filters (GET /v1/feedback, docs/admin-api/logs.md "Feedback") as URL query
// parameters, and the API query a URL stands for; the workspace filter only for an
// organisation-level caller.
import { PAGE_SIZES } from '../components/cursor-pager.js';
import { timeQuery } from '../components/logs-time-range-query.js';
import { type FilterField, filterNames } from '../components/url-filter-form.js';
import { pageSizeOf, pickParams } from '../components/url-query.js';

const COMMON: readonly FilterField[] = [
  { name: 'trace_id', label: 'Trace ids', placeholder: 'trace-1, trace-2' },
  { name: 'min_value', label: 'Min value (-10..10)', kind: 'number', step: '1' },
  { name: 'max_value', label: 'Max value (-10..10)', kind: 'number', step: '1' },
  { name: 'min_weight', label: 'Min weight (0..1)', kind: 'number', step: 'any' },
  { name: 'max_weight', label: 'Max weight (0..1)', kind: 'number', step: 'any' },
];

export function feedbackFilterFields(organisationLevel: boolean): readonly FilterField[] {
  return organisationLevel ? [...COMMON, { name: 'workspace_id', label: 'Workspace (id or slug)' }] : COMMON;
}

export const FEEDBACK_PAGE_SIZE = 50;

export function feedbackQuery(search: URLSearchParams, nowMs: number, organisationLevel: boolean) {
  const cursor = search.get('cursor');
  return {
    ...pickParams(search, filterNames(feedbackFilterFields(organisationLevel), false)),
    ...timeQuery(search, nowMs),
    page_size: pageSizeOf(search, PAGE_SIZES, FEEDBACK_PAGE_SIZE),
    ...(cursor ? { cursor } : {}),
  };
}
