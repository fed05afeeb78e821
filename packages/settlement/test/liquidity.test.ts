/**
 * Liquidity through the engine on the seeded local ledger: intents completed with a mint (one
 * side one-step, the other an offer the service accepts), the over-supplied side's excess
 * returned, refunds when the minimum fails or the intent expires with one side in, withdrawals
 * that pay both sides or burn nothing — and after each, the books equal the swap party's
 * holdings and the LP party holds nothing of anyone's.
 */
import { Amount, type Instrument, MINIMUM_LOCKED_UNITS, planMint } from '@poolparty/core';
import { LedgerError } from '@poolparty/ledger';
import { getPool, getPoolAccounting, getPosition, getWithdrawal } from '@poolparty/store';
import { describe, expect, it } from 'vitest';
import { recordWithdrawal } from '../src/withdrawals.js';
import {
  type EngineHarness,
  type Party,
  SEEDED_POOL_ID,
  useEngineWorld,
  waitFor,
} from '../testing/engine.js';
import { ledgerWith } from '../testing/faults.js';
import {
  openHarnessLiquidityIntent,
  waitForLiquidity,
  withdrawWholePosition,
} from '../testing/liquidity.js';
import { SCALE_OUT_API_KEY_ID } from '../testing/scale-out.js';

const world = useEngineWorld();

async function provider(h: EngineHarness, hint: string): Promise<Party> {
  return h.newParty(
    hint,
    [h.amulet, h.usdcx],
    [
      [h.amulet, '100000'],
      [h.usdcx, '10000'],
    ],
  );
}

async function poolLiquidity(h: EngineHarness) {
  const books = await getPoolAccounting(h.db, SEEDED_POOL_ID);
  const pool = await getPool(h.db, SEEDED_POOL_ID);
  if (books === null || pool === null) throw new Error('no pool');
  return {
    reserveA: books.reserveA,
    reserveB: books.reserveB,
    supply: pool.lpSupply,
  };
}

/** The pool's LP party holds nothing: every deposit was forwarded or returned. */
async function lpPartyEmpty(h: EngineHarness): Promise<void> {
  const lp = h.pool(SEEDED_POOL_ID).lpParty;
  for (const instrument of [h.amulet, h.usdcx] as Instrument[]) {
    expect((await h.balance(lp, instrument)).toString()).toBe('0');
  }
}

/**
 * Books equal holdings (swap party), the LP party holds nothing, the reconciler agrees for both
 * parties, and the supply is every position's units plus the locked ones.
 */
async function settledBooks(h: EngineHarness): Promise<void> {
  await h.caughtUp();
  await h.booksMatchLedger(SEEDED_POOL_ID);
  await lpPartyEmpty(h);
  const report = await h.engine?.reconcileNow();
  expect(report?.runs.find((run) => run.poolId === SEEDED_POOL_ID)?.ok).toBe(true);
  const rows = await h.db.query<{ units: string }>(
    'SELECT coalesce(sum(units), 0)::text AS units FROM liquidity_positions WHERE pool_id = $1',
    [SEEDED_POOL_ID],
  );
  const held = Amount.parse(rows[0]?.units ?? '0');
  expect((await poolLiquidity(h)).supply).toEqual(held.add(MINIMUM_LOCKED_UNITS));
}

