/**
 * The SDK's README as a page, so the guide a newcomer is pointed to is the one of the SDK this
 * service ships. Loaded on demand: its text stays out of the other pages' bundle.
 */
import guide from '@poolparty/sdk/README.md?raw';
import { usePageTitle } from '../page-title.js';

export default function SdkGuidePage() {
  usePageTitle('SDK guide');
  return (
    <section class="guide">
      <h1>SDK guide</h1>
      <p>
        The guide of <code>@poolparty/sdk</code>, as shipped with this service (Markdown).
      </p>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: the long text scrolls sideways on narrow screens and must be scrollable from the keyboard */}
      <pre tabIndex={0}>{guide}</pre>
    </section>
  );
}
