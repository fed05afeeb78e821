import { usePageTitle } from '../page-title.js';

export function NotFoundPage() {
  usePageTitle('Page not found');
  return (
    <section>
      <h1>Page not found</h1>
      <p>
        There is no page here. Go to the <a href="/">home page</a> or <a href="/swap">swap</a>.
      </p>
    </section>
  );
}
