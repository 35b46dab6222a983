// An API error as the API said it: message, code and the parameter it names.
import { ApiError } from '../api/client.js';

export function ErrorBanner({ error }: { error: Error | undefined }) {
  if (error === undefined) return null;
  const api = error instanceof ApiError ? error : undefined;
  return (
    <p class="error" role="alert" data-testid="error">
      <strong>{api ? `${api.status}${api.code ? ` ${api.code}` : ''}` : 'Error'}</strong> {error.message}
      {api?.param ? <small> (field: {api.param})</small> : null}
    </p>
  );
}
