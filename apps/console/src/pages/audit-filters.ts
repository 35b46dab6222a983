// The audit log's filters (GET /v1/audit-logs, docs/admin-api/logs.md "Audit logs") as URL query
// parameters, and the API query a URL stands for. Workspace and scope filters are offered only to
// an organisation-level caller (a workspace caller sees its workspace's records).
import { PAGE_SIZES } from '../components/cursor-pager.js';
import { timeQuery } from '../components/logs-time-range-query.js';
import { type FilterField, filterNames } from '../components/url-filter-form.js';
import { pageSizeOf, pickParams } from '../components/url-query.js';

const COMMON: readonly FilterField[] = [
  { name: 'action', label: 'Actions', placeholder: 'api_keys.create' },
  { name: 'resource_type', label: 'Resource type', placeholder: 'api_key' },
  { name: 'resource_id', label: 'Resource id' },
  {
    name: 'status',
    label: 'Outcome',
    kind: 'select',
    options: [
      { value: 'success', label: 'success' },
      { value: 'failure', label: 'failure (refused)' },
    ],
  },
  { name: 'status_code', label: 'Status codes', placeholder: '201,403' },
  { name: 'user_id', label: 'Actor user ids' },
  { name: 'api_key_id', label: 'Actor API key ids' },
  { name: 'ip', label: 'IP addresses' },
];

const ORGANISATION: readonly FilterField[] = [
  { name: 'workspace_id', label: 'Workspace (id or slug)' },
  {
    name: 'scope',
    label: 'Records of',
    kind: 'select',
    emptyLabel: 'this organisation',
    options: [{ value: 'platform', label: 'no organisation (platform operators)' }],
  },
];

export function auditFilterFields(organisationLevel: boolean): readonly FilterField[] {
  return organisationLevel ? [...COMMON, ...ORGANISATION] : COMMON;
}

export const AUDIT_PAGE_SIZE = 50;

export function auditQuery(search: URLSearchParams, nowMs: number, organisationLevel: boolean) {
  const cursor = search.get('cursor');
  return {
    ...pickParams(search, filterNames(auditFilterFields(organisationLevel), false)),
    ...timeQuery(search, nowMs),
    page_size: pageSizeOf(search, PAGE_SIZES, AUDIT_PAGE_SIZE),
    ...(cursor ? { cursor } : {}),
  };
}
