/**
 * The SDK guide page's HTML, rendered from the SDK's README when the app is built: headings with
 * GitHub's anchors, so every link of the README into itself lands on a heading; code blocks,
 * tables and links as HTML; no Markdown left over.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { guideHtml, headingSlug } from '../scripts/guide-html.js';

const README = readFileSync(join(import.meta.dirname, '../../sdk/README.md'), 'utf8');
const html = guideHtml(README);

describe('the SDK guide as HTML', () => {
  it('renders the headings with their anchors, without the README title the page replaces', () => {
    expect(html).not.toContain('<h1');
    expect(html).toContain('<h2 id="a-complete-swap">A complete swap</h2>');
    expect(html).toContain(
      '<h2 id="devnet-helpers-poolpartysdkdevnet">Devnet helpers: <code>@poolparty/sdk/devnet</code></h2>',
    );
    expect(html).toMatch(/<h3 id="when-the-user-must-accept-an-offer">/);
  });

  it('lands every link of the README into itself on a heading', () => {
    const ids = new Set([...html.matchAll(/ id="([^"]+)"/g)].map(([, id]) => id));
    const anchors = [...html.matchAll(/href="#([^"]+)"/g)].map(([, id]) => id);
    expect(anchors.length).toBeGreaterThan(0);
    for (const anchor of anchors) expect(ids, anchor).toContain(anchor);
  });

  it('renders code blocks, tables and inline code, and leaves no Markdown syntax', () => {
    expect(html).toContain('<pre><code class="language-js">');
    expect(html).toContain('<table>');
    expect(html).toContain('<th>code</th>');
    expect(html).toContain('<code>insufficient_funds</code>');
    // Outside code blocks, whose shell comments start with `#` as Markdown headings do.
    const prose = html.replace(/<pre>[\s\S]*?<\/pre>/g, '');
    expect(prose).not.toMatch(/^#{1,6} /m);
    expect(prose).not.toMatch(/^\| ?-{3}/m);
    expect(prose).not.toContain('```');
  });

  it('numbers repeated headings as GitHub does', () => {
    const twice = guideHtml('# T\n\n## Errors\n\n## Errors\n');
    expect(twice).toBe('<h2 id="errors">Errors</h2>\n<h2 id="errors-1">Errors</h2>\n');
    expect(headingSlug('The swap object: `wait()` & more')).toBe('the-swap-object-wait--more');
  });
});
