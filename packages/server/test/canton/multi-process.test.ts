/**
 * The devnet as separate processes on PostgreSQL, the way an operator runs a deployment:
 * `poolparty devnet-ledger` (the seeded ledger at Canton's paths), one `POOLPARTY_ROLE=api` and
 * two `POOLPARTY_ROLE=worker` processes, all with `LEDGER=canton` against it, and the seeded pools
 * registered while they run with `poolparty admin pools import-devnet`. Wallets swap through @poolparty/sdk in both
 * directions — Amulet deposits settle in one step (the swap party pre-approves Amulet), USDCx
 * deposits arrive as offers the service accepts, and parties without pre-approval accept their
 * payout offers — while one worker is SIGKILLed mid-run. In the end every swap completed, each
 * intent was paid exactly once and refunded never, every deposit belongs to a completed swap, and
 * each pool's books equal its swap party's holdings on the ledger.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type LedgerPort, type LedgerUpdate, REASON_META_KEY } from '@poolparty/ledger';
import { afterAll, describe, expect, it } from 'vitest';
import { Devnet, type DevnetWallet } from '../../../sdk/src/devnet/index.js';
import { PoolParty } from '../../../sdk/src/index.js';
import { readLedgerLocation } from '../../src/config.js';
import type { DevnetWelcome } from '../../src/devnet-bootstrap.js';
import { type LedgerConnection, openLedgerConnection } from '../../src/ledger-connection.js';
import {
  type Database,
  listApiKeys,
  openPostgres,
  setApiKeyRateLimits,
} from '../../src/store/index.js';
import { runCli } from '../support/cli.js';
import { issueApiKey } from '../support/devnet-ledger.js';
import { waitFor } from '../support/engine.js';
import {
  createSchema,
  dropSchema,
  POSTGRES_URL,
  postgresSkipReason,
  schemaUrl,
} from '../support/postgres.js';
import { booksAndHoldings } from '../support/scale-out.js';

const CLI = join(import.meta.dirname, '../../src/cli.ts');
const SWAPS = 200;
/** Wallet sign-ins are limited per client address (30 a minute): the parties stay below that. */
const PARTIES = 10;
/** Of the parties, these many pre-approve nothing: their payouts are offers they accept. */
const WITHOUT_PREAPPROVAL = 3;
/** The worker is killed once this many swaps completed. */
const KILL_AFTER = 40;
const POOL_ID = 'amulet-usdcx';
const AUTH_SECRET = 'unsafe';
const STARTUP_WAIT_MS = 60_000;
const SWAP_WAIT_MS = 120_000;

const skipReason = await postgresSkipReason('multi-process Canton suite');

interface Proc {
  readonly child: ChildProcess;
  readonly url: string;
  readonly output: () => string;
  readonly exited: Promise<number | null>;
}

