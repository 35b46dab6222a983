// A JSON value (a captured body, an audit record's details) pretty-printed as text in a <pre>:
// whatever it holds is shown as characters, never interpreted as markup.

/** Two-space indented JSON; a value JSON cannot write (undefined) as its string form. */
export function formatJson(value: unknown): string {
  return JSON.stringify(value, null, 2) ?? String(value);
}

export function JsonView(props: { value: unknown; label: string; testId?: string }) {
  return (
    <section class="json-view" aria-label={props.label}>
      <pre class="json" data-testid={props.testId}>
        {formatJson(props.value)}
      </pre>
    </section>
  );
}

/** Text that is not JSON (an event stream, a body cut short), shown as it is. */
export function TextView(props: { text: string; label: string; testId?: string }) {
  return (
    <section class="json-view" aria-label={props.label}>
      <pre class="json" data-testid={props.testId}>
        {props.text}
      </pre>
    </section>
  );
}
