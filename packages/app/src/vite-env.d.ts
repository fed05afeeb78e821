/// <reference types="vite/client" />

/** A Markdown file rendered to HTML at build time (scripts/guide-html.ts). */
declare module '*.md?guide' {
  const html: string;
  export default html;
}
