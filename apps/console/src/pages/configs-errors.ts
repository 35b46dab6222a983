// Places an error from saving a config where it belongs: a config-object path (or the JSON check's
// failure) under the editor with the line it names; `body.name` and friends under their field; the
// rest in the page's banner.
import { ApiError } from '../api/client.js';
import type { EditorError } from '../components/json-editor.js';
import { type ConfigField, configPathSegments, fieldOfParam, locatePath } from './configs-param.js';

export interface PlacedError {
  readonly editor?: EditorError;
  readonly field?: { readonly name: Exclude<ConfigField, 'config'>; readonly message: string };
  readonly banner?: Error;
}

/** The editor's text was not JSON: said before anything is sent. */
export class NotJsonError extends Error {
  constructor(
    message: string,
    readonly line: number,
    readonly lineText: string,
  ) {
    super(message);
  }
}

export function placeError(error: Error | undefined, submittedText: string): PlacedError {
  if (error === undefined) return {};
  if (error instanceof NotJsonError)
    return {
      editor: {
        message: `Not valid JSON: ${error.message}`,
        line: error.line,
        lineText: error.lineText,
        exact: true,
      },
    };
  if (!(error instanceof ApiError)) return { banner: error };
  const field = fieldOfParam(error.param);
  if (field === 'config') {
    const segments = configPathSegments(error.param as string) ?? [];
    const at = locatePath(submittedText, segments);
    return {
      editor: {
        message: error.message,
        param: error.param,
        line: at?.line,
        lineText: at?.text,
        exact: at?.exact,
      },
    };
  }
  if (field !== undefined) return { field: { name: field, message: error.message } };
  return { banner: error };
}
