// Workspace names for the keys table, which the API gives as ids: the caller's own workspace, or
// the first page of the organisation's workspaces (one call); an id not in it shows as the id.
import { unwrap } from '../api/client.js';
import { can, isOrganisationLevel } from '../api/me.js';
import { useApi } from '../components/use-api.js';
import { useConsole } from '../context.js';

export function useWorkspaceNames(): (id: string | null) => string {
  const { api, me } = useConsole();
  const listable = isOrganisationLevel(me) && can(me, 'workspaces.list');
  const list = useApi(
    async () =>
      listable ? unwrap(await api.GET('/workspaces', { params: { query: { page_size: 200 } } })) : undefined,
    [listable],
  );
  return (id) => {
    if (id === null) return 'organisation';
    if (me.workspace?.id === id) return me.workspace.name;
    return list.data?.data.find((w) => w.id === id)?.name ?? id;
  };
}
