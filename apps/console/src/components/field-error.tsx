// An API error shown next to the form field it names: the field gets aria-invalid and points to
// the message with aria-describedby. Two ways in: from the error itself (`FieldError`, which finds
// the field's message with form-errors.ts) or from a message a page already picked (`FieldMessage`).
import { errorFor } from './form-errors.js';

export type InvalidProps = { 'aria-invalid'?: 'true'; 'aria-describedby'?: string };

export function FieldMessage(props: { id: string; message: string | undefined; testId?: string }) {
  if (props.message === undefined) return null;
  return (
    <small class="field-error" id={props.id} role="alert" data-testid={props.testId}>
      {props.message}
    </small>
  );
}

export function FieldError(props: { error: unknown; field: string; id: string }) {
  return (
    <FieldMessage
      id={props.id}
      message={errorFor(props.error, props.field)}
      testId={`field-error-${props.field}`}
    />
  );
}

/** Attributes of an input whose error is `message` (shown by a FieldMessage with `id`). */
export function invalidMessageProps(id: string, message: string | undefined): InvalidProps {
  return message === undefined ? {} : { 'aria-invalid': 'true', 'aria-describedby': id };
}

/** aria attributes for a field whose API error FieldError shows. */
export function invalidProps(error: unknown, field: string, id: string): InvalidProps {
  return invalidMessageProps(id, errorFor(error, field));
}
