/**
 * What `poolparty serve` prints when it is up: where it listens and, on devnet, everything needed
 * to make a first call — the developer key, the seeded parties and an SDK snippet to paste.
 */
import { cantonAuthOf, describeCantonAuth } from './canton-options.js';
import type { Settings } from './config.js';
import type { RunningService } from './service.js';

const ROLE_NAMES = {
  all: 'service',
  api: 'API',
  worker: 'settlement worker',
} as const;

export function startupBanner(service: RunningService): string {
  const url = service.url ?? '(not listening)';
  const { settings } = service.ctx;
  const store = settings.databaseUrl === null ? `PGlite in ${settings.dataDir}/db` : 'PostgreSQL';
  const lines = [
    `PoolParty ${settings.environment} ${ROLE_NAMES[settings.role]} listening on ${url}`,
    ...(settings.role === 'worker' ? [] : [`  web app:   ${url}/`, `  API docs:  ${url}/docs`]),
    `  store:     ${store}`,
    `  ledger:    ${describeLedger(settings)}`,
    // The project brings its own Node (the `node` dev dependency); naming it shows which one runs.
    `  runtime:   Node.js ${process.version}`,
  ];
  const devnet = service.devnet;
  // A worker serves only health and metrics: the first-call guide belongs to the API.
  if (devnet === null || settings.role === 'worker') return lines.join('\n');
  const alice = devnet.users[0];
  lines.push(
    '',
    `Developer API key (devnet): ${devnet.apiKey}`,
    `Seeded parties (keys in ${settings.dataDir}/devnet.json):`,
    ...devnet.users.map((user) => `  ${user.partyId}`),
    `Pools: ${devnet.pools.map((pool) => pool.poolId).join(', ')}`,
    '',
    'Try it:',
    `  curl -H 'X-API-Key: ${devnet.apiKey}' '${url}/v1/quotes?from=Amulet&to=USDCx&amount=100&poolId=${devnet.pools[0]?.poolId ?? ''}'`,
  );
  const poolId = devnet.pools[0]?.poolId ?? '';
  // A whole swap to paste: the seeded user's key from devnet.json signs as its wallet would.
  if (alice)
    lines.push(
      '',
      'With the SDK (save as swap.mjs in this folder, run `node swap.mjs`; or `npm run example:quickstart`):',
      "  import { readFileSync } from 'node:fs';",
      "  import { PoolParty } from '@poolparty/sdk';",
      "  import { Devnet } from '@poolparty/sdk/devnet';",
      `  const baseUrl = '${url}';`,
      `  const { users: [alice] } = JSON.parse(readFileSync('${settings.dataDir}/devnet.json', 'utf8'));`,
      '  const wallet = await new Devnet(baseUrl).wallet(alice.partyId, alice.privateKey);',
      '  let walletToken;',
      `  const pp = new PoolParty({ apiKey: '${devnet.apiKey}', environment: 'devnet', baseUrl, walletToken: () => walletToken });`,
      '  ({ token: walletToken } = await wallet.authenticate(pp));',
      `  const swap = await pp.swaps.create({ fromToken: 'Amulet', toToken: 'USDCx', amount: '100', poolId: '${poolId}' });`,
      '  await wallet.deposit(swap);',
      '  const { actualOutput } = await swap.wait();',
      "  console.log('swapped', swap.expectedAmount, 'Amulet for', actualOutput, 'USDCx');",
    );
  return lines.join('\n');
}

/** Which ledger, and on a participant as whom and how authenticated (never the secret). */
function describeLedger(settings: Settings): string {
  if (settings.ledger === 'local') return 'local (embedded devnet ledger)';
  const auth = cantonAuthOf(settings);
  const how = 'error' in auth ? auth.error : describeCantonAuth(auth);
  return `canton at ${settings.cantonLedgerApiUrl ?? '?'} as user ${settings.cantonUserId ?? '?'}, ${how}`;
}
