/**
 * Liquidity through separate worker processes on the canton path, with workers killed: `poolparty
 * serve` with `POOLPARTY_ROLE=worker` on PostgreSQL reaches the seeded devnet ledger over the
 * network (`LEDGER=canton`). A provider's deposits wait in the LP party while a worker that the
 * ledger refuses is SIGKILLed before their forwards go out; a fresh worker forwards each once,
 * mints once, settles a swap on the new liquidity, and pays a withdrawal. A withdrawal whose first
 * payout is on the ledger and whose second is not when its worker dies is paid exactly once per
 * side. Deposits nobody asked for, whose worker dies before their return and rejection go out, go
 * back once each. After each, the books equal the swap party's holdings and the LP party holds
 * nothing.
 */
import { randomUUID } from 'node:crypto';
import { Amount, planMint, type TransferPayload } from '@poolparty/core';
import { REASON_META_KEY } from '@poolparty/ledger';
import { openLiquidityIntent, recordWithdrawal } from '@poolparty/settlement';
import {
  allUpdates,
  balanceOf,
  booksAndHoldings,
  createPricedIntent,
  depositFor,
  SCALE_OUT_API_KEY_ID,
  transfersByReason,
  waitFor,
} from '@poolparty/settlement/testing';
import {
  depositsOfLiquidityIntent,
  getIntent,
  getLiquidityIntent,
  getPool,
  getPosition,
  getWithdrawal,
  type LiquidityIntentRecord,
  unconfirmedCommands,
} from '@poolparty/store';
import { postgresSkipReason } from '@poolparty/store/testing';
import { describe, expect, it } from 'vitest';
import { openWorkerWorld, useWorkerWorlds, type WorkerWorld } from './support/worker-world.js';

const POOL_ID = 'amulet-usdcx';
const WAIT_MS = 60_000;
const skipReason = await postgresSkipReason('liquidity-kill suite');

interface World extends WorkerWorld {
  readonly provider: string;
}

async function setUp(): Promise<World> {
  const world = await openWorkerWorld('liquidity-kill');
  const { devnet } = world;
  const { amulet, usdcx } = devnet.seed.instruments;
  const { partyId: provider } = await devnet.ledger.createParty({
    hint: 'provider',
    preapprovals: 'all',
  });
  await devnet.ledger.mint({ owner: provider, instrument: amulet, amount: Amount.parse('50000') });
  await devnet.ledger.mint({ owner: provider, instrument: usdcx, amount: Amount.parse('5000') });
  return { ...world, provider };
}

function pool(w: World) {
  const found = w.devnet.seed.pools.find((p) => p.poolId === POOL_ID);
  if (!found) throw new Error(`no ${POOL_ID}`);
  return found;
}

/** An intent for 2 000 Amulet and the USDCx the ratio asks, both deposits on the ledger. */
async function depositedIntent(w: World): Promise<LiquidityIntentRecord> {
  const intent = await openLiquidityIntent(w.db, {
    liquidityIntentId: `liq_${randomUUID().replaceAll('-', '').slice(0, 26).toUpperCase()}`,
    depositReference: `pp-${randomUUID().slice(0, 13)}`,
    poolId: POOL_ID,
    amountA: '2000',
    providerParty: w.provider,
    apiKeyId: SCALE_OUT_API_KEY_ID,
    developerParty: w.devnet.seed.developer.partyId,
    now: await w.devnet.ledger.now(),
  });
  for (const [instrument, amount] of [
    [pool(w).tokenA, intent.expectedA],
    [pool(w).tokenB, intent.expectedB],
  ] as const) {
    await w.devnet.ledger.submitTransfer({
      commandId: `wallet-${randomUUID()}`,
      sender: w.provider,
      receiver: pool(w).lpParty,
      instrument,
      amount: amount,
      meta: { [REASON_META_KEY]: intent.depositReference },
    });
  }
  return intent;
}

async function booksEqualHoldings(w: World): Promise<void> {
  const { books, holdings } = await booksAndHoldings(w.db, w.devnet.ledger, POOL_ID);
  expect(holdings).toEqual(books);
  for (const instrument of [pool(w).tokenA, pool(w).tokenB]) {
    expect((await balanceOf(w.devnet.ledger, pool(w).lpParty, instrument)).toString()).toBe('0');
  }
}

