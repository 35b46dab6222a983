// A diff of two texts (two versions of a config) as rows of text: removed lines marked `-` with the
// `diff-removed` class, added ones `+` with `diff-added`. Lines are rendered as text, never as markup.
import { useMemo } from 'preact/hooks';
import { diffRows, diffStats } from './version-diff-rows.js';

export function VersionDiff(props: {
  before: string;
  after: string;
  beforeLabel: string;
  afterLabel: string;
}) {
  const rows = useMemo(() => diffRows(props.before, props.after), [props.before, props.after]);
  const stats = diffStats(rows);
  return (
    <figure class="version-diff-figure">
      <figcaption>
        {props.beforeLabel} → {props.afterLabel}:{' '}
        <span data-testid="diff-stats">
          {stats.added === 0 && stats.removed === 0
            ? 'no difference'
            : `${stats.removed} line${stats.removed === 1 ? '' : 's'} removed, ${stats.added} added`}
        </span>
      </figcaption>
      <table class="version-diff" data-testid="version-diff">
        <tbody>
          {rows.map((row, i) => (
            <tr key={i} class={`diff-${row.kind}`} data-kind={row.kind}>
              <td class="diff-number">{row.oldLine ?? ''}</td>
              <td class="diff-number">{row.newLine ?? ''}</td>
              <td class="diff-sign">
                {row.kind === 'added' ? (
                  <>
                    <span aria-hidden="true">+</span>
                    <span class="visually-hidden">added</span>
                  </>
                ) : row.kind === 'removed' ? (
                  <>
                    <span aria-hidden="true">-</span>
                    <span class="visually-hidden">removed</span>
                  </>
                ) : (
                  ''
                )}
              </td>
              <td class="diff-text">{row.text}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}
