// The Configs page (issue 22): not built yet.
import { Page } from '../components/page.js';

export function ConfigsPage() {
  return (
    <Page title="Configs">
      <p>Coming soon.</p>
    </Page>
  );
}