describe.skipIf(skipReason !== null)('liquidity with workers killed', () => {
  const { opened, start } = useWorkerWorlds<World>();

  /** Starts a worker the ledger refuses, waits for `stalled`, SIGKILLs it, lifts the faults. */
  async function killedWhile(w: World, stalled: () => Promise<boolean>): Promise<void> {
    w.devnet.ledger.setFaults({ rejectRate: 1 });
    const victim = start(w);
    await victim.url;
    await waitFor(async () => (await stalled()) || null, 'the worker to stall', WAIT_MS).finally(
      () => victim.child.kill('SIGKILL'),
    );
    expect(await victim.exited).toBeNull();
    w.devnet.ledger.setFaults({});
  }

  it('forwards and mints once after a kill, then settles a swap and a withdrawal on it', async () => {
    const w = opened(await setUp());
    const before = pool(w);
    const books = (await getPool(w.db, POOL_ID))?.accounting;
    const supply = (await getPool(w.db, POOL_ID))?.lpSupply ?? Amount.ZERO;
    const intent = await depositedIntent(w);
    await killedWhile(w, async () => {
      const deposits = await depositsOfLiquidityIntent(w.db, intent.liquidityIntentId);
      const open = await unconfirmedCommands(w.db, '', 100);
      return deposits.length === 2 && open.length >= 2 && open.every((c) => c.submissions >= 1);
    });
    expect((await getLiquidityIntent(w.db, intent.liquidityIntentId))?.status).toBe('joining');

    start(w);
    const done = await waitFor(
      async () => {
        const found = await getLiquidityIntent(w.db, intent.liquidityIntentId);
        return found?.status === 'completed' ? found : null;
      },
      'the successor to complete the intent',
      WAIT_MS,
    );
    const model = planMint(
      {
        reserveA: books?.reserveA ?? Amount.ZERO,
        reserveB: books?.reserveB ?? Amount.ZERO,
        supply,
      },
      intent.expectedA,
      intent.expectedB,
    );
    if (model.kind !== 'mint') throw new Error('the model refuses the mint');
    expect(done.completion?.mintedUnits).toEqual(model.minted);
    const byReason = transfersByReason(await allUpdates(w.devnet.ledger));
    for (const deposit of await depositsOfLiquidityIntent(w.db, intent.liquidityIntentId)) {
      expect(byReason.get(`forward:${deposit.depositId}`)).toBe(1);
    }

    // A swap on the pool with the new liquidity in it, settled by the same worker.
    const { partyId: trader } = await w.devnet.ledger.createParty({
      hint: 'trader',
      preapprovals: 'all',
    });
    await w.devnet.ledger.mint({
      owner: trader,
      instrument: before.tokenA,
      amount: Amount.parse('300'),
    });
    const swap = await createPricedIntent(w.db, w.devnet.ledger, {
      poolId: POOL_ID,
      party: trader,
      input: before.tokenA,
      amount: '300',
      developerParty: w.devnet.seed.developer.partyId,
      now: await w.devnet.ledger.now(),
    });
    await depositFor(w.devnet.ledger, swap, before.tokenA);
    await waitFor(
      async () => (await getIntent(w.db, swap.intentId))?.status === 'completed' || null,
      'the swap',
      WAIT_MS,
    );

    // Everything withdrawn: the model's burn of the units at the books' reserves, each side once.
    const held = await getPosition(w.db, POOL_ID, w.provider);
    const reserves = (await getPool(w.db, POOL_ID))?.accounting;
    const supplyNow = (await getPool(w.db, POOL_ID))?.lpSupply ?? Amount.ZERO;
    const units = held?.units ?? Amount.ZERO;
    const withdrawal = await recordWithdrawal(w.db, {
      poolId: POOL_ID,
      providerParty: w.provider,
      apiKeyId: SCALE_OUT_API_KEY_ID,
      burn: { units },
      minimum: { a: Amount.ZERO, b: Amount.ZERO },
      now: await w.devnet.ledger.now(),
    });
    const expectA = units.mulDiv(
      (reserves?.reserveA ?? Amount.ZERO).units,
      supplyNow.units,
      'down',
    );
    expect(withdrawal.amountA).toEqual(expectA);
    await waitFor(
      async () => (await getWithdrawal(w.db, withdrawal.withdrawalId))?.completedAt ?? null,
      'the payouts',
      WAIT_MS,
    );
    expect(
      transfersByReason(await allUpdates(w.devnet.ledger)).get(
        `withdraw:${withdrawal.withdrawalId}`,
      ),
    ).toBe(2);
    await booksEqualHoldings(w);
  }, 240_000);

  it('pays a withdrawal once per side when its worker dies between the two payouts', async () => {
    const w = opened(await setUp());
    const intent = await depositedIntent(w);
    const first = start(w);
    await waitFor(
      async () =>
        (await getLiquidityIntent(w.db, intent.liquidityIntentId))?.status === 'completed' || null,
      'the mint',
      WAIT_MS,
    );
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);

    const withdrawal = await recordWithdrawal(w.db, {
      poolId: POOL_ID,
      providerParty: w.provider,
      apiKeyId: SCALE_OUT_API_KEY_ID,
      burn: { shareBps: 5_000 },
      minimum: { a: Amount.ZERO, b: Amount.ZERO },
      now: await w.devnet.ledger.now(),
    });
    const legs = () =>
      unconfirmedCommands(w.db, '', 100).then((all) => all.filter((c) => c.leg === 'lp_payout'));
    await killedWhile(w, async () => {
      const open = await legs();
      return open.length === 2 && open.every((c) => c.submissions >= 1);
    });
    // The first payout reached the ledger before the worker died; the second did not.
    const [sent] = await legs();
    if (sent === undefined) throw new Error('no payout recorded');
    const payload = sent.payload as TransferPayload;
    await w.devnet.ledger.submitTransfer({
      commandId: sent.commandId,
      sender: payload.sender,
      receiver: payload.receiver,
      instrument: payload.instrument,
      amount: Amount.parse(payload.amount),
      meta: { [REASON_META_KEY]: payload.reason },
    });

    start(w);
    const paid = await waitFor(
      async () => {
        const found = await getWithdrawal(w.db, withdrawal.withdrawalId);
        return found?.completedAt ? found : null;
      },
      'both payouts',
      WAIT_MS,
    );
    expect([paid.payoutA, paid.payoutB]).toEqual(['paid', 'paid']);
    const byReason = transfersByReason(await allUpdates(w.devnet.ledger));
    expect(byReason.get(`withdraw:${withdrawal.withdrawalId}`)).toBe(2);
    await booksEqualHoldings(w);
  }, 240_000);

  it('returns unasked deposits to their sender once when the worker returning them dies', async () => {
    const w = opened(await setUp());
    const { lpParty, tokenA: amulet, tokenB: usdcx } = pool(w);
    const { partyId: stranger } = await w.devnet.ledger.createParty({
      hint: 'stranger',
      preapprovals: 'all',
    });
    await w.devnet.ledger.mint({ owner: stranger, instrument: amulet, amount: Amount.parse('50') });
    await w.devnet.ledger.mint({ owner: stranger, instrument: usdcx, amount: Amount.parse('5') });
    // No intent asked for either: the Amulet arrives one-step, the USDCx as an offer.
    for (const [instrument, amount] of [
      [amulet, '20'],
      [usdcx, '2'],
    ] as const) {
      await w.devnet.ledger.submitTransfer({
        commandId: `stray-${randomUUID()}`,
        sender: stranger,
        receiver: lpParty,
        instrument,
        amount: Amount.parse(amount),
        meta: {},
      });
    }
    const moves = () =>
      unconfirmedCommands(w.db, '', 100).then((all) =>
        all.filter((c) => c.leg === 'lp_return' || c.leg === 'reject'),
      );
    await killedWhile(w, async () => {
      const open = await moves();
      return open.length === 2 && open.every((c) => c.submissions >= 1);
    });

    start(w);
    await waitFor(
      async () => {
        const rows = await w.db.query<{ status: string }>(
          'SELECT status FROM liquidity_deposits WHERE sender = $1',
          [stranger],
        );
        return (rows.length === 2 && rows.every((r) => r.status === 'returned')) || null;
      },
      'both unasked deposits to be returned',
      WAIT_MS,
    );
    expect((await balanceOf(w.devnet.ledger, stranger, usdcx)).toString()).toBe('5');
    expect((await balanceOf(w.devnet.ledger, stranger, amulet)).toString()).toBe('50');
    const deposits = await w.db.query<{ deposit_id: string }>(
      'SELECT deposit_id FROM liquidity_deposits WHERE sender = $1 AND offer_id IS NULL',
      [stranger],
    );
    const byReason = transfersByReason(await allUpdates(w.devnet.ledger));
    expect(byReason.get(`return:${deposits[0]?.deposit_id}`)).toBe(1);
    expect(await w.db.query('SELECT kind FROM operator_flags')).toEqual([]);
    await booksEqualHoldings(w);
  }, 240_000);
});
