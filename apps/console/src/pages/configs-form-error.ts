// The error a config form shows, placed where it points (configs-errors.ts): kept with the text it
// was about, so an editor line is found in what was sent even after more typing.
import { useState } from 'preact/hooks';
import { NotJsonError, placeError } from './configs-errors.js';
import { parseEditorText } from './configs-param.js';

export function useConfigFormError() {
  const [error, setError] = useState<{ error: Error; text: string } | undefined>();
  const placed = placeError(error?.error, error?.text ?? '');
  return {
    placed,
    /** The message for a form field (`name`, `slug`...), when the error names it. */
    fieldMessage: (name: string) => (placed.field?.name === name ? placed.field.message : undefined),
    /** The editor's text as sent (as typed: the API says what is wrong with a value that is not an
     * object), or undefined once the form shows why it is not JSON. */
    parse(text: string): Record<string, unknown> | undefined {
      const parsed = parseEditorText(text);
      if (parsed.ok) return parsed.value as Record<string, unknown>;
      setError({ error: new NotJsonError(parsed.message, parsed.line, parsed.text), text });
      return undefined;
    },
    fail(err: unknown, text: string) {
      setError({ error: err instanceof Error ? err : new Error(String(err)), text });
    },
    clear: () => setError(undefined),
  };
}
