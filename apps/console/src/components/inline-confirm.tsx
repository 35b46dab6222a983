// Asking in place before an action that cannot be undone (delete a config, archive a policy, reset a
// usage): the button asks, then the question with the confirming button and Cancel stands in its place.
import type { ComponentChildren } from 'preact';

export function InlineConfirm(props: {
  /** The button that asks ("Delete…"). */
  askLabel: string;
  question: ComponentChildren;
  confirmLabel: string;
  /** The question is shown (the owner keeps which one, e.g. a row's id). */
  asking: boolean;
  onAsk(): void;
  onConfirm(): void;
  onCancel(): void;
  disabled?: boolean;
  /** Small buttons, for a table cell. */
  compact?: boolean;
}) {
  const compact = props.compact ? ' compact' : '';
  if (!props.asking)
    return (
      <button type="button" class={`secondary outline${compact}`} onClick={props.onAsk}>
        {props.askLabel}
      </button>
    );
  return (
    <span class="confirm">
      <span>{props.question}</span>
      <button type="button" class={`danger${compact}`} onClick={props.onConfirm} disabled={props.disabled}>
        {props.confirmLabel}
      </button>
      <button type="button" class={`secondary outline${compact}`} onClick={props.onCancel}>
        Cancel
      </button>
    </span>
  );
}
