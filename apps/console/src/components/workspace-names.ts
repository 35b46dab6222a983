// Workspace names for tables and summaries, which the API gives as ids: the caller's own workspace,
// or the first page of the organisation's workspaces (one call, any status); an id not in it shows
// as the id, and no workspace (an organisation-level record) as "organisation".
import { unwrap } from '../api/client.js';
import { can, isOrganisationLevel } from '../api/me.js';
import { useConsole } from '../context.js';
import { useApi } from './use-api.js';

export interface KnownWorkspace {
  readonly id: string;
  readonly name: string;
}

export type WorkspaceName = (id: string | null) => string;

/** The workspaces the console can name: the caller's own, or the organisation's first 200. */
export function useKnownWorkspaces(): readonly KnownWorkspace[] {
  const { api, me } = useConsole();
  const listable = isOrganisationLevel(me) && can(me, 'workspaces.list');
  const list = useApi(
    async () =>
      listable ? unwrap(await api.GET('/workspaces', { params: { query: { page_size: 200 } } })) : undefined,
    [listable],
  );
  return me.workspace ? [me.workspace] : (list.data?.data ?? []);
}

export function useWorkspaceNames(): WorkspaceName {
  const known = useKnownWorkspaces();
  return (id) => (id === null ? 'organisation' : (known.find((w) => w.id === id)?.name ?? id));
}
