// A modal dialog (the native <dialog>, opened with showModal so focus stays inside and Escape
// closes it), styled by Pico: title in the header, the content, actions in the footer.
import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef } from 'preact/hooks';

/** Pico draws a header button with rel="prev" as the dialog's close icon (not a typed button attribute). */
const PICO_CLOSE = { rel: 'prev' } as Record<string, string>;

export function ModalDialog(props: {
  title: string;
  onClose(): void;
  children: ComponentChildren;
  footer?: ComponentChildren;
  wide?: boolean;
  testId?: string;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const onClose = useRef(props.onClose);
  onClose.current = props.onClose;
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    // Escape: the browser closes the dialog; the owner decides what closing means.
    const cancel = (event: Event) => {
      event.preventDefault();
      onClose.current();
    };
    dialog.addEventListener('cancel', cancel);
    if (!dialog.open) dialog.showModal();
    return () => {
      dialog.removeEventListener('cancel', cancel);
      if (dialog.open) dialog.close();
    };
  }, []);
  return (
    <dialog ref={ref} aria-labelledby={titleId} data-testid={props.testId}>
      <article class={props.wide ? 'modal-wide' : undefined}>
        <header>
          <button type="button" aria-label="Close" {...PICO_CLOSE} onClick={() => props.onClose()} />
          <h3 id={titleId}>{props.title}</h3>
        </header>
        {props.children}
        {props.footer ? <footer>{props.footer}</footer> : null}
      </article>
    </dialog>
  );
}
