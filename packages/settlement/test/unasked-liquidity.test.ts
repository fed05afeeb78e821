/**
 * Deposits to a pool's LP party that nobody asked for (docs/spec/liquidity.md#unasked-deposits),
 * on the embedded store and on PostgreSQL: each goes back whole to its sender — an offer
 * rejected at no cost, a one-step transfer returned — and none stops settlement. Across all of
 * them every instrument's total over all parties is unchanged but for what transfers burned, the
 * books equal the swap party's holdings, and the LP party holds nothing.
 */
import type { Database } from '@poolparty/store';
import { postgresSkipReason } from '@poolparty/store/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { cancelLiquidityIntent } from '../src/liquidity-cancel.js';
import { EngineHarness, openTestDatabase, waitFor } from '../testing/engine.js';
import { openHarnessLiquidityIntent, waitForLiquidity } from '../testing/liquidity.js';
import { openPostgresHarness, type PostgresHarness } from '../testing/postgres-harness.js';
import { expectConserved, runUnaskedDeposits } from '../testing/unasked-deposits.js';

const POOL = 'amulet-usdcx';

/** A store to run the suite on, and a fresh harness in a schema of its own per test. */
interface StoreKind {
  readonly name: string;
  readonly skip: string | null;
  harness(): Promise<EngineHarness>;
  close(): Promise<void>;
}

function embedded(): StoreKind {
  let db: Database | null = null;
  let schemas = 0;
  const opened: EngineHarness[] = [];
  return {
    name: 'the embedded store',
    skip: null,
    async harness() {
      db ??= await openTestDatabase();
      schemas += 1;
      await db.exec(`CREATE SCHEMA unasked_${schemas}; SET search_path TO unasked_${schemas}`);
      const harness = await EngineHarness.createIn(db);
      opened.push(harness);
      return harness;
    },
    async close() {
      for (const harness of opened.splice(0)) await harness.close();
      await db?.close();
    },
  };
}

function postgres(skip: string | null): StoreKind {
  const opened: PostgresHarness[] = [];
  return {
    name: 'PostgreSQL',
    skip,
    async harness() {
      const postgres = await openPostgresHarness('pp_unasked');
      opened.push(postgres);
      return postgres.harness;
    },
    async close() {
      for (const postgres of opened.splice(0)) await postgres.close();
    },
  };
}

const stores = [embedded(), postgres(await postgresSkipReason('unasked liquidity deposits'))];

/** Books equal holdings, the LP party holds nothing, and no deposit is left open or flagged. */
async function settled(h: EngineHarness): Promise<void> {
  await h.caughtUp();
  await waitFor(async () => {
    const rows = await h.db.query<{ open: string }>(
      `SELECT count(*)::text AS open FROM liquidity_deposits WHERE status <> 'returned'
         AND status <> 'forwarded'`,
    );
    return rows[0]?.open === '0' || null;
  }, 'every unasked deposit to be returned');
  await h.caughtUp();
  await h.booksMatchLedger(POOL);
  const lp = h.pool(POOL).lpParty;
  for (const instrument of [h.amulet, h.usdcx, h.seed.instruments.cbtc]) {
    expect((await h.balance(lp, instrument)).toString()).toBe('0');
  }
  const flags = await h.db.query('SELECT kind FROM operator_flags');
  expect(flags).toEqual([]);
}

for (const store of stores) {
  describe.skipIf(store.skip !== null)(`unasked liquidity deposits on ${store.name}`, () => {
    afterAll(() => store.close());

    it('rejects a stray offer to the LP party, and the next swap completes', async () => {
      const h = await store.harness();
      await h.startEngine();
      const stranger = await h.newParty('stranger', [h.amulet], [[h.usdcx, '100']]);
      // The LP party pre-approves Amulet only: USDCx arrives as an offer, which is rejected.
      await h.depositLiquidity(stranger, h.usdcx, '1', null);
      const intent = await h.createIntent(h.alice, h.amulet, '100');
      await h.deposit(h.alice, h.amulet, intent.expectedAmount.toString(), {
        reference: intent.depositReference,
      });
      const done = await h.waitForStatus(intent.intentId, 'completed', 'failed');
      expect(done.status).toBe('completed');
      expect((await h.balance(stranger, h.usdcx)).toString()).toBe('100');
      await settled(h);
    });

    it('returns every kind of deposit nobody asked for, and conserves every instrument', async () => {
      const h = await store.harness();
      await h.startEngine();
      const outcome = await runUnaskedDeposits({
        db: h.db,
        ledger: h.ledger,
        poolId: POOL,
        instruments: { ...h.seed.instruments },
        developerParty: h.seed.developer.partyId,
        caughtUp: () => h.caughtUp(),
        advanceClock: (ms) => h.advanceClock(ms),
        now: () => h.clock.now(),
      });
      expectConserved(outcome);
    });

    it('never keeps a deposit under a cancelled intent, whichever of the two comes first', async () => {
      const h = await store.harness();
      await h.startEngine();
      const lp = await h.newParty(
        'race-lp',
        [h.amulet, h.usdcx],
        [
          [h.amulet, '100000'],
          [h.usdcx, '10000'],
        ],
      );
      const RACES = 24;
      const outcomes = { cancelled: 0, kept: 0 };
      for (let race = 0; race < RACES; race += 1) {
        const intent = await openHarnessLiquidityIntent(h, lp, { amountA: '100' });
        // The cancel lands at every point of the deposit's way: before it is sent, while it
        // commits, and before, during and after its intake.
        const cancelFirst = race % 3 === 0;
        const cancelling = () =>
          cancelLiquidityIntent(h.db, {
            liquidityIntentId: intent.liquidityIntentId,
            providerParty: lp.partyId,
            now: h.clock.now(),
          }).then(
            () => 'cancelled' as const,
            (error: { code?: string }) => {
              expect(error.code).toBe('liquidity_intent_not_cancellable');
              return 'refused' as const;
            },
          );
        const early = cancelFirst ? cancelling() : null;
        const deposit = h.depositLiquidity(
          lp,
          h.amulet,
          intent.expectedA.toString(),
          intent.depositReference,
        );
        if (!cancelFirst) await new Promise((resolve) => setTimeout(resolve, (race % 12) * 3));
        const cancel = early ?? cancelling();
        await deposit;
        if ((await cancel) === 'cancelled') {
          outcomes.cancelled += 1;
          continue;
        }
        outcomes.kept += 1;
        await h.depositLiquidity(lp, h.usdcx, intent.expectedB.toString(), intent.depositReference);
        await waitForLiquidity(h.db, intent.liquidityIntentId, 'completed');
      }
      await settled(h);
      // A cancelled intent kept nothing; every deposit it was sent is back with its sender.
      const kept = await h.db.query<{ n: string }>(
        `SELECT count(*)::text AS n FROM liquidity_deposits d
           JOIN liquidity_intents i USING (liquidity_intent_id)
          WHERE i.status = 'cancelled'`,
      );
      expect(kept[0]?.n).toBe('0');
      expect(outcomes.cancelled + outcomes.kept).toBe(RACES);
    });
  });
}
