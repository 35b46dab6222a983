// The Audit log page (issue 22): not built yet.
import { Page } from '../components/page.js';

export function AuditPage() {
  return (
    <Page title="Audit log">
      <p>Coming soon.</p>
    </Page>
  );
}
