// The API's error for one form field, shown under that field (the field points to it with
// aria-describedby and is marked aria-invalid).
export function FieldError(props: { id: string; message: string | undefined }) {
  if (props.message === undefined) return null;
  return (
    <small id={props.id} class="field-error" role="alert">
      {props.message}
    </small>
  );
}

/** Attributes of an input whose error is `message` (shown by a FieldError with `id`). */
export function invalidProps(id: string, message: string | undefined): InvalidProps {
  return message === undefined ? {} : { 'aria-invalid': 'true', 'aria-describedby': id };
}

export type InvalidProps = { 'aria-invalid'?: 'true'; 'aria-describedby'?: string };
