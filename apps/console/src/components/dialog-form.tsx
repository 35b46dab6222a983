// What every create / edit dialog's form does the same way: submitting (busy while the API answers,
// the API's error kept to show by its field), and its foot: the errors no field shows, Cancel and
// the submit button.
import { useState } from 'preact/hooks';
import { ErrorBanner } from './error-banner.js';
import { unplacedError } from './form-errors.js';

export interface Submitting {
  readonly error: Error | undefined;
  readonly busy: boolean;
  /** The form's onSubmit: runs `action`; its error stays shown and the form usable again. */
  submit(event: Event): Promise<void>;
}

/** `action` sends the form and closes the dialog (or shows its outcome): on success busy stays on. */
export function useSubmit(action: () => Promise<void>): Submitting {
  const [error, setError] = useState<Error | undefined>();
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await action();
    } catch (err) {
      setError(err instanceof Error ? err : new Error(String(err)));
      setBusy(false);
    }
  };
  return { error, busy, submit };
}

/** The form's foot: the error when it names no field of `placed`, Cancel, and the submit button. */
export function DialogActions(props: {
  readonly submitting: Submitting;
  /** The API parameters the form shows errors next to. */
  readonly placed: readonly string[];
  readonly submitLabel: string;
  onCancel(): void;
}) {
  const { error, busy } = props.submitting;
  return (
    <>
      <ErrorBanner error={unplacedError(error, props.placed)} />
      <footer class="form-actions">
        <button type="button" class="secondary" onClick={props.onCancel}>
          Cancel
        </button>
        <button type="submit" aria-busy={busy} disabled={busy}>
          {props.submitLabel}
        </button>
      </footer>
    </>
  );
}
