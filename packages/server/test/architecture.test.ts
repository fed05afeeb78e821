/**
 * The package graph of docs/architecture.md, held against the imports the code and its tests
 * make: each package imports only the packages it may, through their entries; no module reaches
 * into another package by a relative path; what tests import closes no circle among the
 * packages; and inside the server only the composition root imports the HTTP layer. The doc's
 * package table is the code's (scripts/architecture-lines.ts writes it). And every error class of
 * the service's packages derives from core's `BaseError`.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  PACKAGE_GRAPH,
  staleArchitectureDoc,
  withPackageTable,
} from '../scripts/architecture-lines.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const PACKAGES = join(ROOT, 'packages');

/** What each package's own code (src, and testing helpers) may import of the project. */
const MAY_IMPORT: Readonly<Record<string, readonly string[]>> = Object.fromEntries(
  PACKAGE_GRAPH.map(({ name, mayImport }) => [name, mayImport]),
);
/**
 * The entries of core the app may run in the browser: exact amounts and liquidity's arithmetic,
 * which import nothing heavy; the rest of core (its wire schemas) it takes as types only.
 */
const APP_CORE_ENTRIES = ['@poolparty/core/amount', '@poolparty/core/liquidity'];
/**
 * What a package's tests may import beyond what its code may, through entries: the SDK's tests
 * hold its copies of the wire types and error tables against core's, the service's tests and
 * chaos run drive it through the SDK as an integrator's app does, and the web pages' tests start
 * the service that serves them.
 */
const TESTS_MAY_ALSO_IMPORT: Readonly<Record<string, readonly string[]>> = {
  sdk: ['core'],
  server: ['sdk'],
  app: ['server'],
};
/** The folders of a package that are its code: its sources, and what its `/testing` entry gives. */
const CODE_FOLDERS = ['src', 'testing'];
/** The folders of a package that test it or drive it whole: its tests, fuzzer and chaos run. */
const TEST_FOLDERS = ['test', 'fuzz', 'chaos'];
/** Inside the server, the one module that builds an HTTP app and so imports the HTTP layer. */
const HTTP_BUILDERS = ['packages/server/src/service.ts'];
/** Static imports and re-exports, which start a line, dynamic `import()` calls, bare imports. */
const IMPORT =
  /^(?:import|export)\b[^;'"`]*?\bfrom\s+['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)|^import\s+['"]([^'"]+)['"]/gm;
/** The same, less what `import type` and `export type` bring in: what runs. */
const RUNTIME_IMPORT =
  /^(?:import|export)\b(?!\s+type\b)[^;'"`]*?\bfrom\s+['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/gm;

function filesUnder(folder: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(folder);
  } catch {
    return [];
  }
  return entries.flatMap((entry) => {
    const path = join(folder, entry);
    if (statSync(path).isDirectory()) return entry === 'node_modules' ? [] : filesUnder(path);
    return /\.(ts|tsx)$/.test(entry) ? [path] : [];
  });
}

function importsOf(file: string, pattern = IMPORT): string[] {
  return [...readFileSync(file, 'utf8').matchAll(pattern)].map(
    (m) => (m[1] ?? m[2] ?? m[3]) as string,
  );
}

interface PackageFile {
  readonly name: string;
  readonly file: string;
}

function filesOf(folders: readonly string[]): PackageFile[] {
  return Object.keys(MAY_IMPORT).flatMap((name) =>
    folders.flatMap((folder) =>
      filesUnder(join(PACKAGES, name, folder)).map((file) => ({ name, file })),
    ),
  );
}

const codeFiles = filesOf(CODE_FOLDERS);
const testFiles = filesOf(TEST_FOLDERS);

/**
 * The package a specifier names and the subpath after it, e.g. sdk and `/devnet`, without a
 * bundler's query (`?raw`); null: none.
 */
function packageNamed(specifier: string): { name: string; subpath: string } | null {
  const [, name, subpath = ''] = /^@poolparty\/([^/?]+)(\/[^?]*)?/.exec(specifier) ?? [];
  return name === undefined ? null : { name, subpath };
}

/** The package a path is in, or null outside the packages (the repository's own files). */
function packageAt(path: string): string | null {
  const inside = relative(PACKAGES, path);
  return inside.startsWith('..') ? null : (inside.split(sep)[0] ?? null);
}

/**
 * A package's entries are what its package.json exports: its name, a published subpath such as
 * the SDK's `/devnet`, and, for helpers shared with other packages' tests, `/testing`.
 */
function isEntry(name: string, subpath: string): boolean {
  const manifest = join(PACKAGES, name, 'package.json');
  if (!existsSync(manifest)) return false;
  const { exports } = JSON.parse(readFileSync(manifest, 'utf8')) as {
    exports?: Record<string, unknown>;
  };
  return exports === undefined ? subpath === '' : Object.hasOwn(exports, `.${subpath}`);
}

/**
 * Each import of `files` that breaks the graph: a relative path out of the importing package, a
 * path of another package that is not one of its entries, or a package `allowed` does not list.
 */