/** `poolparty <args>` running until stopped; resolved once its banner names its URL. */
function start(args: readonly string[], env: Record<string, string>, banner: RegExp) {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], {
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  return new Promise<Proc>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no banner:\n${output}`)), STARTUP_WAIT_MS);
    void exited.then((code) => reject(new Error(`exited with ${code}:\n${output}`)));
    // The banner is on stderr when stdout carries JSON logs, else on stdout: read both.
    const read = (chunk: Buffer) => {
      output += chunk;
      const url = banner.exec(output)?.[1];
      if (url) {
        clearTimeout(timer);
        resolve({ child, url, exited, output: () => output });
      }
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', read);
  });
}

/** The swap party's updates from the ledger's start to its end now, through the adapter. */
async function updatesOf(ledger: LedgerPort, party: string): Promise<LedgerUpdate[]> {
  const end = await ledger.ledgerEnd();
  const controller = new AbortController();
  const updates: LedgerUpdate[] = [];
  for await (const update of ledger.updates(0, { parties: [party], signal: controller.signal })) {
    updates.push(update);
    if (update.offset >= end) break;
  }
  controller.abort();
  return updates;
}

describe.skipIf(skipReason !== null)('api and workers as processes on a Canton ledger', () => {
  const root = mkdtempSync(join(tmpdir(), 'pp-canton-processes-'));
  const running: Proc[] = [];
  let schema: string | null = null;
  let db: Database | null = null;
  let connection: LedgerConnection | null = null;

  afterAll(async () => {
    for (const proc of running) proc.child.kill('SIGKILL');
    await connection?.close();
    await db?.close();
    if (schema) await dropSchema(schema);
    rmSync(root, { recursive: true, force: true });
  });

  it('settles every swap once through a worker SIGKILLed mid-run; the books equal the ledger', async () => {
    const began = Date.now();
    const ledgerDir = join(root, 'devnet-ledger');
    const devnetLedger = await start(
      ['devnet-ledger', '--port', '0', '--data-dir', ledgerDir, '--auth-secret', AUTH_SECRET],
      {},
      /devnet ledger listening on (http:\/\/\S+)/,
    );
    running.push(devnetLedger);
    const welcome = JSON.parse(
      readFileSync(join(ledgerDir, 'devnet.json'), 'utf8'),
    ) as DevnetWelcome;
    const pool = welcome.pools.find((p) => p.poolId === POOL_ID);
    if (!pool) throw new Error(`no ${POOL_ID} in the seed`);
    // The registries the banner names, one per admin besides Canton Coin's (the scan proxy's).
    const registries = [...devnetLedger.output().matchAll(/^ {4}of (\S+): (\S+)$/gm)]
      .filter(([, admin]) => admin !== pool.tokenA.admin)
      .map(([, admin, url]) => `${admin}=${url}`);
    const ledgerEnv = {
      LEDGER: 'canton',
      CANTON_LEDGER_API_URL: devnetLedger.url,
      CANTON_SCAN_PROXY_URL: `${devnetLedger.url}/api/validator`,
      CANTON_REGISTRY_URL: `${devnetLedger.url}/api/validator/v0/scan-proxy`,
      CANTON_REGISTRY_URLS: registries.join(','),
      CANTON_USER_ID: 'poolparty',
      CANTON_AUTH_SECRET: AUTH_SECRET,
      CANTON_AUTH_AUDIENCE: 'https://canton.network.global',
    };

    // The store: created, with a developer key.
    schema = await createSchema('pp_canton_procs');
    const storeEnv = { DATABASE_URL: schemaUrl(schema) };
    expect((await runCli(['migrate', '--create'], storeEnv)).code).toBe(0);
    db = openPostgres(POSTGRES_URL, { schema });
    const apiKey = await issueApiKey(db, welcome.developer.partyId, new Date());
    // An integrator with this much traffic has its key's limits raised by the operator.
    const [key] = await listApiKeys(db, welcome.developer.partyId);
    const raised = await setApiKeyRateLimits(db, key?.keyId ?? '', {
      readsPerMin: 100_000,
      swapsPerMin: 10_000,
    });
    expect(raised?.swapsPerMin).toBe(10_000);

    const serve = (role: 'api' | 'worker') =>
      start(
        ['serve', '--port', '0'],
        {
          ...ledgerEnv,
          ...storeEnv,
          POOLPARTY_ROLE: role,
          POOLPARTY_DATA_DIR: join(root, `${role}-${running.length}`),
        },
        /listening on (http:\/\/\S+)/,
      );
    const [api, victim, survivor] = await Promise.all([
      serve('api'),
      serve('worker'),
      serve('worker'),
    ]);
    running.push(api, victim, survivor);

    // The seeded pools, added while the deployment runs: the workers follow their swap parties and
    // the API quotes them as soon as the audit rows announce them.
    const imported = await runCli(['admin', 'pools', 'import-devnet'], {
      ...storeEnv,
      ...ledgerEnv,
    });
    expect(imported.stderr).toBe('');
    expect(imported.stdout.split('\n').filter((line) => line.startsWith('added '))).toHaveLength(
      welcome.pools.length,
    );

    await waitFor(async () => {
      const answer = await fetch(`${api.url}/v1/pools`, { headers: { 'X-API-Key': apiKey } });
      const body = (await answer.json()) as { pools?: { poolId: string }[] };
      return body.pools?.length === welcome.pools.length || null;
    }, 'the API to list the pools added');

    // Wallets: funded by the devnet ledger's faucet; some pre-approve nothing.
    const devnet = new Devnet({ baseUrl: devnetLedger.url });
    const wallets: { wallet: DevnetWallet; preapproved: boolean; pp: PoolParty }[] = [];
    for (let index = 0; index < PARTIES; index += 1) {
      const preapproved = index >= WITHOUT_PREAPPROVAL;
      const wallet = await devnet.createWallet({
        partyHint: `procs-${index}`,
        preapproval: preapproved,
      });
      await wallet.fund('Amulet', '2000');
      await wallet.fund('USDCx', '200', pool.tokenB.admin);
      let walletToken: string | undefined;
      const pp = new PoolParty({
        apiKey,
        environment: 'devnet',
        baseUrl: api.url,
        walletToken: () => walletToken,
      });
      ({ token: walletToken } = await wallet.authenticate(pp));
      wallets.push({ wallet, preapproved, pp });
    }

    // The swaps: each party in turn, both directions, all parties at once.
    const intents: string[] = [];
    let completed = 0;
    let payoutOffersAccepted = 0;
    let killed: Promise<number | null> | null = null;
    const swapsOf = async ({ wallet, preapproved, pp }: (typeof wallets)[number], n: number) => {
      for (let k = 0; k < n; k += 1) {
        const amuletIn = k % 2 === 0;
        const swap = await pp.swaps.create({
          fromToken: amuletIn ? 'Amulet' : 'USDCx',
          toToken: amuletIn ? 'USDCx' : 'Amulet',
          amount: amuletIn ? '20' : '3',
          poolId: POOL_ID,
        });
        intents.push(swap.intentId);
        const accepted: Promise<unknown>[] = [];
        if (!preapproved) {
          swap.on('payout_offered', (status) => {
            const offerId = status.payout?.offerId;
            if (offerId) {
              payoutOffersAccepted += 1;
              accepted.push(wallet.acceptOffer(offerId));
            }
          });
        }
        await wallet.deposit(swap);
        const result = await swap.wait({ timeout: SWAP_WAIT_MS });
        await Promise.all(accepted);
        expect(result.status).toBe('completed');
        completed += 1;
        if (completed === KILL_AFTER) {
          victim.child.kill('SIGKILL');
          killed = victim.exited;
        }
      }
    };
    const perParty = SWAPS / PARTIES;
    await Promise.all(wallets.map((entry) => swapsOf(entry, perParty)));
    expect(await killed).toBeNull();
    const seconds = (Date.now() - began) / 1000;

    // Every intent paid exactly once, none refunded; every deposit belongs to a completed swap.
    const location = readLedgerLocation(ledgerEnv);
    if (!location.ok) throw new Error(location.errors.join('\n'));
    connection = await openLedgerConnection({ ...location.settings, dataDir: root });
    const reasons = new Map<string, number>();
    for (const update of await updatesOf(connection.ledger, pool.swapParty)) {
      for (const event of update.events) {
        const reason = event.kind === 'transfer' ? event.meta[REASON_META_KEY] : undefined;
        if (reason !== undefined) reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
      }
    }
    expect(new Set(intents).size).toBe(SWAPS);
    for (const intentId of intents) {
      expect(reasons.get(`payout:${intentId}`)).toBe(1);
      expect(reasons.has(`refund:${intentId}`)).toBe(false);
    }
    const deposits = await db.query<{ status: string; intent_status: string | null; n: number }>(
      `SELECT d.status, i.status AS intent_status, count(*)::int AS n
         FROM deposits d LEFT JOIN intents i ON i.intent_id = d.intent_id
         GROUP BY d.status, i.status`,
    );
    expect(deposits).toEqual([{ status: 'attributed', intent_status: 'completed', n: SWAPS }]);
    // USDCx deposits were offers the service accepted (the swap party pre-approves Amulet only);
    // the parties without pre-approval accepted each of their payouts.
    const twoStep = await db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM deposits WHERE offer_id IS NOT NULL',
    );
    expect(twoStep[0]?.n).toBe(SWAPS / 2);
    expect(payoutOffersAccepted).toBe(WITHOUT_PREAPPROVAL * (SWAPS / PARTIES));

    // The books of every pool equal its swap party's holdings.
    for (const { poolId } of welcome.pools) {
      const { books, holdings } = await booksAndHoldings(db, connection.ledger, poolId);
      expect(holdings).toEqual(books);
    }

    console.log(
      `multi-process on canton: ${SWAPS} swaps (${PARTIES} parties, ${WITHOUT_PREAPPROVAL} without pre-approval, a worker killed after ${KILL_AFTER}) in ${seconds.toFixed(1)} s`,
    );
    for (const proc of [api, survivor, devnetLedger]) proc.child.kill('SIGTERM');
    for (const proc of [api, survivor, devnetLedger]) expect(await proc.exited).toBe(0);
  }, 240_000);
});
