/**
 * The SDK as an integrator gets it before it is published: `npm pack -w @poolparty/sdk` (which
 * builds and writes the published package.json through `prepack`) makes a tarball of the built
 * files and a package.json with nothing of the workspace's (no scripts, no devDependencies, no
 * condition pointing into `src/`); installed into an empty folder with install scripts allowed,
 * npm has nothing to warn about, and it completes a whole swap against a running service (a
 * process of its own, as `npm start` runs it) from an ES module and from a CommonJS script, with
 * the devnet entry standing in for the wallet and the liquidity entry reading the party's
 * positions, and its declarations type-check both under `strict`.
 */
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { typecheckConsumer } from './support/consumer.js';
import { type ServedService, startServedService } from './support/served.js';

const REPOSITORY = join(import.meta.dirname, '../../..');
const SDK_MANIFEST = join(REPOSITORY, 'packages/sdk/package.json');
/** Packing builds the SDK; installing a tarball with no dependencies only unpacks it. */
const NPM_TIMEOUT_MS = 120_000;

let service: ServedService;
let workDir: string;
let consumerDir: string;
let packed: { filename: string; files: { path: string }[] };
/** The workspace's package.json before packing, and what the consumer's install printed. */
let workspaceManifest: string;
let installOutput: string;

function npm(args: string[], cwd: string) {
  const result = spawnSync('npm', args, { cwd, encoding: 'utf8', timeout: NPM_TIMEOUT_MS });
  if (result.status !== 0) {
    throw new Error(`npm ${args.join(' ')} failed:\n${result.stdout}\n${result.stderr}`);
  }
  return { stdout: result.stdout, output: `${result.stdout}${result.stderr}` };
}

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'poolparty-pack-'));
  consumerDir = mkdtempSync(join(tmpdir(), 'poolparty-integrator-'));
  workspaceManifest = readFileSync(SDK_MANIFEST, 'utf8');
  const { stdout } = npm(
    ['pack', '-w', '@poolparty/sdk', '--pack-destination', workDir, '--json'],
    REPOSITORY,
  );
  // The build's own output comes first; the JSON report is the last thing printed.
  [packed] = JSON.parse(stdout.slice(stdout.search(/^\[/m)));
  // An app that allows install scripts is where npm warns about a package that has them.
  installOutput = npm(
    [
      'install',
      '--no-audit',
      '--no-fund',
      '--ignore-scripts=false',
      join(workDir, packed.filename),
    ],
    consumerDir,
  ).output;
  // Started once npm is done: npm runs synchronously, and the service's output must be read.
  service = await startServedService();
}, 240_000);

