// The Policies page (issue 22): not built yet.
import { Page } from '../components/page.js';

export function PoliciesPage() {
  return (
    <Page title="Policies">
      <p>Coming soon.</p>
    </Page>
  );
}
