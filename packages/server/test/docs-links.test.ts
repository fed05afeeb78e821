/**
 * The project explains itself from its own files: every relative link of its Markdown resolves,
 * every `docs/….md` path (and `#anchor`) the sources name exists, and nothing cites a document
 * that is not in the repository. The specification is `docs/spec/` (docs/spec/README.md).
 *
 * Anchors follow GitHub's rule for heading ids: the heading's text in lower case, punctuation
 * dropped (letters, digits, `-` and `_` stay), each space a `-`, and `-1`, `-2`, … appended to a
 * repeated heading.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

/** Folders never looked into: installed, built, generated or local state. */
const SKIPPED_DIRS = new Set(['node_modules', 'dist', 'coverage', '.git', 'results']);

/** Every file under `dir` (repository-relative, `/`-separated), skipping `SKIPPED_DIRS`. */
function filesUnder(dir: string): string[] {
  const found: string[] = [];
  const walk = (absolute: string) => {
    for (const entry of readdirSync(absolute, { withFileTypes: true })) {
      if (entry.isDirectory()) {
        if (SKIPPED_DIRS.has(entry.name) || entry.name.startsWith('.poolparty')) continue;
        walk(join(absolute, entry.name));
      } else if (entry.isFile()) {
        found.push(relative(ROOT, join(absolute, entry.name)).split(sep).join('/'));
      }
    }
  };
  walk(join(ROOT, dir));
  return found.sort();
}

function read(path: string): string {
  return readFileSync(join(ROOT, path), 'utf8');
}

/** The Markdown with fenced code blocks blanked out (line numbers kept). */
function withoutFences(markdown: string): string[] {
  let fence: string | null = null;
  return markdown.split('\n').map((line) => {
    const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === null && marker !== undefined) {
      fence = marker;
      return '';
    }
    if (fence !== null) {
      if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length) {
        fence = null;
      }
      return '';
    }
    return line;
  });
}

/** GitHub's heading id for a heading's source text. */
function slugOf(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`([^`]*)`/g, '$1')
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{M}\p{N}\s_-]/gu, '').replace(/ /g, '-');
}

const anchorsByFile = new Map<string, Set<string>>();

/** The heading ids of a Markdown file. */
function anchorsOf(path: string): Set<string> {
  let anchors = anchorsByFile.get(path);
  if (anchors === undefined) {
    anchors = new Set();
    const seen = new Map<string, number>();
    for (const line of withoutFences(read(path))) {
      const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
      if (heading === undefined) continue;
      const slug = slugOf(heading);
      const count = seen.get(slug) ?? 0;
      seen.set(slug, count + 1);
      anchors.add(count === 0 ? slug : `${slug}-${count}`);
    }
    anchorsByFile.set(path, anchors);
  }
  return anchors;
}

/**
 * Why `target` (a path, optionally with `#anchor`, relative to `fromDir`) does not resolve, or
 * null when it does.
 */
function brokenTarget(fromDir: string, target: string): string | null {
  const [pathPart = '', anchor] = target.split('#', 2) as [string, string | undefined];
  const path = decodeURI(pathPart);
  const resolved = relative(ROOT, resolve(ROOT, fromDir, path))
    .split(sep)
    .join('/');
  if (resolved.startsWith('..')) return `${target} leaves the repository`;
  if (!existsSync(join(ROOT, resolved))) return `${target}: no file ${resolved}`;
  if (anchor === undefined || anchor === '') return null;
  if (statSync(join(ROOT, resolved)).isDirectory()) return `${target}: an anchor on a folder`;
  if (!resolved.endsWith('.md')) return `${target}: an anchor on a file that is not Markdown`;
  return anchorsOf(resolved).has(anchor) ? null : `${target}: no heading #${anchor} in ${resolved}`;
}

