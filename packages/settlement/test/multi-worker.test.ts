/**
 * Scale-out (docs/spec/running.md#roles-and-scale-out): two workers on one PostgreSQL share the
 * settlement of one pool.
 *
 * The two engines run in this test process, each with its own connection pool and its own
 * advisory-lock session, so their row locks and the ingest lock really contend in PostgreSQL.
 * They share one in-memory local ledger: the local devnet ledger is single-process by design (a
 * journal file one process owns), so two processes cannot share it; a deployment with several
 * workers uses a ledger every process reaches over the network, which the ledger port abstracts.
 */
import { Amount, constantProductOutput } from '@poolparty/core';
import { type LocalLedger, openLocalLedger, seedDevnet } from '@poolparty/ledger';
import {
  advisoryLockLeadership,
  type Database,
  getPool,
  type IntentRecord,
} from '@poolparty/store';
import {
  type FreshSchema,
  openFreshSchema,
  POSTGRES_URL,
  postgresSkipReason,
  terminateIngestLockHolder,
} from '@poolparty/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LedgerClock } from '../src/clock.js';
import { type Engine, startEngine } from '../src/index.js';
import { TEST_ENGINE_SETTINGS, waitFor } from '../testing/engine.js';
import { balanceOf, booksAndHoldings } from '../testing/holdings.js';
import {
  allUpdates,
  createPricedIntent,
  depositFor,
  fundedParties,
  registerSeed,
  transfersByReason,
} from '../testing/scale-out.js';

const SWAPS = 200;
const DEPOSIT = '50';
const POOL_ID = 'amulet-usdcx';
const SETTLE_WAIT_MS = 40_000;

const skipReason = await postgresSkipReason('multi-worker suite');