afterAll(async () => {
  await service?.close();
  for (const dir of [workDir, consumerDir]) if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The file paths an `exports` map (or any nesting of its conditions) points to. */
function pathsIn(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (typeof value !== 'object' || value === null) return [];
  return Object.values(value).flatMap(pathsIn);
}

/** The swap each script makes: a fresh funded party, wallet auth, intent, deposit, wait. */
const SWAP = `
  const devnet = new Devnet(process.env.BASE_URL);
  const wallet = await devnet.createWallet({ partyHint: process.env.HINT });
  await wallet.fund('Amulet', '100');
  let walletToken;
  const pp = new PoolParty({
    apiKey: process.env.API_KEY,
    environment: 'devnet',
    baseUrl: process.env.BASE_URL,
    walletToken: () => walletToken,
  });
  ({ token: walletToken } = await wallet.authenticate(pp));
  const swap = await pp.swaps.create({
    fromToken: 'Amulet', toToken: 'USDCx', amount: '10', poolId: process.env.POOL_ID,
  });
  await wallet.deposit(swap);
  const result = await swap.wait({ timeout: 60000 });
  const usdcx = await wallet.balance('USDCx', swap.outputTokenAdmin);
  const positions = await withLiquidity(pp).liquidity.positions();
  console.log(JSON.stringify({
    status: result.status, actualOutput: result.actualOutput, usdcx, positions: positions.length,
  }));
`;

/** Runs a script of the integrator's folder; asynchronously, so the service's output is read. */
async function runScript(file: string, hint: string) {
  const result = await promisify(execFile)(process.execPath, [file], {
    cwd: consumerDir,
    encoding: 'utf8',
    timeout: 90_000,
    env: {
      ...process.env,
      BASE_URL: service.url,
      API_KEY: service.apiKey,
      POOL_ID: service.poolId,
      HINT: `${hint}-${Date.now().toString(36)}`,
    },
  });
  expect(result.stderr).toBe('');
  return JSON.parse(result.stdout.trim().split('\n').at(-1) ?? '') as Record<string, string>;
}

describe('the packed SDK', () => {
  it('holds the built files and the guide, and no sources', () => {
    const files = packed.files.map((file) => file.path);
    for (const file of [
      'package.json',
      'README.md',
      'dist/index.js',
      'dist/index.cjs',
      'dist/index.d.ts',
      'dist/cjs/index.d.ts',
      'dist/devnet.js',
      'dist/devnet.cjs',
      'dist/devnet/index.d.ts',
      'dist/cjs/devnet/index.d.ts',
      'dist/poolparty.browser.js',
      'dist/liquidity.js',
      'dist/liquidity.cjs',
      'dist/liquidity/index.d.ts',
      'dist/cjs/liquidity/index.d.ts',
      'dist/poolparty-liquidity.browser.js',
      'dist/webhooks.js',
      'dist/webhooks.cjs',
      'dist/webhooks/index.d.ts',
      'dist/cjs/webhooks/index.d.ts',
      'dist/poolparty-webhooks.browser.js',
    ]) {
      expect(files).toContain(file);
    }
    expect(files.filter((file) => !file.startsWith('dist/'))).toEqual([
      'README.md',
      'package.json',
    ]);
  });

  it('installs without a warning: no install scripts, nothing of the workspace', () => {
    expect(installOutput).not.toMatch(/npm warn/i);
    const installed = JSON.parse(
      readFileSync(join(consumerDir, 'node_modules/@poolparty/sdk/package.json'), 'utf8'),
    ) as Record<string, unknown>;
    expect(installed.scripts).toBeUndefined();
    expect(installed.devDependencies).toBeUndefined();
    expect(installed.dependencies).toBeUndefined();
    // Every file an entry or condition names is in the tarball; none points into src/.
    const targets = pathsIn([installed.exports, installed.main, installed.module, installed.types]);
    const files = packed.files.map((file) => file.path);
    expect(targets.length).toBeGreaterThan(0);
    for (const target of targets) expect(files).toContain(target.replace(/^\.\//, ''));
    expect(JSON.stringify(installed.exports)).not.toContain('"source"');
  });

  it('leaves the workspace’s package.json as it was', () => {
    expect(readFileSync(SDK_MANIFEST, 'utf8')).toBe(workspaceManifest);
    expect(existsSync(join(REPOSITORY, 'packages/sdk/.workspace-package.json'))).toBe(false);
  });

  it('completes a swap from an ES module', async () => {
    writeFileSync(
      join(consumerDir, 'swap.mjs'),
      `import { PoolParty } from '@poolparty/sdk';\nimport { Devnet } from '@poolparty/sdk/devnet';\nimport { withLiquidity } from '@poolparty/sdk/liquidity';\n${SWAP}`,
    );
    const outcome = await runScript('swap.mjs', 'esm');
    expect(outcome.status).toBe('completed');
    expect(outcome.usdcx).toBe(outcome.actualOutput);
    expect(outcome.positions).toBe(0);
  });

  it('completes a swap from a CommonJS script', async () => {
    writeFileSync(
      join(consumerDir, 'swap.cjs'),
      `const { PoolParty } = require('@poolparty/sdk');\nconst { Devnet } = require('@poolparty/sdk/devnet');\nconst { withLiquidity } = require('@poolparty/sdk/liquidity');\n(async () => {${SWAP}})().catch((error) => { console.error(error); process.exit(1); });\n`,
    );
    const outcome = await runScript('swap.cjs', 'cjs');
    expect(outcome.status).toBe('completed');
    expect(outcome.usdcx).toBe(outcome.actualOutput);
    expect(outcome.positions).toBe(0);
  });

  it('type-checks every entry for import and require consumers', () => {
    const use = [
      "const wallet: DevnetWallet = await new Devnet('http://127.0.0.1:8787').wallet('a::1', 'ab');",
      "const pp = new PoolParty({ apiKey: 'k' });",
      'const token: string = (await wallet.authenticate(pp)).token;',
      "const signer = await createSigner({ kty: 'OKP', crv: 'Ed25519', d: 'x' });",
      "const signed: { signature: string; publicKey: string } = await signer.signMessage('m');",
      'const positions: Position[] = await withLiquidity(pp).liquidity.positions();',
    ].join('\n');
    const imports = [
      "import { PoolParty } from '@poolparty/sdk';",
      "import { createSigner, Devnet, type DevnetWallet } from '@poolparty/sdk/devnet';",
      "import { type Position, withLiquidity } from '@poolparty/sdk/liquidity';",
    ].join('\n');
    const result = typecheckConsumer(consumerDir, {
      esm: `${imports}\n${use}\nexport { token, signed, positions };\n`,
      cjs: `${imports}\nasync function main() {\n${use}\nreturn [token, signed, positions];\n}\nexport = main;\n`,
    });
    expect(result.output).toBe('');
    expect(result.status).toBe(0);
  }, 60_000);
});
