// The API keys page (issue 22): not built yet.
import { Page } from '../components/page.js';

export function ApiKeysPage() {
  return (
    <Page title="API keys">
      <p>Coming soon.</p>
    </Page>
  );
}
