/**
 * What `poolparty serve` prints when it is up: where it listens and, on devnet, everything needed
 * to make a first call — the developer key, the seeded parties and an SDK snippet to paste.
 */
import type { RunningService } from './service.js';

export function startupBanner(service: RunningService): string {
  const url = service.url ?? '(not listening)';
  const { settings } = service.ctx;
  const lines = [
    `PoolParty ${settings.environment} service listening on ${url}`,
    `  API docs:  ${url}/docs`,
    `  store:     ${settings.databaseUrl === null ? `PGlite in ${settings.dataDir}/db` : 'PostgreSQL'}`,
    `  ledger:    ${settings.ledger}`,
  ];
  const devnet = service.devnet;
  if (devnet === null) return lines.join('\n');
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
    '',
    'With the SDK:',
    "  import { PoolParty } from '@poolparty/sdk';",
    `  const pp = new PoolParty({ apiKey: '${devnet.apiKey}', environment: 'devnet', baseUrl: '${url}' });`,
    `  const quote = await pp.quotes.get({ from: 'Amulet', to: 'USDCx', amount: '100', poolId: '${devnet.pools[0]?.poolId ?? ''}' });`,
  );
  if (alice)
    lines.push(`  // sign pp.walletAuth.requestChallenge('${alice.partyId}') with the party's key`);
  return lines.join('\n');
}
