// The console's shell: signed out it shows the sign-in form; signed in, the menu of the pages the
// caller's scopes allow and the page at the current path (below /console).
import { useCallback, useEffect, useMemo, useState } from 'preact/hooks';
import { Link, Redirect, Route, Router, Switch, useLocation } from 'wouter-preact';
import { createApi, unwrap } from './api/client.js';
import { can, type Me } from './api/me.js';
import { Console } from './context.js';
import { NAV } from './nav.js';
import { AnalyticsPage } from './pages/analytics.js';
import { ApiKeysPage } from './pages/api-keys.js';
import { AuditPage } from './pages/audit.js';
import { ConfigsPage } from './pages/configs.js';
import { FeedbackPage } from './pages/feedback.js';
import { IntegrationsPage } from './pages/integrations.js';
import { LogsPage } from './pages/logs.js';
import { PoliciesPage } from './pages/policies.js';
import { ProvidersPage } from './pages/providers.js';
import { type Credential, loadCredential, saveCredential } from './session.js';
import { SignIn } from './sign-in.js';

type State =
  | { readonly kind: 'checking'; readonly credential: Credential }
  | { readonly kind: 'signed-out'; readonly notice?: string }
  | { readonly kind: 'signed-in'; readonly credential: Credential; readonly me: Me };

export function App() {
  const [state, setState] = useState<State>(() => {
    const credential = loadCredential();
    return credential ? { kind: 'checking', credential } : { kind: 'signed-out' };
  });
  const signOut = useCallback((notice?: string) => {
    saveCredential(undefined);
    setState(notice === undefined ? { kind: 'signed-out' } : { kind: 'signed-out', notice });
  }, []);
  const credential = state.kind === 'signed-out' ? undefined : state.credential;
  const api = useMemo(
    () =>
      credential
        ? createApi(credential, () => signOut('The API no longer accepts this key or token: sign in again.'))
        : undefined,
    [credential, signOut],
  );

  // A credential kept from earlier in this tab is checked again before anything is shown.
  useEffect(() => {
    if (state.kind !== 'checking' || !api) return;
    api.GET('/me').then(
      (result) => {
        try {
          setState({ kind: 'signed-in', credential: state.credential, me: unwrap(result) });
        } catch {
          signOut('Sign in again.');
        }
      },
      () => signOut('The control plane could not be reached: sign in again.'),
    );
  }, [state, api, signOut]);

  if (state.kind === 'signed-out')
    return (
      <SignIn
        {...(state.notice ? { notice: state.notice } : {})}
        onSignedIn={(credential, me) => {
          saveCredential(credential);
          setState({ kind: 'signed-in', credential, me });
        }}
      />
    );
  if (state.kind === 'checking' || !api) return <main class="container" aria-busy="true" />;
  const { me } = state;
  const pages = NAV.filter((item) => can(me, item.scope));
  return (
    <Console.Provider value={{ api, me, signOut: () => signOut() }}>
      <Router base="/console">
        <nav class="container-fluid topbar">
          <ul>
            <li>
              <strong>AI gateway</strong>
            </li>
            <li>
              <small data-testid="caller">
                {me.organisation_name}
                {me.workspace ? ` / ${me.workspace.name}` : ''} · {me.display_name} ({me.role})
              </small>
            </li>
          </ul>
          <ul>
            <li>
              <button type="button" class="secondary outline" onClick={() => signOut()}>
                Sign out
              </button>
            </li>
          </ul>
        </nav>
        <div class="container-fluid layout">
          <aside>
            <nav aria-label="pages">
              <ul>
                {pages.map((item) => (
                  <li key={item.path}>
                    <MenuLink path={item.path} title={item.title} />
                  </li>
                ))}
              </ul>
            </nav>
          </aside>
          <main>
            <Switch>
              <Route path="/logs" nest>
                <LogsPage />
              </Route>
              <Route path="/analytics" component={AnalyticsPage} />
              <Route path="/api-keys" component={ApiKeysPage} />
              <Route path="/integrations" component={IntegrationsPage} />
              <Route path="/providers" component={ProvidersPage} />
              <Route path="/configs" nest>
                <ConfigsPage />
              </Route>
              <Route path="/policies" component={PoliciesPage} />
              <Route path="/audit" component={AuditPage} />
              <Route path="/feedback" component={FeedbackPage} />
              <Route>
                {pages[0] ? <Redirect to={pages[0].path} replace /> : <p>This key may not see any page.</p>}
              </Route>
            </Switch>
          </main>
        </div>
      </Router>
    </Console.Provider>
  );
}

function MenuLink(props: { path: string; title: string }) {
  const [location] = useLocation();
  const active = location === props.path || location.startsWith(`${props.path}/`);
  return (
    <Link href={props.path} class={active ? 'active' : ''} aria-current={active ? 'page' : undefined}>
      {props.title}
    </Link>
  );
}
