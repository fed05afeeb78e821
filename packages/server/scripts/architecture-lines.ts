/**
 * The package table of docs/architecture.md, made from the code so that it stays true: each
 * package's entries (what its package.json exports), what it may import of the others (the graph
 * the architecture test holds against the imports) and the lines of its `src`, to the nearest
 * hundred. `npm run docs:architecture` rewrites the table between its markers; with `--check` it
 * changes nothing and fails when the table is stale (the architecture test runs that check).
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/** What each package may import of the project, with what the table says beside the names. */
export const PACKAGE_GRAPH = [
  { name: 'core', mayImport: [], note: 'nothing of the project; pure functions and types, no I/O' },
  { name: 'ledger', mayImport: ['core'] },
  { name: 'store', mayImport: ['core'] },
  { name: 'settlement', mayImport: ['core', 'ledger', 'store'] },
  { name: 'devnet-ledger', mayImport: ['core', 'ledger', 'store'], note: "the data folder's lock" },
  { name: 'server', mayImport: ['core', 'ledger', 'store', 'settlement', 'devnet-ledger'] },
  { name: 'sdk', mayImport: [], note: 'nothing: it is published and runs in browsers' },
  {
    name: 'app',
    mayImport: ['sdk', 'core'],
    note: 'its wire types, and `core/amount` for exact amounts',
  },
] as const satisfies readonly PackageRule[];

export interface PackageRule {
  readonly name: string;
  readonly mayImport: readonly string[];
  /** Said after the names, in parentheses; alone when the package imports nothing. */
  readonly note?: string;
}

const DOC = 'docs/architecture.md';
const START = '<!-- package table: written by `npm run docs:architecture` -->';
const END = '<!-- end of the package table -->';
/** Folders below `src` are walked to this depth at most; the deepest today is 3. */
const FOLDER_DEPTH_MAX = 8;
const HEADER = ['Package', 'Entries', 'May import', 'Lines of `src`'] as const;

const ROOT = resolve(import.meta.dirname, '../../..');

function linesUnder(folder: string, depth = 0): number {
  if (depth > FOLDER_DEPTH_MAX) throw new Error(`${folder}: folders nest deeper than expected`);
  let lines = 0;
  for (const entry of readdirSync(folder)) {
    const path = join(folder, entry);
    if (statSync(path).isDirectory()) lines += linesUnder(path, depth + 1);
    else {
      const text = readFileSync(path, 'utf8');
      // As `wc -l` counts: the line breaks, and a last line without one.
      lines += text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    }
  }
  return lines;
}

/** To the nearest hundred, thousands apart as the docs write them: `12 100`. */
function roundedLines(lines: number): string {
  return String(Math.round(lines / 100) * 100).replace(/\B(?=(\d{3})+(?!\d))/g, ' ');
}

function entriesOf(root: string, name: string): string {
  const manifest = JSON.parse(readFileSync(join(root, 'packages', name, 'package.json'), 'utf8'));
  const subpaths = Object.keys((manifest as { exports?: object }).exports ?? {}).filter(
    (subpath) => subpath !== './package.json',
  );
  if (subpaths.length === 0) return 'none: built into the web pages the service serves';
  return subpaths.map((subpath) => `\`${subpath === '.' ? '.' : subpath.slice(1)}\``).join(', ');
}

function mayImportOf(rule: PackageRule): string {
  const names = rule.mayImport.map((name) => `\`${name}\``).join(', ');
  if (names === '') return rule.note ?? 'nothing of the project';
  return rule.note === undefined ? names : `${names} (${rule.note})`;
}

/** The table as the doc shows it, its columns aligned. */
export function packageTable(root: string = ROOT): string {
  const rows = PACKAGE_GRAPH.map((rule: PackageRule) => [
    `\`${rule.name}\``,
    entriesOf(root, rule.name),
    mayImportOf(rule),
    roundedLines(linesUnder(join(root, 'packages', rule.name, 'src'))),
  ]);
  const widths = HEADER.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: readonly string[]) =>
    `| ${cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join(' | ')} |`;
  const rule = `| ${widths.map((width) => '-'.repeat(width)).join(' | ')} |`;
  return [line(HEADER), rule, ...rows.map(line)].join('\n');
}

/** `doc` with the table between its markers replaced by `table`. */
export function withPackageTable(doc: string, table: string): string {
  const start = doc.indexOf(START);
  const end = doc.indexOf(END);
  if (start < 0 || end < start) throw new Error(`${DOC} has no package table markers`);
  return `${doc.slice(0, start + START.length)}\n\n${table}\n\n${doc.slice(end)}`;
}

/** Null when the doc's table (as on disk, or `doc`) is the code's; else what to do about it. */
export function staleArchitectureDoc(
  root: string = ROOT,
  doc: string = readFileSync(join(root, DOC), 'utf8'),
): string | null {
  if (withPackageTable(doc, packageTable(root)) === doc) return null;
  return `${DOC}: the package table is stale; run npm run docs:architecture`;
}

function main(args: readonly string[]): void {
  if (args.includes('--check')) {
    const stale = staleArchitectureDoc();
    if (stale !== null) {
      console.error(stale);
      process.exitCode = 1;
    }
    return;
  }
  const path = join(ROOT, DOC);
  writeFileSync(path, withPackageTable(readFileSync(path, 'utf8'), packageTable()));
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2));
}
