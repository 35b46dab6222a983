// Picking a workspace: an organisation-level caller chooses among the organisation's workspaces (the
// first 100 the API lists, a select); a workspace-bound caller has only its own. If the caller may not
// list workspaces, a text field takes a workspace id or slug (the API accepts both).
import { unwrap } from '../api/client.js';
import { useConsole } from '../context.js';
import type { InvalidProps } from './field-error.js';
import { useApi } from './use-api.js';

export interface WorkspaceOption {
  readonly id: string;
  readonly name: string;
  readonly slug: string;
}

export const WORKSPACE_OPTIONS_PAGE = 100;

export function useWorkspaceOptions(): { options: readonly WorkspaceOption[] | undefined; failed: boolean } {
  const { api, me } = useConsole();
  const loaded = useApi(async (): Promise<WorkspaceOption[]> => {
    if (me.workspace) return [me.workspace];
    const page = unwrap(
      await api.GET('/workspaces', { params: { query: { page_size: WORKSPACE_OPTIONS_PAGE } } }),
    );
    return page.data.map((w) => ({ id: w.id, name: w.name, slug: w.slug }));
  }, [api, me]);
  return { options: loaded.data, failed: loaded.error !== undefined };
}

/** A workspace's name when it is among the options, else its id. */
export function workspaceLabel(options: readonly WorkspaceOption[] | undefined, id: string | null): string {
  if (id === null) return 'organisation';
  return options?.find((w) => w.id === id)?.name ?? id;
}

export function WorkspaceSelect(props: {
  id: string;
  label: string;
  value: string;
  onChange(value: string): void;
  options: readonly WorkspaceOption[] | undefined;
  failed: boolean;
  /** The choice of none (all workspaces in a filter, organisation-level in a form); omitted: none. */
  emptyLabel?: string;
  required?: boolean;
  disabled?: boolean;
  invalid?: InvalidProps;
}) {
  return (
    <label for={props.id}>
      {props.label}
      {props.failed ? (
        <input
          id={props.id}
          value={props.value}
          placeholder="workspace id or slug"
          required={props.required}
          disabled={props.disabled}
          onChange={(e) => props.onChange((e.target as HTMLInputElement).value.trim())}
          {...props.invalid}
        />
      ) : (
        <select
          id={props.id}
          value={props.value}
          required={props.required}
          disabled={props.disabled}
          aria-busy={props.options === undefined}
          onChange={(e) => props.onChange((e.target as HTMLSelectElement).value)}
          {...props.invalid}
        >
          {props.emptyLabel !== undefined || props.options === undefined ? (
            <option value="">{props.emptyLabel ?? '…'}</option>
          ) : null}
          {props.options?.map((w) => (
            <option key={w.id} value={w.id}>
              {w.name} ({w.slug})
            </option>
          ))}
        </select>
      )}
    </label>
  );
}
