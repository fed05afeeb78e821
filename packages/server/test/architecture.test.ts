/**
 * The package graph of docs/architecture.md, held against the imports the code makes: each
 * package imports only the packages it may, no module reaches into another package by a relative
 * path, and inside the server only the composition root imports the HTTP layer. The doc's package
 * table is the code's (scripts/architecture-lines.ts writes it).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
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
/** The folders of a package that are its code (tests may use other packages' testing helpers). */
const CODE_FOLDERS = ['src', 'testing'];
/** Inside the server, the one module that builds an HTTP app and so imports the HTTP layer. */
const HTTP_BUILDERS = ['packages/server/src/service.ts'];
/** Static imports and re-exports, which start a line, and dynamic `import()` calls. */
const IMPORT =
  /^(?:import|export)\b[^;'"`]*?\bfrom\s+['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/gm;

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

function importsOf(file: string): string[] {
  return [...readFileSync(file, 'utf8').matchAll(IMPORT)].map((m) => (m[1] ?? m[2]) as string);
}

const codeFiles = Object.keys(MAY_IMPORT).flatMap((name) =>
  CODE_FOLDERS.flatMap((folder) =>
    filesUnder(join(PACKAGES, name, folder)).map((file) => ({ name, file })),
  ),
);

describe('the package graph', () => {
  it('finds the code of every package', () => {
    for (const name of Object.keys(MAY_IMPORT)) {
      expect(
        codeFiles.some((entry) => entry.name === name),
        name,
      ).toBe(true);
    }
  });

  it('has each package import only the packages it may, by name', () => {
    const wrong: string[] = [];
    for (const { name, file } of codeFiles) {
      for (const specifier of importsOf(file)) {
        const where = `${relative(ROOT, file)}: ${specifier}`;
        const imported = /^@poolparty\/([a-z-]+)/.exec(specifier)?.[1];
        if (imported !== undefined && imported !== name && !MAY_IMPORT[name]?.includes(imported)) {
          wrong.push(where);
        }
        if (specifier.startsWith('.')) {
          const target = relative(join(PACKAGES, name), resolve(file, '..', specifier));
          if (target.startsWith('..')) wrong.push(`${where} (reaches out of the package)`);
        }
      }
    }
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

  // A package's entries are what its package.json exports: its name, a published subpath such as
  // the SDK's `/devnet`, and, for helpers shared with tests and benchmarks, `/testing`.
  it('has the benchmarks use each package through its public entries only', () => {
    const exported = (specifier: string) => {
      const [, name, subpath] = /^@poolparty\/([^/]+)(\/.*)?$/.exec(specifier) ?? [];
      if (name === undefined || subpath === undefined) return true;
      const manifest = JSON.parse(readFileSync(join(PACKAGES, name, 'package.json'), 'utf8')) as {
        exports?: Record<string, unknown>;
      };
      return Object.hasOwn(manifest.exports ?? {}, `.${subpath}`);
    };
    const wrong = filesUnder(join(ROOT, 'bench')).flatMap((file) =>
      importsOf(file)
        .filter((specifier) => specifier.includes('packages/') || !exported(specifier))
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
