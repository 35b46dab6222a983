// The filters of the saved configs and policies lists: workspace (for an organisation-level caller)
// and status (active or archived), and their page.
import { isOrganisationLevel } from '../api/me.js';
import { useConsole } from '../context.js';
import { FilterSelect } from './filter-select.js';
import type { PagedFilters } from './paged-filters.js';
import { WorkspaceSelect } from './workspace-select.js';

export interface SavedFilters {
  readonly workspace: string;
  readonly status: 'active' | 'archived';
  readonly page: number;
}

export const ACTIVE_SAVED: SavedFilters = { workspace: '', status: 'active', page: 0 };

export function SavedFilterForm(props: {
  paged: PagedFilters<SavedFilters>;
  /** The workspace select's id. */
  workspaceId: string;
  /** The workspace select's choice of none ("All workspaces"). */
  allWorkspaces: string;
}) {
  const { me } = useConsole();
  const { filters, filter } = props.paged;
  return (
    <form class="filters" onSubmit={(e) => e.preventDefault()}>
      {isOrganisationLevel(me) ? (
        <WorkspaceSelect
          id={props.workspaceId}
          label="Workspace"
          value={filters.workspace}
          onChange={(workspace) => filter({ workspace })}
          emptyLabel={props.allWorkspaces}
        />
      ) : null}
      <FilterSelect
        label="Status"
        value={filters.status}
        options={[
          ['active', 'Active'],
          ['archived', 'Archived'],
        ]}
        onChange={(status) => filter({ status: status as SavedFilters['status'] })}
      />
    </form>
  );
}