/** Targets of inline links and images, and of reference definitions, outside code. */
function linkTargets(markdown: string): { line: number; target: string }[] {
  const targets: { line: number; target: string }[] = [];
  withoutFences(markdown).forEach((raw, index) => {
    const line = raw.replace(/`[^`]*`/g, '');
    for (const match of line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      targets.push({ line: index + 1, target: match[1] as string });
    }
    const definition = /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/.exec(line)?.[1];
    if (definition !== undefined) targets.push({ line: index + 1, target: definition });
  });
  return targets;
}

/** Links to other sites are not checked here. */
function isExternal(target: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//');
}

const MARKDOWN_FILES = [
  'README.md',
  ...['docs', 'packages', 'examples', 'bench'].flatMap(filesUnder),
].filter((path) => path.endsWith('.md'));

/** Where the code names documents of the project. */
const CODE_FILES = filesUnder('packages').filter((path) =>
  /^packages\/[^/]+\/(src|test)\/.*\.(ts|tsx|mts|cts|js|mjs|cjs)$/.test(path),
);

/** `docs/….md` and `docs/….md#anchor`, as code names them (repository-relative). */
const DOC_REFERENCE = /(?<![\w./-])docs\/[\w./-]*?\.md(?:#[\w-]+)?/g;

/**
 * Citations of documents that are not in the repository: the product specification and the client
 * interface it was written from, by section sign, and their files. Built from parts so this file
 * does not cite them itself.
 */
const OUTSIDE_CITATION = new RegExp(
  [
    ['SPEC', '\\s*§'].join(''),
    ['seed', '\\s*§'].join(''),
    ['SPEC', '\\.md'].join(''),
    ['client-interface', '\\.md'].join(''),
    ['\\.\\./', 'shared'].join(''),
  ].join('|'),
  'i',
);

function isText(path: string): boolean {
  return !readFileSync(join(ROOT, path)).subarray(0, 8192).includes(0);
}

describe('documentation links', () => {
  it('computes heading ids as GitHub does', () => {
    expect(slugOf('Exactly once')).toBe('exactly-once');
    expect(slugOf('Ledger port: Canton’s truth')).toBe('ledger-port-cantons-truth');
    expect(slugOf('Slow clients, connection caps and event-stream caps')).toBe(
      'slow-clients-connection-caps-and-event-stream-caps',
    );
    expect(slugOf('Devnet helpers: `@poolparty/sdk/devnet`')).toBe(
      'devnet-helpers-poolpartysdkdevnet',
    );
    expect(slugOf('Canton wire conformance (packages/devnet-ledger/test/canton/)')).toBe(
      'canton-wire-conformance-packagesdevnet-ledgertestcanton',
    );
  });

  it('finds the specification and the Markdown files', () => {
    expect(MARKDOWN_FILES).toContain('docs/spec/README.md');
    expect(MARKDOWN_FILES).toContain('packages/sdk/README.md');
  });

  it('resolves every relative link of every Markdown file, anchors included', () => {
    const broken: string[] = [];
    for (const file of MARKDOWN_FILES) {
      for (const { line, target } of linkTargets(read(file))) {
        if (isExternal(target)) continue;
        const problem = target.startsWith('#')
          ? brokenTarget(dirname(file), `${file.split('/').pop()}${target}`)
          : brokenTarget(dirname(file), target);
        if (problem !== null) broken.push(`${file}:${line}: ${problem}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('resolves every docs/….md path and anchor the sources and tests name', () => {
    const broken: string[] = [];
    for (const file of CODE_FILES) {
      read(file)
        .split('\n')
        .forEach((line, index) => {
          for (const match of line.matchAll(DOC_REFERENCE)) {
            const problem = brokenTarget('.', match[0]);
            if (problem !== null) broken.push(`${file}:${index + 1}: ${problem}`);
          }
        });
    }
    expect(broken).toEqual([]);
  });

  it('cites no document that is not in the repository', () => {
    const files = ['README.md', ...['packages', 'docs', 'examples', 'bench'].flatMap(filesUnder)];
    const citing: string[] = [];
    for (const file of files) {
      if (!isText(file)) continue;
      read(file)
        .split('\n')
        .forEach((line, index) => {
          if (OUTSIDE_CITATION.test(line)) citing.push(`${file}:${index + 1}: ${line.trim()}`);
        });
    }
    expect(citing).toEqual([]);
  });
});
