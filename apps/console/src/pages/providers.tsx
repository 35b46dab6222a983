// The Providers page (issue 22): not built yet.
import { Page } from '../components/page.js';

export function ProvidersPage() {
  return (
    <Page title="Providers">
      <p>Coming soon.</p>
    </Page>
  );
}
