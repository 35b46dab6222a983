// An API error shown next to the form field it names (see form-errors.ts): the field gets
// aria-invalid and this message via its `id` (aria-describedby).
import { errorFor } from './form-errors.js';

export function FieldError(props: { error: unknown; field: string; id: string }) {
  const message = errorFor(props.error, props.field);
  if (message === undefined) return null;
  return (
    <small class="field-error" id={props.id} role="alert" data-testid={`field-error-${props.field}`}>
      {message}
    </small>
  );
}

/** aria attributes for a field whose API error FieldError shows. */
export function invalidProps(error: unknown, field: string, id: string) {
  return errorFor(error, field) === undefined
    ? {}
    : { 'aria-invalid': true as const, 'aria-describedby': id };
}
