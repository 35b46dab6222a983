// The filters the integrations and providers lists share (GET /integrations, GET /providers): provider
// type, status and workspace, and the page; the query carries only those that are set.
import { AI_PROVIDERS } from '../api/catalogue.js';
import { FilterSelect } from './filter-select.js';
import { pageQuery } from './paged-filters.js';

export interface ProviderFilters {
  readonly type: string;
  readonly status: string;
  readonly workspace: string;
  readonly page: number;
}

export const NO_PROVIDER_FILTERS: ProviderFilters = { type: '', status: '', workspace: '', page: 0 };

export function providerListQuery(pageSize: number, f: ProviderFilters) {
  return pageQuery(pageSize, f.page, { ai_provider: f.type, status: f.status, workspace_id: f.workspace });
}

export function ProviderTypeFilter(props: { name?: string; value: string; onChange(type: string): void }) {
  return (
    <FilterSelect
      label="Provider type"
      name={props.name}
      value={props.value}
      anyLabel="All types"
      options={AI_PROVIDERS}
      onChange={props.onChange}
    />
  );
}
