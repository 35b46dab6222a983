// A labelled text input (or text area) of a form, with the API's error for it underneath: from the
// error itself when the field names a request parameter (`body.name`), or a message the page placed.
import type { ComponentChildren } from 'preact';
import { FieldMessage, invalidMessageProps } from './field-error.js';
import { errorFor } from './form-errors.js';

export function TextField(props: {
  label: ComponentChildren;
  /** Said after the label, muted ("(optional)"). */
  hint?: ComponentChildren;
  value: string;
  onInput(value: string): void;
  name?: string;
  type?: string;
  placeholder?: string;
  required?: boolean;
  readOnly?: boolean;
  /** A text area of this many rows instead of a one-line input. */
  rows?: number;
  /** The id of the error message under the field. */
  errorId?: string;
  /** The API's error, shown when it names `field` (a request parameter such as `body.name`). */
  error?: unknown;
  field?: string;
  /** Or the message to show (a page that placed its error itself). */
  message?: string;
}) {
  const message = props.field === undefined ? props.message : errorFor(props.error, props.field);
  const id = props.errorId ?? '';
  const common = {
    name: props.name,
    value: props.value,
    placeholder: props.placeholder,
    required: props.required,
    readOnly: props.readOnly,
    ...invalidMessageProps(id, props.errorId === undefined ? undefined : message),
  };
  const control =
    props.rows === undefined ? (
      <input
        {...common}
        type={props.type}
        onInput={(e) => props.onInput((e.target as HTMLInputElement).value)}
      />
    ) : (
      <textarea
        {...common}
        rows={props.rows}
        onInput={(e) => props.onInput((e.target as HTMLTextAreaElement).value)}
      />
    );
  return (
    // biome-ignore lint/a11y/noLabelWithoutControl: the label wraps the control (an input or a text area)
    <label>
      {props.label}
      {props.hint === undefined ? null : (
        <>
          {' '}
          <small class="muted">{props.hint}</small>
        </>
      )}
      {control}
      {props.errorId === undefined ? null : (
        <FieldMessage
          id={props.errorId}
          message={message}
          testId={props.field === undefined ? undefined : `field-error-${props.field}`}
        />
      )}
    </label>
  );
}

/** The active / disabled switch of an edited record (gateways refuse a disabled one). */
export function ActiveSwitch(props: {
  value: 'active' | 'disabled';
  onChange(value: 'active' | 'disabled'): void;
  children: ComponentChildren;
}) {
  return (
    <label>
      <input
        type="checkbox"
        role="switch"
        aria-checked={props.value === 'active'}
        checked={props.value === 'active'}
        onChange={(e) => props.onChange((e.target as HTMLInputElement).checked ? 'active' : 'disabled')}
      />
      {props.children}
    </label>
  );
}
