/**
 * The `/docs` pages are PoolParty's: the page is titled so, loads the theme's stylesheet and
 * header script from this origin, and the header script puts links back to the web pages above
 * swagger-ui. (docs-browser.test.ts checks the same in Chromium, with the content policy.)
 */
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from './support/service.js';

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(() => t?.close());

/** The theme files `/docs/` links, by the path the page names them. */
function themeFiles(html: string): string[] {
  return [...html.matchAll(/(?:src|href)="([^"]*\/theme\/[^"]+)"/g)].map(([, path]) => path ?? '');
}

/** What the header script builds, run against a document that records the elements. */
function headerOf(script: string) {
  interface Element {
    tag: string;
    className: string;
    attributes: Record<string, string>;
    href: string;
    textContent: string;
    children: Element[];
    setAttribute(name: string, value: string): void;
    append(...children: Element[]): void;
  }
  const prepended: Element[] = [];
  const createElement = (tag: string): Element => ({
    tag,
    className: '',
    attributes: {},
    href: '',
    textContent: '',
    children: [],
    setAttribute(name, value) {
      this.attributes[name] = value;
    },
    append(...children) {
      this.children.push(...children);
    },
  });
  const document = { createElement, body: { prepend: (el: Element) => prepended.push(el) } };
  runInNewContext(script, { document });
  return prepended;
}

describe('/docs', () => {
  it("is titled PoolParty's and loads the theme from this origin", async () => {
    const page = await fetch(`${t.url}/docs/`);
    const html = await page.text();
    expect(html).toContain('<title>PoolParty API reference</title>');
    const files = themeFiles(html);
    expect(files.map((path) => path.split('/').at(-1)).sort()).toEqual([
      'poolparty-header.js',
      'poolparty.css',
    ]);
    for (const path of files) {
      const file = await fetch(new URL(path, `${t.url}/docs/`));
      expect(file.status, path).toBe(200);
    }
  });

  it('has a header linking back to the app, the developer portal and the SDK guide', async () => {
    const html = await (await fetch(`${t.url}/docs/`)).text();
    const script = themeFiles(html).find((path) => path.endsWith('.js')) ?? '';
    const source = await (await fetch(new URL(script, `${t.url}/docs/`))).text();
    const [header, ...rest] = headerOf(source);
    expect(rest).toEqual([]);
    expect(header?.tag).toBe('nav');
    expect(header?.attributes['aria-label']).toBe('PoolParty');
    expect(header?.children.map((link) => [link.tag, link.textContent, link.href])).toEqual([
      ['a', '← PoolParty', '/'],
      ['a', 'Developer portal', '/developer'],
      ['a', 'SDK guide', '/developer/sdk'],
    ]);
  });

  it("shows PoolParty's logo in swagger-ui's top bar, linking to the landing page", async () => {
    const html = await (await fetch(`${t.url}/docs/`)).text();
    const initializer = /src="([^"]*swagger-initializer\.js)"/.exec(html)?.[1] ?? '';
    const source = await (await fetch(new URL(initializer, `${t.url}/docs/`))).text();
    const logo = /data:image\/svg\+xml;base64,([A-Za-z0-9+/=]+)/.exec(source)?.[1] ?? '';
    expect(Buffer.from(logo, 'base64').toString('utf8')).toContain('>PoolParty</text>');
    expect(source).toContain("img.href = '/'");
  });
});
