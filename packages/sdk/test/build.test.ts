/**
 * The published build: ESM, CommonJS and browser bundles with nothing from the workspace inside,
 * declarations that stand alone for `import` and `require` consumers, and the size budget.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { typecheckConsumer } from './support/consumer.js';

const PACKAGE = join(import.meta.dirname, '..');
const DIST = join(PACKAGE, 'dist');
const BROWSER_BUNDLE_GZIP_BYTES_MAX = 10 * 1024;
const require = createRequire(import.meta.url);
/** `import … from 'x'`, `export … from 'x'`, `import('x')`, `require('x')`. */
const MODULE_SPECIFIER =
  /(?:^|[\s;}])(?:import|export)\b[^;'"]*?\bfrom\s*['"]([^'"]+)['"]|\b(?:require|import)\s*\(\s*['"]([^'"]+)['"]/gm;

let consumerDir: string;

beforeAll(() => {
  const result = spawnSync(process.execPath, [join(PACKAGE, 'scripts/build.mjs')], {
    encoding: 'utf8',
  });
  expect(result.status, result.stderr).toBe(0);
  consumerDir = mkdtempSync(join(tmpdir(), 'poolparty-consumer-'));
}, 60_000);

afterAll(() => rmSync(consumerDir, { recursive: true, force: true }));

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

describe('the build', () => {
  it('ships bundles and declarations that reference nothing outside the package', () => {
    const files = filesUnder(DIST);
    for (const name of [
      'index.js',
      'index.cjs',
      'poolparty.browser.js',
      'index.d.ts',
      'cjs/index.d.ts',
    ]) {
      expect(files).toContain(join(DIST, name));
    }
    for (const file of files.filter((f) => /\.(c?js|d\.ts)$/.test(f))) {
      const text = readFileSync(file, 'utf8');
      // Any module specifier other than a relative one would be a dependency.
      const specifiers = [...text.matchAll(MODULE_SPECIFIER)].map((m) => m[1] ?? m[2]);
      for (const specifier of specifiers) expect(specifier, file).toMatch(/^\.\.?\//);
    }
  });

  it('points integrators at nothing they cannot open: no repository docs in declarations or guide', () => {
    // Editors show the declarations' comments; a path of this repository means nothing to someone
    // who installed the package, so the comments state the rule instead.
    const published = [
      ...filesUnder(DIST).filter((f) => f.endsWith('.d.ts')),
      join(PACKAGE, 'README.md'),
    ];
    const naming: string[] = [];
    for (const file of published) {
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, index) => {
          if (/(?<![\w.-])docs\/[\w./-]*\.md/.test(line))
            naming.push(`${file}:${index + 1}: ${line}`);
        });
    }
    expect(naming).toEqual([]);
  });

  it('loads as ESM and as CommonJS', async () => {
    const esm = await import(pathToFileURL(join(DIST, 'index.js')).href);
    const cjs = require(join(DIST, 'index.cjs'));
    for (const sdk of [esm, cjs]) {
      const pp = new sdk.PoolParty({ apiKey: 'pp_test_x', environment: 'devnet' });
      expect(pp.baseUrl).toBe('https://api.devnet.poolparty.example');
      expect(sdk.TERMINAL_STATES).toContain('completed');
    }
    // Either copy recognises the other's errors.
    expect(new cjs.SlippageError({ intentId: 'i', status: 'slippage_failed' })).toBeInstanceOf(
      esm.SwapOutcomeError,
    );
  });

  it(`keeps the browser bundle under ${BROWSER_BUNDLE_GZIP_BYTES_MAX} bytes gzipped`, () => {
    const bundle = readFileSync(join(DIST, 'poolparty.browser.js'));
    expect(gzipSync(bundle, { level: 9 }).length).toBeLessThan(BROWSER_BUNDLE_GZIP_BYTES_MAX);
  });

  it('type-checks an import and a require consumer against the declarations alone', () => {
    const modules = join(consumerDir, 'node_modules/@poolparty');
    mkdirSync(modules, { recursive: true });
    symlinkSync(PACKAGE, join(modules, 'sdk'), 'dir');
    const use = [
      "const pp = new PoolParty({ apiKey: 'k', walletToken: async () => 't' });",
      "const quote: Quote = await pp.quotes.get({ from: 'Amulet', to: 'USDCx', amount: '1' });",
      "const swap = await pp.swaps.create({ fromToken: 'Amulet', toToken: 'USDCx', amount: '1' });",
      "swap.on('completed', (status) => status.actualOutput);",
      'const result: string = (await swap.wait()).actualOutput;',
      'export { quote, result };',
    ].join('\n');
    const result = typecheckConsumer(consumerDir, {
      esm: `import { PoolParty, type Quote } from '@poolparty/sdk';\n${use}\n`,
      cjs: `import { PoolParty, type Quote } from '@poolparty/sdk';\nasync function main() {\n${use.replace('export { quote, result };', 'return [quote, result];')}\n}\nexport = main;\n`,
    });
    expect(result.output).toBe('');
    expect(result.status).toBe(0);
  }, 30_000);
});
