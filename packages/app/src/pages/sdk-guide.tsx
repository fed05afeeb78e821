/**
 * The SDK's README as a page, so the guide a newcomer is pointed to is the one of the SDK this
 * service ships. Rendered to HTML when the app is built (scripts/guide-html.ts), and loaded on
 * demand: its text stays out of the other pages' bundle.
 */
import guide from '@poolparty/sdk/README.md?guide';
import { usePageTitle } from '../page-title.js';

export default function SdkGuidePage() {
  usePageTitle('SDK guide');
  return (
    <section class="guide">
      <h1>SDK guide</h1>
      <p>
        The guide of <code>@poolparty/sdk</code>, as shipped with this service.
      </p>
      {/* The HTML is the SDK's README, rendered from this repository's own text at build time. */}
      <article class="guide-text" dangerouslySetInnerHTML={{ __html: guide }} />
    </section>
  );
}