describe('liquidity', () => {
  it('mints the planned units for both sides, one one-step and one an offer, in either order', async () => {
    const h = await world.harness();
    await h.startEngine();
    const lp = await provider(h, 'lp-one');
    const before = await poolLiquidity(h);
    const intent = await openHarnessLiquidityIntent(h, lp, { amountA: '1000' });
    // USDCx first: the LP party pre-approves Amulet only, so this one is an offer.
    await h.depositLiquidity(lp, h.usdcx, intent.expectedB.toString(), intent.depositReference);
    await waitForLiquidity(h.db, intent.liquidityIntentId, 'partial');
    await h.depositLiquidity(lp, h.amulet, intent.expectedA.toString(), intent.depositReference);
    const done = await waitForLiquidity(
      h.db,
      intent.liquidityIntentId,
      'completed',
      'refunding',
      'refunded',
    );
    expect(done.status).toBe('completed');
    const plan = planMint(before, intent.expectedA, intent.expectedB);
    if (plan.kind !== 'mint') throw new Error('refused');
    expect(done.completion?.mintedUnits).toEqual(plan.minted);
    const position = await getPosition(h.db, SEEDED_POOL_ID, lp.partyId);
    expect(position?.units).toEqual(plan.minted);
    expect((await poolLiquidity(h)).supply).toEqual(before.supply.add(plan.minted));
    await settledBooks(h);
  });

  it('returns the excess of an over-supplied side and keeps the rest', async () => {
    const h = await world.harness();
    await h.startEngine();
    const lp = await provider(h, 'lp-over');
    const intent = await openHarnessLiquidityIntent(h, lp, { amountA: '500' });
    const sentB = intent.expectedB.mulDiv(3n, 1n, 'up');
    const startB = await h.balance(lp, h.usdcx);
    await h.depositLiquidity(lp, h.amulet, intent.expectedA.toString(), intent.depositReference);
    await h.depositLiquidity(lp, h.usdcx, sentB.toString(), intent.depositReference);
    const done = await waitForLiquidity(h.db, intent.liquidityIntentId, 'completed');
    const returned = done.completion?.returnedB ?? Amount.ZERO;
    expect(returned.isPositive()).toBe(true);
    await waitFor(
      async () => (await h.transfersWithReason(`return:${intent.liquidityIntentId}`)) === 1 || null,
      'the excess to return',
    );
    await settledBooks(h);
    const joinedB = done.completion?.joinedB ?? Amount.ZERO;
    expect(await h.balance(lp, h.usdcx)).toEqual(startB.sub(joinedB));
  });

  it('returns both sides when the units fall below the minimum', async () => {
    const h = await world.harness();
    await h.startEngine();
    const lp = await provider(h, 'lp-min');
    const intent = await openHarnessLiquidityIntent(h, lp, { amountA: '1000', slippageBps: 0 });
    const startA = await h.balance(lp, h.amulet);
    // Send less of B than asked: fewer units than expected, below a zero-slippage minimum.
    const lessB = intent.expectedB.mulDiv(1n, 2n, 'down');
    await h.depositLiquidity(lp, h.amulet, intent.expectedA.toString(), intent.depositReference);
    await h.depositLiquidity(lp, h.usdcx, lessB.toString(), intent.depositReference);
    const done = await waitForLiquidity(h.db, intent.liquidityIntentId, 'refunded', 'completed');
    expect(done).toMatchObject({ status: 'refunded', failureCode: 'minimum_units_not_met' });
    expect(await getPosition(h.db, SEEDED_POOL_ID, lp.partyId)).toBeNull();
    await settledBooks(h);
    expect(await h.balance(lp, h.amulet)).toEqual(startA);
  });

  it('refunds the one side that arrived when the intent expires', async () => {
    const h = await world.harness();
    await h.startEngine();
    const lp = await provider(h, 'lp-expire');
    const intent = await openHarnessLiquidityIntent(h, lp, { amountA: '200' });
    const startA = await h.balance(lp, h.amulet);
    await h.depositLiquidity(lp, h.amulet, intent.expectedA.toString(), intent.depositReference);
    await waitForLiquidity(h.db, intent.liquidityIntentId, 'partial');
    await h.caughtUp();
    await h.advanceClock(25 * 60 * 60 * 1000);
    const done = await waitForLiquidity(h.db, intent.liquidityIntentId, 'refunded');
    expect(done.failureCode).toBe('expired');
    await settledBooks(h);
    expect(await h.balance(lp, h.amulet)).toEqual(startA);
  });

  it('withdraws half for both sides, or burns nothing when a minimum is not met', async () => {
    const h = await world.harness();
    await h.startEngine();
    const lp = await provider(h, 'lp-withdraw');
    const intent = await openHarnessLiquidityIntent(h, lp, { amountA: '1000' });
    await h.depositLiquidity(lp, h.amulet, intent.expectedA.toString(), intent.depositReference);
    await h.depositLiquidity(lp, h.usdcx, intent.expectedB.toString(), intent.depositReference);
    await waitForLiquidity(h.db, intent.liquidityIntentId, 'completed');
    const held = await getPosition(h.db, SEEDED_POOL_ID, lp.partyId);
    const request = {
      poolId: SEEDED_POOL_ID,
      providerParty: lp.partyId,
      apiKeyId: SCALE_OUT_API_KEY_ID,
      burn: { shareBps: 5_000 },
      now: h.clock.now(),
    };
    const greedy = { a: Amount.parse('1000'), b: Amount.ZERO };
    await expect(recordWithdrawal(h.db, { ...request, minimum: greedy })).rejects.toMatchObject({
      code: 'withdrawal_minimum_not_met',
    });
    expect((await getPosition(h.db, SEEDED_POOL_ID, lp.partyId))?.units).toEqual(held?.units);
    const [a0, b0] = [await h.balance(lp, h.amulet), await h.balance(lp, h.usdcx)];
    const minimum = { a: Amount.ZERO, b: Amount.ZERO };
    const withdrawal = await recordWithdrawal(h.db, { ...request, minimum });
    const paid = await waitFor(async () => {
      const w = await getWithdrawal(h.db, withdrawal.withdrawalId);
      return w?.completedAt ? w : null;
    }, 'both payouts');
    expect([paid.payoutA, paid.payoutB]).toEqual(['paid', 'paid']);
    expect(await h.balance(lp, h.amulet)).toEqual(a0.add(paid.amountA));
    expect(await h.balance(lp, h.usdcx)).toEqual(b0.add(paid.amountB));
    expect((held?.units ?? Amount.ZERO).sub(paid.units)).toEqual(
      (await getPosition(h.db, SEEDED_POOL_ID, lp.partyId))?.units,
    );
    await settledBooks(h);
    expect((await poolLiquidity(h)).supply.gte(MINIMUM_LOCKED_UNITS)).toBe(true);
  });

  it("flags a withdrawal's payout offer the provider rejects, keeping the amount for an operator", async () => {
    const h = await world.harness();
    await h.startEngine();
    // Pre-approves Amulet only: its USDCx payout is an offer it must accept.
    const lp = await h.newParty(
      'lp-rejects',
      [h.amulet],
      [
        [h.amulet, '10000'],
        [h.usdcx, '1000'],
      ],
    );
    const intent = await openHarnessLiquidityIntent(h, lp, { amountA: '1000' });
    await h.depositLiquidity(lp, h.amulet, intent.expectedA.toString(), intent.depositReference);
    await h.depositLiquidity(lp, h.usdcx, intent.expectedB.toString(), intent.depositReference);
    await waitForLiquidity(h.db, intent.liquidityIntentId, 'completed');
    const withdrawal = await withdrawWholePosition(h, lp, SEEDED_POOL_ID);
    const offer = await waitFor(async () => {
      const offers = await h.ledger.getPendingOffers(lp.partyId);
      return offers.find((o) => o.receiver === lp.partyId) ?? null;
    }, 'the payout offer');
    expect((await getWithdrawal(h.db, withdrawal.withdrawalId))?.payoutB).toBe('offered');
    await h.ledger.rejectOffer({
      commandId: 'lp-rejects-payout',
      offerId: offer.offerId,
      actor: lp.partyId,
    });
    const flagged = await waitFor(async () => {
      const w = await getWithdrawal(h.db, withdrawal.withdrawalId);
      return w?.payoutB === 'flagged' ? w : null;
    }, 'the payout to be flagged');
    expect(flagged.payoutA).toBe('paid');
    const flags = await h.db.query<{ kind: string }>(
      "SELECT kind FROM operator_flags WHERE details->>'withdrawalId' = $1",
      [withdrawal.withdrawalId],
    );
    expect(flags.map((f) => f.kind)).toEqual(['withdrawal_payout_failed']);
    // The rejected amount is back with the swap party and still owed: in outgoing, not reserve.
    const books = await getPoolAccounting(h.db, SEEDED_POOL_ID);
    expect(books?.outgoingB).toEqual(flagged.amountB);
    await settledBooks(h);
  });

  it("flags a forward the swap party cannot accept, and returns the intent's other side", async () => {
    const h = await world.harness();
    const swapParty = h.pool(SEEDED_POOL_ID).swapParty;
    // The swap party pre-approves Amulet only: a USDCx forward is an offer it must accept.
    const ledger = ledgerWith(h.ledger, {
      acceptOffer: async (command) => {
        if (command.actor === swapParty) {
          throw new LedgerError('rejected', 'the participant refused the accept');
        }
        return h.ledger.acceptOffer(command);
      },
    });
    await h.startEngine({ ledger });
    const lp = await provider(h, 'lp-forward-refused');
    const startA = await h.balance(lp, h.amulet);
    const intent = await openHarnessLiquidityIntent(h, lp, { amountA: '300' });
    await h.depositLiquidity(lp, h.usdcx, intent.expectedB.toString(), intent.depositReference);
    await h.depositLiquidity(lp, h.amulet, intent.expectedA.toString(), intent.depositReference);
    const done = await waitForLiquidity(h.db, intent.liquidityIntentId, 'refund_failed');
    expect(done.failureCode).toBe('deposit_not_taken');
    const flags = await h.db.query<{ kind: string }>('SELECT kind FROM operator_flags');
    expect(flags.map((f) => f.kind)).toEqual(['liquidity_lp_accept_failed']);
    const deposits = await h.db.query<{ side: string; status: string }>(
      'SELECT side, status FROM liquidity_deposits ORDER BY side',
    );
    expect(deposits).toEqual([
      { side: 'a', status: 'forwarded' },
      { side: 'b', status: 'flagged' },
    ]);
    // The Amulet side is back; the USDCx waits in the forward's offer for an operator.
    await waitFor(async () => (await h.balance(lp, h.amulet)).eq(startA) || null, 'side A back');
    await h.caughtUp();
    await h.booksMatchLedger(SEEDED_POOL_ID);
  });
});
