/**
 * The published build: ESM, CommonJS and browser bundles with nothing from the workspace inside,
 * declarations that stand alone for `import` and `require` consumers, and the size budgets — the
 * main browser bundle's without liquidity, which is an entry of its own with its own budget.
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
const BROWSER_BUNDLE_GZIP_BYTES_MAX = 11 * 1024;
const LIQUIDITY_BROWSER_BUNDLE_GZIP_BYTES_MAX = 5 * 1024;
const WEBHOOKS_BROWSER_BUNDLE_GZIP_BYTES_MAX = 4 * 1024;
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
      'liquidity.js',
      'liquidity.cjs',
      'poolparty-liquidity.browser.js',
      'liquidity/index.d.ts',
      'cjs/liquidity/index.d.ts',
      'webhooks.js',
      'webhooks.cjs',
      'poolparty-webhooks.browser.js',
      'webhooks/index.d.ts',
      'cjs/webhooks/index.d.ts',
      'atomic.js',
      'atomic.cjs',
      'poolparty-atomic.browser.js',
      'atomic/index.d.ts',
      'cjs/atomic/index.d.ts',
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

  it('gives a client pp.liquidity through the liquidity entry, from any copy of the SDK', async () => {
    const esm = await import(pathToFileURL(join(DIST, 'index.js')).href);
    const cjs = require(join(DIST, 'index.cjs'));
    const browser = await import(pathToFileURL(join(DIST, 'poolparty.browser.js')).href);
    const extensions = [
      await import(pathToFileURL(join(DIST, 'liquidity.js')).href),
      require(join(DIST, 'liquidity.cjs')),
      await import(pathToFileURL(join(DIST, 'poolparty-liquidity.browser.js')).href),
    ];
    for (const sdk of [esm, cjs, browser]) {
      expect(new sdk.PoolParty({ apiKey: 'pp_test_x' }).liquidity).toBeUndefined();
      for (const extension of extensions) {
        const pp = new sdk.PoolParty({ apiKey: 'pp_test_x' });
        expect(extension.withLiquidity(pp)).toBe(pp);
        expect(typeof pp.liquidity.create).toBe('function');
        expect(extension.LIQUIDITY_TERMINAL_STATES).toContain('completed');
        // A malformed call is the SDK's ValidationError, whichever copy made it.
        await expect(pp.liquidity.create({ poolId: 'p' })).rejects.toBeInstanceOf(
          sdk.ValidationError,
        );
      }
    }
  });

  it('keeps liquidity out of the main bundles', () => {
    for (const name of ['index.js', 'index.cjs', 'poolparty.browser.js']) {
      expect(readFileSync(join(DIST, name), 'utf8'), name).not.toContain('/v1/liquidity');
    }
  });

  it(`keeps the browser bundle under ${BROWSER_BUNDLE_GZIP_BYTES_MAX} bytes gzipped`, () => {
    const bundle = readFileSync(join(DIST, 'poolparty.browser.js'));
    expect(gzipSync(bundle, { level: 9 }).length).toBeLessThan(BROWSER_BUNDLE_GZIP_BYTES_MAX);
  });

  it(`keeps the liquidity bundle under ${LIQUIDITY_BROWSER_BUNDLE_GZIP_BYTES_MAX} bytes gzipped`, () => {
    const bundle = readFileSync(join(DIST, 'poolparty-liquidity.browser.js'));
    expect(gzipSync(bundle, { level: 9 }).length).toBeLessThan(
      LIQUIDITY_BROWSER_BUNDLE_GZIP_BYTES_MAX,
    );
  });

  it('verifies a signed webhook with every build of the webhooks entry, each refusal a PoolPartyError of the main build, and gives its portals webhooks', async () => {
    const esm = await import(pathToFileURL(join(DIST, 'index.js')).href);
    const builds = [
      await import(pathToFileURL(join(DIST, 'webhooks.js')).href),
      require(join(DIST, 'webhooks.cjs')),
      await import(pathToFileURL(join(DIST, 'poolparty-webhooks.browser.js')).href),
    ];
    const body = JSON.stringify({
      id: 'evt_1',
      type: 'webhook.test',
      createdAt: '2026-12-02T19:00:00.000Z',
      mode: 'devnet',
      data: { object: {} },
    });
    for (const entry of builds) {
      const header = await entry.webhooks.sign(body, 'whsec_build', { timestamp: 1_800_000_000 });
      const now = 1_800_000_000_000;
      await expect(
        entry.webhooks.verify(body, header, 'whsec_build', { now }),
      ).resolves.toMatchObject({ id: 'evt_1' });
      const refused = entry.webhooks.verify(body, header, 'whsec_other', { now });
      await expect(refused).rejects.toBeInstanceOf(esm.PoolPartyError);
      await expect(refused).rejects.toMatchObject({ code: 'webhook_signature_mismatch' });
      // withWebhooks reaches a portal made by another copy of the SDK.
      const portal = entry.withWebhooks(new esm.DeveloperPortal({ environment: 'devnet' }));
      expect(typeof portal.webhooks.rotateSecret).toBe('function');
    }
  });

  it('keeps webhook verification out of the main bundles', () => {
    for (const name of ['index.js', 'index.cjs', 'poolparty.browser.js']) {
      expect(readFileSync(join(DIST, name), 'utf8'), name).not.toContain('webhook_signature');
    }
  });

  it(`keeps the webhooks bundle under ${WEBHOOKS_BROWSER_BUNDLE_GZIP_BYTES_MAX} bytes gzipped`, () => {
    const bundle = readFileSync(join(DIST, 'poolparty-webhooks.browser.js'));
    expect(gzipSync(bundle, { level: 9 }).length).toBeLessThan(
      WEBHOOKS_BROWSER_BUNDLE_GZIP_BYTES_MAX,
    );
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
      'const lp: WithLiquidity = withLiquidity(pp);',
      "const intent = await lp.liquidity.create({ poolId: 'p', amountA: '1' });",
      "intent.on('partial', (now: LiquidityIntent) => now.deposits);",
      'const units: string | undefined = (await intent.wait()).minted?.units;',
      "const event: WebhookEvent = await webhooks.verify('{}', 't=1,v1=00', 'whsec_x');",
      "if (event.type === 'swap.completed') event.data.object.actualOutput;",
      'export { quote, result, units };',
    ].join('\n');
    const imports = [
      "import { PoolParty, type Quote } from '@poolparty/sdk';",
      "import { type LiquidityIntent, type WithLiquidity, withLiquidity } from '@poolparty/sdk/liquidity';",
      "import { type WebhookEvent, webhooks } from '@poolparty/sdk/webhooks';",
    ].join('\n');
    const result = typecheckConsumer(consumerDir, {
      esm: `${imports}\n${use}\n`,
      cjs: `${imports}\nasync function main() {\n${use.replace('export { quote, result, units };', 'return [quote, result, units];')}\n}\nexport = main;\n`,
    });
    expect(result.output).toBe('');
    expect(result.status).toBe(0);
  }, 30_000);
});
