// Choosing a workspace in a form or a filter. A workspace-bound caller has only its own; an
// organisation-level caller picks from the first 100 active workspaces matching a name filter (the
// API filters; the browser never loads them all). Without workspaces.list it types an id or slug.
import { useState } from 'preact/hooks';
import { unwrap } from '../api/client.js';
import { can, isOrganisationLevel } from '../api/me.js';
import { useConsole } from '../context.js';
import { useApi } from './use-api.js';

const PAGE = 100;

export function WorkspaceSelect(props: {
  label: string;
  value: string;
  onChange(id: string): void;
  /** Text of the empty choice ("All workspaces"); without it a workspace must be chosen. */
  anyLabel?: string;
  name?: string;
  invalid?: Record<string, unknown>;
}) {
  const { api, me } = useConsole();
  const [filter, setFilter] = useState('');
  const listable = isOrganisationLevel(me) && can(me, 'workspaces.list');
  const list = useApi(
    async () =>
      listable
        ? unwrap(
            await api.GET('/workspaces', {
              params: { query: { page_size: PAGE, status: 'active', ...(filter ? { name: filter } : {}) } },
            }),
          )
        : undefined,
    [listable, filter],
  );
  if (me.workspace !== null)
    return (
      <label>
        {props.label}
        <select name={props.name} value={me.workspace.id} disabled>
          <option value={me.workspace.id}>{me.workspace.name}</option>
        </select>
      </label>
    );
  if (!listable)
    return (
      <label>
        {props.label} (id or slug)
        <input
          name={props.name}
          value={props.value}
          onInput={(e) => props.onChange((e.target as HTMLInputElement).value)}
          {...props.invalid}
        />
      </label>
    );
  const rows = list.data?.data ?? [];
  const chosenMissing = props.value !== '' && !rows.some((w) => w.id === props.value);
  return (
    <>
      <label>
        {props.label}
        <select
          name={props.name}
          value={props.value}
          aria-busy={list.loading}
          onChange={(e) => props.onChange((e.target as HTMLSelectElement).value)}
          {...props.invalid}
        >
          <option value="">{props.anyLabel ?? 'Choose a workspace'}</option>
          {chosenMissing ? <option value={props.value}>{props.value}</option> : null}
          {rows.map((w) => (
            <option key={w.id} value={w.id}>
              {w.name} ({w.slug})
            </option>
          ))}
        </select>
      </label>
      {(list.data?.total ?? 0) > PAGE || filter !== '' ? (
        <label>
          <small>Find a workspace by name</small>
          <input
            type="search"
            value={filter}
            onInput={(e) => setFilter((e.target as HTMLInputElement).value)}
          />
        </label>
      ) : null}
    </>
  );
}
