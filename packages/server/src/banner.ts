/**
 * What `poolparty serve` prints when it is up: where it listens and, on devnet, everything needed
 * to make a first call — the developer key, the seeded parties and what each is for, the first
 * swap as one command, and an SDK snippet to paste.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { cantonAuthOf, describeCantonAuth } from './canton-options.js';
import type { Settings } from './config.js';
import { DEVNET_FILE, type DevnetWelcome } from './devnet-bootstrap.js';
import { SERVER_PACKAGE_DIR } from './package-dir.js';
import type { RunningService } from './service.js';

const ROLE_NAMES = {
  all: 'service',
  api: 'API',
  worker: 'settlement worker',
} as const;

/** Where the examples look when given nothing: `npm start`'s address and data folder. */
const EXAMPLES_DEFAULT_URL = 'http://127.0.0.1:8787';
const EXAMPLES_DEFAULT_DATA_DIR = '.poolparty';
/** The example the banner offers as the first swap. */
const FIRST_SWAP_EXAMPLE = 'quickstart';

/**
 * The repository the service runs from, when it does (its examples are there): the folder to run
 * the first-swap command and save the snippet in, since `@poolparty/sdk` resolves only inside it.
 */
function repositoryRoot(): string | null {
  const root = resolve(SERVER_PACKAGE_DIR, '../..');
  return existsSync(join(root, 'examples', `${FIRST_SWAP_EXAMPLE}.ts`)) ? root : null;
}

export function startupBanner(service: RunningService, root = repositoryRoot()): string {
  const url = service.url ?? '(not listening)';
  const { settings } = service.ctx;
  const store = settings.databaseUrl === null ? `PGlite in ${settings.dataDir}/db` : 'PostgreSQL';
  const lines = [
    `PoolParty ${settings.environment} ${ROLE_NAMES[settings.role]} listening on ${url}`,
    ...(settings.role === 'worker' ? [] : [webAppLine(service, url), `  API docs:  ${url}/docs`]),
    `  store:     ${store}`,
    `  ledger:    ${describeLedger(settings)}`,
    // The project brings its own Node (the `node` dev dependency); naming it shows which one runs.
    `  runtime:   Node.js ${process.version}`,
  ];
  const notice = service.webAppKey.notice;
  if (notice !== null && settings.role !== 'worker') lines.push('', `! ${notice}`);
  const devnet = service.devnet;
  // A worker serves only health and metrics: the first-call guide belongs to the API.
  if (devnet === null || settings.role === 'worker') return lines.join('\n');
  return [
    ...lines,
    '',
    ...developerKeyLines(devnet.apiKey, service.developerKeyWorks, url),
    ...partyLines(devnet, url, join(settings.dataDir, DEVNET_FILE)),
    ...firstSwapLines(url, settings.dataDir, root),
    '',
    'Try it:',
    `  curl -H 'X-API-Key: ${devnet.apiKey}' '${url}/v1/quotes?from=Amulet&to=USDCx&amount=100&poolId=${devnet.pools[0]?.poolId ?? ''}'`,
    ...snippetLines(devnet, url, settings.dataDir, root),
  ].join('\n');
}

/** Whose key the pages use: the service's own is no developer's to revoke. */
function webAppLine(service: RunningService, url: string): string {
  const { source } = service.webAppKey;
  const whose =
    source === 'service'
      ? " (its own key, listed among no developer's keys)"
      : source === 'configured'
        ? ' (the key POOLPARTY_APP_API_KEY names)'
        : ' (no key: set POOLPARTY_APP_API_KEY)';
  return `  web app:   ${url}/${whose}`;
}

/** The developer key, or, once the developer revoked it, that it is revoked and what to do. */
function developerKeyLines(key: string, works: boolean, url: string): string[] {
  if (works) return [`Developer API key (devnet): ${key}`];
  return [
    `Developer API key (devnet): ${key.slice(0, 16)}… was revoked; the examples and the curl line below need a working key.`,
    `  Fix: create one at ${url}/developer and pass it as POOLPARTY_API_KEY (the web pages keep working: they use their own key).`,
  ];
}

