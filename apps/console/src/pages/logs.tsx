// The Logs page (issue 22): not built yet.
import { Page } from '../components/page.js';

export function LogsPage() {
  return (
    <Page title="Logs">
      <p>Coming soon.</p>
    </Page>
  );
}
