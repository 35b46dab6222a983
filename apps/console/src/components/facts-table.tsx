// A record's facts as a two-column table: a label (row header) and its value, one row each.
import type { ComponentChildren } from 'preact';

export function FactsTable(props: {
  rows: readonly (readonly [string, ComponentChildren])[];
  testId?: string;
}) {
  return (
    <table class="dense facts" data-testid={props.testId}>
      <tbody>
        {props.rows.map(([label, value]) => (
          <tr key={label}>
            <th scope="row">{label}</th>
            <td>{value}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
