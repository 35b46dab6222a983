// A list page's table, the same on every list (keys, integrations, providers, configs, policies, logs,
// audit, feedback): the API's error above it, the table (busy while a page loads, scrolling sideways
// when narrow), its column headers, a line saying nothing matches once a page has loaded empty, and
// the page's pager below. The rows and the pager are the page's own.
import type { ComponentChildren } from 'preact';
import { DataTable } from './data-table.js';
import { ErrorBanner } from './error-banner.js';

export interface ListTableProps {
  readonly testId: string;
  /** Table classes besides `dense` (`striped`, a page's own). */
  readonly class?: string;
  /** Column headers; `false` drops a column (e.g. the workspace for a workspace caller). */
  readonly columns: readonly (string | false)[];
  /** A last column without a visible header (row actions), named for screen readers. */
  readonly hiddenColumn?: string;
  readonly loading: boolean;
  /** The error to show above the table (undefined when none, or a form field shows it). */
  readonly error: Error | undefined;
  /** The rows of the page shown (undefined: not loaded); none shows `empty`. */
  readonly rows: readonly unknown[] | undefined;
  readonly empty: string;
  readonly emptyTestId?: string;
  readonly pager?: ComponentChildren;
  readonly children: ComponentChildren;
}

export function ListTable(props: ListTableProps) {
  return (
    <>
      <ErrorBanner error={props.error} />
      <div class="table-scroll">
        <DataTable
          testId={props.testId}
          class={props.class}
          columns={props.columns}
          hiddenColumn={props.hiddenColumn}
          busy={props.loading}
        >
          {props.children}
        </DataTable>
      </div>
      {props.rows?.length === 0 ? (
        <p class="muted" data-testid={props.emptyTestId}>
          {props.empty}
        </p>
      ) : null}
      {props.pager}
    </>
  );
}

/** A row's action button (edit, delete...): `label` names it for screen readers, with the row's name. */
export function RowButton(props: {
  readonly children: string;
  readonly label?: string;
  readonly danger?: boolean;
  onClick(): void;
}) {
  return (
    <button
      type="button"
      class={props.danger ? 'danger outline' : 'secondary outline'}
      aria-label={props.label}
      onClick={props.onClick}
    >
      {props.children}
    </button>
  );
}

/** A row's last cell: Edit and Delete, each offered only when given (the caller may do it). */
export function RowActions(props: {
  /** The row's name, naming the buttons for screen readers ("Edit @openai"). */
  readonly name?: string;
  onEdit?(): void;
  onDelete?(): void;
}) {
  const named = (action: string) => (props.name === undefined ? undefined : `${action} ${props.name}`);
  return (
    <td class="row-actions">
      {props.onEdit ? (
        <RowButton label={named('Edit')} onClick={props.onEdit}>
          Edit
        </RowButton>
      ) : null}
      {props.onDelete ? (
        <RowButton label={named('Delete')} danger onClick={props.onDelete}>
          Delete
        </RowButton>
      ) : null}
    </td>
  );
}
