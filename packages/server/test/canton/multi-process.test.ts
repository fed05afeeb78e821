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
import { type LedgerPort, type LedgerUpdate, REASON_META_KEY } from '@poolparty/ledger';
import { PoolParty } from '@poolparty/sdk';
import { Devnet, type DevnetWallet } from '@poolparty/sdk/devnet';
import { booksAndHoldings } from '@poolparty/settlement/testing';
import { POSTGRES_URL, postgresSkipReason } from '@poolparty/store/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { type Cluster, startCluster } from '../../chaos/cluster.js';

const SWAPS = 200;
/** Wallet sign-ins are limited per client address (30 a minute): the parties stay below that. */
const PARTIES = 10;
/** Of the parties, these many pre-approve nothing: their payouts are offers they accept. */
const WITHOUT_PREAPPROVAL = 3;
/** The worker is killed once this many swaps completed. */
const KILL_AFTER = 40;
const POOL_ID = 'amulet-usdcx';
const SWAP_WAIT_MS = 120_000;

const skipReason = await postgresSkipReason('multi-process Canton suite');

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
  let cluster: Cluster | null = null;

  afterAll(async () => {
    await cluster?.dispose();
  });

  it('settles every swap once through a worker SIGKILLed mid-run; the books equal the ledger', async () => {
    const began = Date.now();
    // The devnet ledger server, the api and two workers, the pools imported while they run.
    cluster = await startCluster({
      workers: 2,
      postgresUrl: POSTGRES_URL,
      schemaPrefix: 'pp_canton_procs',
    });
    const { welcome, api, devnetLedger, apiKey, db } = cluster;
    const [victim, survivor] = cluster.workers;
    if (!victim || !survivor) throw new Error('two workers expected');
    const pool = welcome.pools.find((p) => p.poolId === POOL_ID);
    if (!pool) throw new Error(`no ${POOL_ID} in the seed`);

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
    const connection = await cluster.openLedger();
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
