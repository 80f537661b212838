import { Link } from '../router.js';
import { Page } from '../ui/page.js';

export function NotFoundPage() {
  return (
    <Page title="Not found">
      <p>
        There is no page at this address. Go back to <Link href="/app">the posts</Link>.
      </p>
    </Page>
  );
}
