// The logs list's filters (GET /v1/logs, docs/admin-api/logs.md "Filters") as URL query
// parameters, and the API query a URL stands for. The workspace filter is offered only to an
// organisation-level caller: a workspace caller's logs are its workspace's (the API enforces it).

import { PAGE_SIZES } from '../components/cursor-pager.js';
import { timeQuery } from '../components/logs-time-range-query.js';
import type { FilterField } from '../components/url-filter-form.js';
import { filterNames } from '../components/url-filter-form.js';
import { pageSizeOf, pickParams } from '../components/url-query.js';

export const CACHE_STATUSES = [
  'hit',
  'semantic_hit',
  'miss',
  'semantic_miss',
  'refresh',
  'disabled',
] as const;

const COMMON: readonly FilterField[] = [
  { name: 'status_code', label: 'Status codes', placeholder: '200,429' },
  { name: 'provider', label: 'Provider', placeholder: 'openai-main' },
  { name: 'model', label: 'Model', placeholder: 'gpt-4o-mini' },
  { name: 'ai_service', label: 'AI service', placeholder: 'openai' },
  {
    name: 'cache_status',
    label: 'Cache status',
    kind: 'select',
    options: CACHE_STATUSES.map((c) => ({ value: c, label: c.replace('_', ' ') })),
  },
  { name: 'api_key_id', label: 'API key ids', placeholder: 'uuid, uuid' },
  { name: 'metadata', label: 'Metadata (JSON)', placeholder: '{"_user":"u1"}' },
  { name: 'min_cost', label: 'Min cost (USD)', kind: 'number', step: 'any' },
  { name: 'max_cost', label: 'Max cost (USD)', kind: 'number', step: 'any' },
  { name: 'min_tokens', label: 'Min tokens', kind: 'number', step: '1' },
  { name: 'max_tokens', label: 'Max tokens', kind: 'number', step: '1' },
  { name: 'config_id', label: 'Config ids' },
  { name: 'prompt_id', label: 'Prompt ids' },
  { name: 'user_id', label: 'User ids' },
];

const WORKSPACE: FilterField = { name: 'workspace_id', label: 'Workspace (id or slug)' };

/** The form's fields for this caller: the workspace filter only for an organisation-level one. */
export function logFilterFields(organisationLevel: boolean): readonly FilterField[] {
  return organisationLevel ? [WORKSPACE, ...COMMON] : COMMON;
}

export const DEFAULT_PAGE_SIZE = 50;

/** The list's absolute path, for links from inside the nested /logs router (`~`: past its base). */
export const LOGS_PATH = '~/console/logs';

/**
 * The GET /v1/logs query a URL stands for at `nowMs`: its filters (the trace id of the search box
 * among them), time range, page size and cursor. Parameters this caller is not offered are not sent.
 */
export function logsQuery(search: URLSearchParams, nowMs: number, organisationLevel: boolean) {
  const names = [...filterNames(logFilterFields(organisationLevel), false), 'trace_id'];
  const cursor = search.get('cursor');
  return {
    ...pickParams(search, names),
    ...timeQuery(search, nowMs),
    page_size: pageSizeOf(search, PAGE_SIZES, DEFAULT_PAGE_SIZE),
    ...(cursor ? { cursor } : {}),
  };
}
