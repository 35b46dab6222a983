// A table with column headers: the list pages' (list-table.tsx) and the detail pages' (a log's
// attempts, guardrails and feedback, a config's versions, a policy's entities, analytics groups).
import type { ComponentChildren } from 'preact';

export function DataTable(props: {
  readonly testId?: string;
  /** Table classes besides `dense` (`striped`, a page's own). */
  readonly class?: string;
  /** Column headers; `false` drops a column (e.g. the workspace for a workspace caller). */
  readonly columns: readonly (string | false)[];
  /** A last column without a visible header (row actions), named for screen readers. */
  readonly hiddenColumn?: string;
  readonly busy?: boolean;
  readonly children: ComponentChildren;
}) {
  return (
    <table
      class={props.class ? `dense ${props.class}` : 'dense'}
      data-testid={props.testId}
      aria-busy={props.busy}
    >
      <thead>
        <tr>
          {props.columns.map((name) =>
            name === false ? null : (
              <th key={name} scope="col">
                {name}
              </th>
            ),
          )}
          {props.hiddenColumn ? (
            <th scope="col">
              <span class="visually-hidden">{props.hiddenColumn}</span>
            </th>
          ) : null}
        </tr>
      </thead>
      <tbody>{props.children}</tbody>
    </table>
  );
}