describe.skipIf(skipReason !== null)('two workers on one PostgreSQL, one pool', () => {
  let fresh: FreshSchema | null = null;
  let schema: string;
  let stores: readonly Database[] = [];
  let engines: Engine[] = [];
  let ledger: LocalLedger;
  let clock: LedgerClock;
  let seed: Awaited<ReturnType<typeof seedDevnet>>;
  let swapsSoFar: IntentRecord[] = [];

  beforeAll(async () => {
    // Two workers' pools on one schema, migrated through the first.
    fresh = await openFreshSchema('pp_workers', { processes: 2 });
    ({ schema, databases: stores } = fresh);
    const [first] = stores as [Database];
    ledger = await openLocalLedger({});
    seed = await seedDevnet(ledger);
    clock = await LedgerClock.follow(ledger);
    await registerSeed(first, seed, clock.now());
    engines = await Promise.all(
      stores.map((db) =>
        startEngine({
          db,
          ledger,
          clock,
          quoter: { invalidate: () => {} },
          settings: { ...TEST_ENGINE_SETTINGS, idleIntervalMs: 20 },
          leadership: advisoryLockLeadership({ url: POSTGRES_URL, schema, reconnectDelayMs: 50 }),
        }),
      ),
    );
  }, 60_000);

  afterAll(async () => {
    await Promise.all(engines.map((engine) => engine.stop()));
    await ledger?.close();
    await fresh?.close();
  });

  const store = () => stores[0] as Database;

  async function swapMany(count: number): Promise<IntentRecord[]> {
    const { amulet, usdcx } = seed.instruments;
    const parties = await fundedParties(ledger, count, [amulet, usdcx], amulet, DEPOSIT);
    const intents: IntentRecord[] = [];
    for (const party of parties) {
      intents.push(
        await createPricedIntent(store(), ledger, {
          poolId: POOL_ID,
          party,
          input: amulet,
          amount: DEPOSIT,
          developerParty: seed.developer.partyId,
          now: clock.now(),
        }),
      );
    }
    for (const intent of intents) await depositFor(ledger, intent, amulet);
    swapsSoFar = [...swapsSoFar, ...intents];
    await waitFor(
      async () => {
        const rows = await store().query<{ n: string }>(
          `SELECT count(*) AS n FROM intents WHERE status = 'completed'`,
        );
        return Number(rows[0]?.n) === swapsSoFar.length;
      },
      `${swapsSoFar.length} swaps to complete`,
      SETTLE_WAIT_MS,
    );
    return intents;
  }

  async function expectEachPaidOnce(intents: readonly IntentRecord[]): Promise<void> {
    const byReason = transfersByReason(await allUpdates(ledger));
    const { usdcx } = seed.instruments;
    for (const intent of intents) {
      const done = await store().query<{ actual_output: string }>(
        'SELECT actual_output FROM intents WHERE intent_id = $1',
        [intent.intentId],
      );
      expect(byReason.get(`payout:${intent.intentId}`)).toBe(1);
      expect(byReason.has(`refund:${intent.intentId}`)).toBe(false);
      expect((await balanceOf(ledger, intent.walletParty, usdcx)).toString()).toBe(
        Amount.parse(done[0]?.actual_output).toString(),
      );
    }
    const payouts = [...byReason.keys()].filter((reason) => reason.startsWith('payout:'));
    expect(payouts).toHaveLength(swapsSoFar.length);
  }

  it(`settles ${SWAPS} swaps: each completes and is paid once, and the reserves add up exactly`, async () => {
    const intents = await swapMany(SWAPS);

    expect(engines.filter((engine) => engine.leading)).toHaveLength(1);
    const statuses = await store().query(
      'SELECT status, count(*)::int AS n FROM intents GROUP BY 1',
    );
    expect(statuses).toEqual([{ status: 'completed', n: SWAPS }]);
    const repeated = await store().query(
      `SELECT intent_id, status FROM intent_events GROUP BY 1, 2 HAVING count(*) > 1`,
    );
    expect(repeated).toEqual([]);
    await expectEachPaidOnce(intents);

    // Replayed one at a time in execution order, the constant-product trades give exactly the
    // outputs paid and the reserves booked: no execution ever priced on stale reserves.
    const events = await store().query<{ intent_id: string; output_amount: string }>(
      `SELECT intent_id, output_amount FROM fee_events WHERE pool_id = $1 ORDER BY id`,
      [POOL_ID],
    );
    const byId = new Map(intents.map((intent) => [intent.intentId, intent]));
    let x = Amount.parse('1000000');
    let y = Amount.parse('145000');
    let fees = Amount.ZERO;
    for (const event of events) {
      const intent = byId.get(event.intent_id);
      if (!intent) throw new Error(`fee event of an unknown intent ${event.intent_id}`);
      const priced = intent.inputAmountAfterPoolFee;
      const output = constantProductOutput({ input: x, output: y }, priced);
      expect(Amount.parse(event.output_amount).toString()).toBe(output.toString());
      x = x.add(priced).add(intent.lpFeeAmount);
      y = y.sub(output);
      fees = fees.add(intent.networkFeeAmount).add(intent.platformFeeAmount);
    }
    expect(events).toHaveLength(SWAPS);
    const pool = await getPool(store(), POOL_ID);
    expect(pool?.accounting).toMatchObject({
      reserveA: x,
      reserveB: y,
      feesA: fees,
      inflightA: Amount.ZERO,
      outgoingA: Amount.ZERO,
      outgoingB: Amount.ZERO,
    });
    const { books, holdings } = await booksAndHoldings(store(), ledger, POOL_ID);
    expect(holdings).toEqual(books);

    const leader = engines.find((engine) => engine.leading);
    const follower = engines.find((engine) => !engine.leading);
    const report = await leader?.reconcileNow();
    expect(report?.runs.map((run) => [run.poolId, run.ok]).sort()).toEqual([
      ['amulet-cbtc', true],
      ['amulet-usdcx', true],
      ['amulet-usdcx-bridge', true],
    ]);
    expect(await follower?.reconcileNow()).toMatchObject({ runs: [], skipped: 'not_leading' });
  }, 60_000);

  it('hands ingestion to the other worker when the leader loses its lock session', async () => {
    const leader = engines.find((engine) => engine.leading);
    const follower = engines.find((engine) => !engine.leading);
    if (!leader || !follower) throw new Error('expected one leader and one follower');

    expect(await terminateIngestLockHolder(schema)).toBe(1);

    await waitFor(async () => follower.leading && !leader.leading, 'the follower to take the lead');
    const more = await swapMany(10);
    expect(engines.filter((engine) => engine.leading)).toEqual([follower]);
    await expectEachPaidOnce(more);
    const deposits = await store().query(
      `SELECT status, count(*)::int AS n FROM deposits GROUP BY 1`,
    );
    expect(deposits).toEqual([{ status: 'attributed', n: SWAPS + 10 }]);
    const { books, holdings } = await booksAndHoldings(store(), ledger, POOL_ID);
    expect(holdings).toEqual(books);
  }, 60_000);
});
