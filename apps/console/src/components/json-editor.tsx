// The JSON editor of the configs page: a monospace textarea (no code-editor library: every maintained
// one injects inline styles, which the console's CSP forbids) with line numbers beside it, and the
// error the API (or the JSON check) reported, shown under it with its param and the line it names.
import { useRef } from 'preact/hooks';

export interface EditorError {
  readonly message: string;
  /** The API's `param` (`config.targets[1].provider`), when it named one. */
  readonly param?: string | null | undefined;
  /** The line of the text the error points to. */
  readonly line?: number | undefined;
  readonly lineText?: string | undefined;
  /** False when the named value is absent and the line is its parent's. */
  readonly exact?: boolean | undefined;
}

export function JsonEditor(props: {
  id: string;
  label: string;
  value: string;
  onInput(value: string): void;
  error?: EditorError | undefined;
  rows?: number;
  readOnly?: boolean;
}) {
  const textarea = useRef<HTMLTextAreaElement>(null);
  const gutter = useRef<HTMLPreElement>(null);
  const lines = props.value.split('\n').length;
  const errorLine = props.error?.line;
  const errorId = `${props.id}-error`;
  const showLine = () => {
    const area = textarea.current;
    if (!area || errorLine === undefined) return;
    const all = area.value.split('\n');
    const start = all.slice(0, errorLine - 1).reduce((sum, line) => sum + line.length + 1, 0);
    area.focus();
    area.setSelectionRange(start, start + (all[errorLine - 1]?.length ?? 0));
    const lineHeight = Number.parseFloat(getComputedStyle(area).lineHeight) || 20;
    area.scrollTop = Math.max(0, (errorLine - 3) * lineHeight);
  };
  return (
    <div class="json-editor-field">
      <label for={props.id}>{props.label}</label>
      <div class="json-editor">
        <pre class="json-editor-gutter" aria-hidden="true" ref={gutter}>
          {Array.from({ length: lines }, (_, i) => (
            <span key={i} class={i + 1 === errorLine ? 'json-editor-line error-line' : 'json-editor-line'}>
              {i + 1}
            </span>
          ))}
        </pre>
        <textarea
          id={props.id}
          ref={textarea}
          class="json-editor-text"
          rows={props.rows ?? 18}
          wrap="off"
          spellcheck={false}
          autocomplete="off"
          readOnly={props.readOnly}
          value={props.value}
          aria-invalid={props.error ? 'true' : undefined}
          aria-describedby={props.error ? errorId : undefined}
          onInput={(e) => props.onInput((e.target as HTMLTextAreaElement).value)}
          onScroll={(e) => {
            if (gutter.current) gutter.current.scrollTop = (e.target as HTMLTextAreaElement).scrollTop;
          }}
        />
      </div>
      {props.error ? (
        <div class="json-editor-error" id={errorId} role="alert" data-testid="editor-error">
          <p>
            <strong data-testid="editor-error-message">{props.error.message}</strong>
          </p>
          <p>
            {props.error.param ? (
              <>
                at <code data-testid="editor-error-param">{props.error.param}</code>
              </>
            ) : null}
            {errorLine !== undefined ? (
              <>
                {' '}
                {props.error.exact === false ? 'inside the value on ' : 'on '}
                <button type="button" class="link-button" onClick={showLine} data-testid="editor-error-line">
                  line {errorLine}
                </button>
              </>
            ) : null}
          </p>
          {props.error.lineText !== undefined ? (
            <pre class="json-editor-error-line">
              <code>{props.error.lineText}</code>
            </pre>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}
