// The Feedback page (issue 22): not built yet.
import { Page } from '../components/page.js';

export function FeedbackPage() {
  return (
    <Page title="Feedback">
      <p>Coming soon.</p>
    </Page>
  );
}
