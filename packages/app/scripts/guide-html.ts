/// <reference types="node" />
/**
 * The SDK guide page's HTML, made when the app is built: the SDK's README (Markdown) rendered by
 * `marked`, so the page shows headings, tables, code blocks and links, and the browser downloads
 * HTML, neither the Markdown nor a Markdown library.
 *
 * - Every heading gets the id GitHub gives it (lower case, punctuation dropped, spaces as
 *   hyphens, `-1`, `-2` … for repeats), so the README's own links (`#retries`) and links into it
 *   from elsewhere work on the page as on GitHub.
 * - The README's title (`# @poolparty/sdk`) is left out: the page has its own.
 * - The README is this repository's own text, not user input; raw HTML in it would pass through,
 *   and the pages' content security policy still runs no inline script or style.
 *
 * `import html from '@poolparty/sdk/README.md?guide'` is the module the plugin answers.
 */
import { readFile } from 'node:fs/promises';
import { Marked, type Tokens } from 'marked';
import type { Plugin } from 'vite';

/** The query that asks for a Markdown file as the guide's HTML. */
export const GUIDE_QUERY = '?guide';
/** Repeats of one heading text that get numbered ids; a README has a handful at most. */
const SLUG_REPEATS_MAX = 1000;

/** GitHub's anchor of a heading's text. */
export function headingSlug(text: string): string {
  return text
    .toLowerCase()
    .replace(/<[^>]*>/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .trim()
    .replace(/\s/g, '-');
}

/** The README as the guide's HTML. */
export function guideHtml(markdown: string): string {
  const used = new Map<string, number>();
  const uniqueSlug = (text: string): string => {
    const base = headingSlug(text);
    const seen = Math.min(used.get(base) ?? 0, SLUG_REPEATS_MAX);
    used.set(base, seen + 1);
    return seen === 0 ? base : `${base}-${seen}`;
  };
  const marked = new Marked({ gfm: true });
  marked.use({
    renderer: {
      heading(this: { parser: { parseInline(tokens: Tokens.Generic[]): string } }, token) {
        const inner = this.parser.parseInline(token.tokens);
        return `<h${token.depth} id="${uniqueSlug(token.text)}">${inner}</h${token.depth}>\n`;
      },
    },
  });
  const withoutTitle = markdown.replace(/^# [^\n]*\n/, '');
  return marked.parse(withoutTitle, { async: false });
}

/** Answers `<file>.md?guide` with the file as the guide's HTML, a string module. */
export function guidePlugin(): Plugin {
  return {
    name: 'poolparty-guide-html',
    enforce: 'pre',
    async load(id) {
      if (!id.endsWith(`.md${GUIDE_QUERY}`)) return null;
      const file = id.slice(0, -GUIDE_QUERY.length);
      this.addWatchFile(file);
      const html = guideHtml(await readFile(file, 'utf8'));
      return `export default ${JSON.stringify(html)};`;
    },
  };
}