function wrongImports(
  files: readonly PackageFile[],
  allowed: (name: string) => readonly string[],
): string[] {
  return files.flatMap(({ name, file }) =>
    importsOf(file).flatMap((specifier) => {
      const where = `${relative(ROOT, file)}: ${specifier}`;
      if (specifier.startsWith('.')) {
        const target = relative(join(PACKAGES, name), resolve(file, '..', specifier));
        return target.startsWith('..') ? [`${where} (reaches out of the package)`] : [];
      }
      const imported = packageNamed(specifier);
      if (imported === null) return [];
      if (!isEntry(imported.name, imported.subpath)) return [`${where} (not an entry)`];
      return imported.name === name || allowed(name).includes(imported.name) ? [] : [where];
    }),
  );
}

/** Which packages each package's files import, by name or by path. */
function importGraph(files: readonly PackageFile[]): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const { name, file } of files) {
    const imported = graph.get(name) ?? new Set<string>();
    graph.set(name, imported);
    for (const specifier of importsOf(file)) {
      const target = specifier.startsWith('.')
        ? packageAt(resolve(file, '..', specifier))
        : (packageNamed(specifier)?.name ?? null);
      if (target !== null && target !== name) imported.add(target);
    }
  }
  return graph;
}

/** A circle of the graph, as the packages along it with the first again at the end; null: none. */
function circleIn(graph: ReadonlyMap<string, ReadonlySet<string>>): string[] | null {
  const cleared = new Set<string>();
  const visit = (name: string, path: readonly string[]): string[] | null => {
    if (path.includes(name)) return [...path.slice(path.indexOf(name)), name];
    if (cleared.has(name)) return null;
    for (const next of graph.get(name) ?? []) {
      const circle = visit(next, [...path, name]);
      if (circle !== null) return circle;
    }
    cleared.add(name);
    return null;
  };
  for (const name of graph.keys()) {
    const circle = visit(name, []);
    if (circle !== null) return circle;
  }
  return null;
}

