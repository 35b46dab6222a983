// The Analytics page (issue 22): not built yet.
import { Page } from '../components/page.js';

export function AnalyticsPage() {
  return (
    <Page title="Analytics">
      <p>Coming soon.</p>
    </Page>
  );
}
