// What every create / edit dialog's form does the same way: its state changed a few fields at a
// time, submitting (busy while the API answers, the API's error kept to show by its field), and its
// foot: the errors no field shows, Cancel and the submit button.
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { ErrorBanner } from './error-banner.js';
import { unplacedError } from './form-errors.js';
import { ModalDialog } from './modal-dialog.js';

/** A form's state and the setter of some of its fields. */
export function usePatchState<T extends object>(initial: T | (() => T)): [T, (patch: Partial<T>) => void] {
  const [value, setValue] = useState(initial);
  return [value, (patch) => setValue((v) => ({ ...v, ...patch }))];
}

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

/** A modal dialog holding one form: the fields, then DialogActions; closing it is Cancel. */
export function FormDialog(props: {
  readonly title: string;
  readonly testId: string;
  readonly submitting: Submitting;
  readonly placed: readonly string[];
  readonly submitLabel: string;
  readonly formId?: string;
  onCancel(): void;
  readonly children: ComponentChildren;
}) {
  return (
    <ModalDialog title={props.title} onClose={props.onCancel} wide testId={props.testId}>
      <form onSubmit={props.submitting.submit} id={props.formId}>
        {props.children}
        <DialogActions
          submitting={props.submitting}
          placed={props.placed}
          submitLabel={props.submitLabel}
          onCancel={props.onCancel}
        />
      </form>
    </ModalDialog>
  );
}
