// The one workspace picker, in forms and in filters. A workspace-bound caller has only its own (shown,
// locked). An organisation-level caller who may list workspaces picks from the first 100 active ones
// matching a name filter (the API filters; the browser never loads them all); one who may not, or
// whose listing fails, types a workspace id or slug (the API accepts both).
import { unwrap } from '../api/client.js';
import { can, isOrganisationLevel } from '../api/me.js';
import { useConsole } from '../context.js';
import type { InvalidProps } from './field-error.js';
import { SEARCHED_PAGE, SearchBox, useSearchedPage } from './searched-page.js';

export function WorkspaceSelect(props: {
  label: string;
  value: string;
  onChange(id: string): void;
  /** Text of the empty choice (all workspaces in a filter, organisation-level in a form). */
  emptyLabel?: string;
  id?: string;
  name?: string;
  required?: boolean;
  disabled?: boolean;
  invalid?: InvalidProps;
}) {
  const { api, me } = useConsole();
  const listable = isOrganisationLevel(me) && can(me, 'workspaces.list');
  const { list, search, setSearch, searchable } = useSearchedPage(
    async (name) =>
      listable
        ? unwrap(
            await api.GET('/workspaces', {
              params: { query: { page_size: SEARCHED_PAGE, status: 'active', ...(name ? { name } : {}) } },
            }),
          )
        : undefined,
    [listable],
  );
  const field = { id: props.id, name: props.name, required: props.required, ...props.invalid };
  if (me.workspace !== null)
    return (
      <label>
        {props.label}
        <select {...field} value={me.workspace.id} disabled>
          <option value={me.workspace.id}>{me.workspace.name}</option>
        </select>
      </label>
    );
  if (!listable || list.error)
    return (
      <label>
        {props.label} (id or slug)
        <input
          {...field}
          value={props.value}
          disabled={props.disabled}
          onInput={(e) => props.onChange((e.target as HTMLInputElement).value.trim())}
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
          {...field}
          value={props.value}
          disabled={props.disabled}
          aria-busy={list.loading}
          onChange={(e) => props.onChange((e.target as HTMLSelectElement).value)}
        >
          <option value="">{props.emptyLabel ?? 'Choose a workspace'}</option>
          {chosenMissing ? <option value={props.value}>{props.value}</option> : null}
          {rows.map((w) => (
            <option key={w.id} value={w.id}>
              {w.name} ({w.slug})
            </option>
          ))}
        </select>
      </label>
      {searchable && !props.disabled ? (
        <SearchBox label="Find a workspace by name" value={search} onInput={setSearch} />
      ) : null}
    </>
  );
}
