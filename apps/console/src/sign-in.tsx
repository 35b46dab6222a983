// Sign-in: paste an API key (admin or workspace) or a JWT. The credential is checked by calling
// GET /v1/me with it; only a credential the API accepts is kept (sessionStorage, this tab only).
import { useState } from 'preact/hooks';
import { createApi, unwrap } from './api/client.js';
import type { Me } from './api/me.js';
import { ErrorBanner } from './components/error-banner.js';
import { type Credential, credentialFrom } from './session.js';

export function SignIn(props: { onSignedIn(credential: Credential, me: Me): void; notice?: string }) {
  const [text, setText] = useState('');
  const [error, setError] = useState<Error | undefined>();
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    const credential = credentialFrom(text);
    if (!credential) {
      setError(new Error('Paste an API key or a token.'));
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      const me = unwrap(await createApi(credential, () => undefined).GET('/me'));
      props.onSignedIn(credential, me);
    } catch (err) {
      setError(err instanceof Error ? err : new Error(String(err)));
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="container sign-in">
      <article>
        <header>
          <h1>AI gateway console</h1>
          <p>Sign in with an admin or workspace API key, or a token (JWT).</p>
        </header>
        {props.notice ? <p class="notice">{props.notice}</p> : null}
        <form onSubmit={submit}>
          <label>
            API key or token
            <input
              name="credential"
              type="password"
              autocomplete="off"
              spellcheck={false}
              value={text}
              onInput={(e) => setText((e.target as HTMLInputElement).value)}
              placeholder="aigw_… or eyJ…"
              required
            />
          </label>
          <ErrorBanner error={error} />
          <button type="submit" aria-busy={busy} disabled={busy}>
            Sign in
          </button>
        </form>
        <footer>
          <small>
            The key stays in this browser tab only (session storage) and is sent to this control plane's API,
            which decides what you may see. <code>pnpm start</code> writes the first admin key to{' '}
            <code>.aigw/admin.key</code>.
          </small>
        </footer>
      </article>
    </main>
  );
}
