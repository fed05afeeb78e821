/**
 * The `/docs` pages as PoolParty's: swagger-ui's theme options with the page title, the
 * service's colours, its logo in swagger-ui's top bar, and a header above it whose links lead back
 * to the web pages (the app, the developer portal, the SDK guide), which the service serves at
 * the same origin.
 *
 * The header is added by a script served from `/docs/static/theme/`, not written into the
 * page: swagger-ui builds the page from its own template, and the `/docs` content security policy
 * runs scripts from this origin only, never inline ones.
 */
import type { FastifySwaggerUiOptions } from '@fastify/swagger-ui';

/** The page title of `/docs`. */
export const DOCS_TITLE = 'PoolParty API reference';

/** The links of the header, in order: where a reader of the reference goes next. */
export const DOCS_HEADER_LINKS: readonly { readonly href: string; readonly text: string }[] = [
  { href: '/', text: '← PoolParty' },
  { href: '/developer', text: 'Developer portal' },
  { href: '/developer/sdk', text: 'SDK guide' },
];

/** The header, built with DOM calls: nothing from the page is read or parsed as HTML. */
const HEADER_SCRIPT = `(() => {
  const links = ${JSON.stringify(DOCS_HEADER_LINKS)};
  const bar = document.createElement('nav');
  bar.className = 'poolparty-docs-header';
  bar.setAttribute('aria-label', 'PoolParty');
  for (const { href, text } of links) {
    const link = document.createElement('a');
    link.href = href;
    link.textContent = text;
    bar.append(link);
  }
  document.body.prepend(bar);
})();
`;

const THEME_CSS = `
.poolparty-docs-header {
  display: flex;
  gap: 1.5rem;
  align-items: center;
  padding: 0.75rem 1.25rem;
  background: #4b2bd6;
  font-family: system-ui, sans-serif;
}
.poolparty-docs-header a {
  color: #ffffff;
  font-weight: 600;
  text-decoration: none;
}
.poolparty-docs-header a:first-child { margin-right: auto; }
.poolparty-docs-header a:hover, .poolparty-docs-header a:focus-visible { text-decoration: underline; }
.swagger-ui .topbar { background: #1b1d29; }
.swagger-ui .topbar .download-url-wrapper .download-url-button { background: #4b2bd6; }
`;

/** The word mark in swagger-ui's top bar, which links to the app's landing page. */
const LOGO_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="150" height="32" viewBox="0 0 150 32">
<text x="0" y="24" font-family="system-ui, sans-serif" font-size="22" font-weight="700" fill="#ffffff">PoolParty</text>
</svg>`;

/** swagger-ui's `theme` and `logo` options for `/docs`. */
export const DOCS_UI_BRANDING: Pick<FastifySwaggerUiOptions, 'theme' | 'logo'> = {
  theme: {
    title: DOCS_TITLE,
    css: [{ filename: 'poolparty.css', content: THEME_CSS }],
    js: [{ filename: 'poolparty-header.js', content: HEADER_SCRIPT }],
  },
  logo: {
    type: 'image/svg+xml',
    content: LOGO_SVG,
    href: '/',
    target: '_self',
  },
};