describe('the package graph', () => {
  it('finds the code of every package', () => {
    for (const name of Object.keys(MAY_IMPORT)) {
      expect(
        codeFiles.some((entry) => entry.name === name),
        name,
      ).toBe(true);
    }
  });

  it('finds the tests of every package', () => {
    for (const name of Object.keys(MAY_IMPORT)) {
      expect(
        testFiles.some((entry) => entry.name === name),
        name,
      ).toBe(true);
    }
  });

  it('has each package import only the packages it may, by their entries', () => {
    expect(wrongImports(codeFiles, (name) => MAY_IMPORT[name] ?? [])).toEqual([]);
  });

  it('has tests, the fuzzer and the chaos run import other packages by their entries only', () => {
    const allowed = (name: string) => [
      ...(MAY_IMPORT[name] ?? []),
      ...(TESTS_MAY_ALSO_IMPORT[name] ?? []),
    ];
    expect(wrongImports(testFiles, allowed)).toEqual([]);
  });

  it('has no circle among the packages, counting what their tests import', () => {
    expect(circleIn(importGraph([...codeFiles, ...testFiles]))).toBeNull();
  });

  it('tells a circle where there is one', () => {
    const graph = new Map([
      ['server', new Set(['sdk', 'core'])],
      ['sdk', new Set(['core', 'server'])],
      ['core', new Set<string>()],
    ]);
    expect(circleIn(graph)).toEqual(['server', 'sdk', 'server']);
    graph.get('sdk')?.delete('server');
    expect(circleIn(graph)).toBeNull();
  });

  it('has the app run only the entries of core made for browsers, the rest of core as types', () => {
    const wrong = codeFiles
      .filter(({ name }) => name === 'app')
      .flatMap(({ file }) =>
        importsOf(file, RUNTIME_IMPORT)
          .filter((specifier) => /^@poolparty\/core(\/|$)/.test(specifier))
          .filter((specifier) => !APP_CORE_ENTRIES.includes(specifier))
          .map((specifier) => `${relative(ROOT, file)}: ${specifier}`),
      );
    expect(wrong).toEqual([]);
  });

  it('keeps the HTTP layer to itself: only the modules that build an app import it', () => {
    const http = join(PACKAGES, 'server', 'src', 'http');
    const wrong = codeFiles
      .filter(({ file }) => !file.startsWith(http) && !HTTP_BUILDERS.includes(relative(ROOT, file)))
      .flatMap(({ file }) =>
        importsOf(file)
          .filter((specifier) => specifier.startsWith('.'))
          .filter((specifier) => resolve(file, '..', specifier).startsWith(http))
          .map((specifier) => `${relative(ROOT, file)}: ${specifier}`),
      );
    expect(wrong).toEqual([]);
  });

  // The benchmarks are no package: nothing imports them, so they may use any package.
  it('has the benchmarks use each package through its entries only', () => {
    const bench = join(ROOT, 'bench');
    const wrong = filesUnder(bench).flatMap((file) =>
      importsOf(file)
        .filter((specifier) => {
          if (specifier.startsWith('.')) return !resolve(file, '..', specifier).startsWith(bench);
          const imported = packageNamed(specifier);
          return imported !== null && !isEntry(imported.name, imported.subpath);
        })
        .map((specifier) => `${relative(ROOT, file)}: ${specifier}`),
    );
    expect(wrong).toEqual([]);
  });

  it('has the store send every SQL statement: no other package runs one itself', () => {
    const wrong = codeFiles
      .filter(({ name, file }) => name !== 'store' && file.includes(`${name}/src/`))
      .filter(({ file }) => /\.(query|exec)(<[^>]*>)?\(\s*[`'"]/.test(readFileSync(file, 'utf8')))
      .map(({ file }) => relative(ROOT, file));
    expect(wrong).toEqual([]);
  });

  it("keeps docs/architecture.md's package table the code's (npm run docs:architecture)", () => {
    expect(staleArchitectureDoc()).toBeNull();
  });

  it('tells a stale package table from a current one', () => {
    const doc = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
    const stale = withPackageTable(
      doc,
      '| Package | Lines of `src` |\n| --- | --- |\n| `core` | 1 |',
    );
    expect(staleArchitectureDoc(ROOT, stale)).toMatch(/stale; run npm run docs:architecture/);
  });
});

/** The built-in error classes: a class of ours that reaches one without `BaseError` bypasses it. */
const BUILT_IN_ERRORS = new Set([
  'Error',
  'RangeError',
  'TypeError',
  'SyntaxError',
  'ReferenceError',
  'EvalError',
  'URIError',
  'AggregateError',
  'DOMException',
]);
/** The base itself, the one class of ours that extends `Error`. */
const ERROR_BASE = 'BaseError';
/**
 * Error classes not on the base yet, by the module that defines them. The list may only shrink:
 * a class listed here that derives from the base fails the test until it is taken off.
 */
const NOT_ON_THE_BASE: Readonly<Record<string, string>> = {};

interface DeclaredClass {
  readonly name: string;
  readonly parent: string;
  readonly file: string;
}

/** `class Name<…> extends Parent`, the type parameters skipped (they hold `extends` too). */
function classesOf(file: string): DeclaredClass[] {
  const text = readFileSync(file, 'utf8');
  const found: DeclaredClass[] = [];
  for (const match of text.matchAll(/\bclass\s+([A-Za-z_$][\w$]*)/g)) {
    let at = (match.index ?? 0) + match[0].length;
    if (text[at] === '<') {
      for (let depth = 0; at < text.length; at += 1) {
        if (text[at] === '<') depth += 1;
        if (text[at] === '>' && --depth === 0) break;
      }
      at += 1;
    }
    const parent = /^\s+extends\s+([A-Za-z_$][\w$.]*)/.exec(text.slice(at))?.[1];
    if (parent !== undefined) found.push({ name: match[1] as string, parent, file });
  }
  return found;
}

/** What a class's ancestry reaches: the base, a built-in error, or neither (no error class). */
function rootOf(name: string, parents: ReadonlyMap<string, string>): 'base' | 'built-in' | null {
  const seen = new Set<string>();
  for (let current: string | undefined = name; current !== undefined; ) {
    if (current === ERROR_BASE) return 'base';
    if (BUILT_IN_ERRORS.has(current)) return 'built-in';
    if (seen.has(current)) return null;
    seen.add(current);
    const parent = parents.get(current);
    // A class of a library: an error class by its name, and so not one of the base's.
    if (parent === undefined) return /Error$/.test(current) && current !== name ? 'built-in' : null;
    current = parent;
  }
  return null;
}

describe('the error classes', () => {
  const declared = Object.keys(MAY_IMPORT)
    .filter((name) => name !== 'sdk')
    .flatMap((name) => filesUnder(join(PACKAGES, name, 'src')))
    .flatMap(classesOf);
  const parents = new Map(declared.map((c) => [c.name, c.parent]));
  const offBase = declared
    .filter((c) => c.name !== ERROR_BASE && rootOf(c.name, parents) === 'built-in')
    .map((c) => ({ name: c.name, file: relative(ROOT, c.file) }));

  it('finds the base and the classes on it, each name once', () => {
    expect(declared.find((c) => c.name === ERROR_BASE)?.parent).toBe('Error');
    const onBase = declared.filter((c) => rootOf(c.name, parents) === 'base');
    expect(onBase.length).toBeGreaterThan(30);
    const names = onBase.map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
  });

  it('has every error class of packages/*/src (the SDK aside) derive from BaseError', () => {
    const wrong = offBase.filter((c) => NOT_ON_THE_BASE[c.name] !== c.file);
    expect(wrong).toEqual([]);
  });

  it('lists as not on the base only classes that are not', () => {
    const listed = Object.entries(NOT_ON_THE_BASE).map(([name, file]) => ({ name, file }));
    expect(offBase.filter((c) => NOT_ON_THE_BASE[c.name] === c.file)).toEqual(listed);
  });
});
