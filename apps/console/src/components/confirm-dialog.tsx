// Asks before an action that cannot be undone (delete, revoke, rotate): the action runs only on the
// explicit button; an API refusal is shown in the dialog, which stays open.
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { ErrorBanner } from './error-banner.js';
import { ModalDialog } from './modal-dialog.js';

export function ConfirmDialog(props: {
  title: string;
  children: ComponentChildren;
  confirmLabel: string;
  danger?: boolean;
  onConfirm(): Promise<void>;
  onCancel(): void;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error | undefined>();
  const confirm = async () => {
    setBusy(true);
    setError(undefined);
    try {
      await props.onConfirm();
    } catch (err) {
      setError(err instanceof Error ? err : new Error(String(err)));
      setBusy(false);
    }
  };
  return (
    <ModalDialog
      title={props.title}
      onClose={props.onCancel}
      testId="confirm-dialog"
      footer={
        <>
          <button type="button" class="secondary" onClick={() => props.onCancel()} disabled={busy}>
            Cancel
          </button>
          <button
            type="button"
            class={props.danger ? 'danger' : undefined}
            onClick={confirm}
            aria-busy={busy}
            disabled={busy}
          >
            {props.confirmLabel}
          </button>
        </>
      }
    >
      {props.children}
      <ErrorBanner error={error} />
    </ModalDialog>
  );
}