/** The seeded parties, each with what it is for; the pools' own parties are in the file. */
function partyLines(devnet: DevnetWelcome, url: string, devnetFile: string): string[] {
  const [swapper, ...others] = devnet.users;
  return [
    `Devnet parties (their keys are in ${devnetFile}):`,
    `  developer  ${devnet.developer.partyId}`,
    '             owns the developer key above and the fees its swaps earn; to sign in at',
    `             ${url}/developer, paste devnet.json's "developer" entry into "Import a devnet party"`,
    ...(swapper
      ? [
          `  user       ${swapper.partyId}`,
          '             a funded wallet: the examples and the SDK snippet below swap as this party',
        ]
      : []),
    ...others.flatMap((user) => [`  user       ${user.partyId}`, '             a funded wallet']),
    `Pools: ${devnet.pools.map((pool) => pool.poolId).join(', ')} (their swap and LP parties: devnet.json)`,
  ];
}

/**
 * The first swap as one command to paste, with the address and data folder spelt out whenever
 * they are not the examples' defaults, so it works as printed from another terminal.
 */
function firstSwapLines(url: string, dataDir: string, root: string | null): string[] {
  if (root === null) return [];
  const settings = [
    ...(url === EXAMPLES_DEFAULT_URL ? [] : [`POOLPARTY_URL=${url}`]),
    ...(resolve(dataDir) === resolve(root, EXAMPLES_DEFAULT_DATA_DIR)
      ? []
      : [`POOLPARTY_DATA_DIR=${resolve(dataDir)}`]),
  ];
  return [
    '',
    `First swap (in another terminal, in ${root}):`,
    `  ${[...settings, `npm run example:${FIRST_SWAP_EXAMPLE}`].join(' ')}`,
  ];
}

/** A whole swap to paste: the seeded user's key from devnet.json signs as its wallet would. */
function snippetLines(
  devnet: DevnetWelcome,
  url: string,
  dataDir: string,
  root: string | null,
): string[] {
  if (devnet.users.length === 0) return [];
  const poolId = devnet.pools[0]?.poolId ?? '';
  const where = root === null ? 'a project with @poolparty/sdk installed' : root;
  return [
    '',
    `With the SDK (save as swap.mjs in ${where}, run \`node swap.mjs\`):`,
    "  import { readFileSync } from 'node:fs';",
    "  import { PoolParty } from '@poolparty/sdk';",
    "  import { Devnet } from '@poolparty/sdk/devnet';",
    `  const baseUrl = '${url}';`,
    `  const { users: [alice] } = JSON.parse(readFileSync('${resolve(dataDir, DEVNET_FILE)}', 'utf8'));`,
    '  const wallet = await new Devnet(baseUrl).wallet(alice.partyId, alice.privateKey);',
    '  let walletToken;',
    `  const pp = new PoolParty({ apiKey: '${devnet.apiKey}', environment: 'devnet', baseUrl, walletToken: () => walletToken });`,
    '  ({ token: walletToken } = await wallet.authenticate(pp));',
    `  const swap = await pp.swaps.create({ fromToken: 'Amulet', toToken: 'USDCx', amount: '100', poolId: '${poolId}' });`,
    '  await wallet.deposit(swap);',
    '  const { actualOutput } = await swap.wait();',
    "  console.log('swapped', swap.expectedAmount, 'Amulet for', actualOutput, 'USDCx');",
  ];
}

/** Which ledger, and on a participant as whom and how authenticated (never the secret). */
function describeLedger(settings: Settings): string {
  if (settings.ledger === 'local') return 'local (embedded devnet ledger)';
  const auth = cantonAuthOf(settings);
  const how = 'error' in auth ? auth.error : describeCantonAuth(auth);
  // The keys file is named, never its keys.
  const keys =
    settings.cantonPartyKeysFile === null
      ? ''
      : `, signing for the parties in ${settings.cantonPartyKeysFile}`;
  return `canton at ${settings.cantonLedgerApiUrl ?? '?'} as user ${settings.cantonUserId ?? '?'}, ${how}${keys}`;
}
