// The Integrations page (issue 22): not built yet.
import { Page } from '../components/page.js';

export function IntegrationsPage() {
  return (
    <Page title="Integrations">
      <p>Coming soon.</p>
    </Page>
  );
}
