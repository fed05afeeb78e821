/**
 * Every kind of deposit to a pool's LP party that nobody asked for, sent by wallets on the
 * ledger, and what must hold once the service has dealt with them (docs/spec/liquidity.md
 * #unasked-deposits): each went back whole to its sender, every instrument's total over all
 * parties is unchanged but for what transfers burned, the books equal the swap party's holdings,
 * the LP party holds nothing, and no flag was raised. The engine's own tests run it on each
 * store; the service's run it on each ledger adapter.
 */
import { randomUUID } from 'node:crypto';
import { Amount, type Instrument, instrumentKey } from '@poolparty/core';
import { type LocalLedger, REASON_META_KEY } from '@poolparty/ledger';
import { type Database, getPool, type LiquidityIntentRecord } from '@poolparty/store';
import { expect } from 'vitest';
import { cancelLiquidityIntent } from '../src/liquidity-cancel.js';
import { waitFor } from './engine.js';
import { balanceOf, booksAndHoldings } from './holdings.js';
import { openTestLiquidityIntent, waitForLiquidity } from './liquidity.js';
import { allUpdates } from './scale-out.js';

/** What the run needs of a deployment: its store, the ledger wallets use, and its pool. */
export interface UnaskedDepositsWorld {
  readonly db: Database;
  /** The ledger itself: wallets' transfers, parties, the faucet, the clock. */
  readonly ledger: LocalLedger;
  readonly poolId: string;
  readonly instruments: {
    readonly amulet: Instrument;
    readonly usdcx: Instrument;
    readonly cbtc: Instrument;
  };
  readonly developerParty: string;
  /** Resolves once the service has ingested every update so far. */
  caughtUp(): Promise<void>;
  /** Moves the ledger's time on, and the service's with it. */
  advanceClock(ms: number): Promise<void>;
  /** The service's time. */
  now(): Date;
}

/** The reasons the deposits of the run are returned for, in the order they are sent. */
export const UNASKED_REASONS = [
  'no_intent',
  'no_intent',
  'wrong_instrument',
  'wrong_party',
  'side_already_received',
  'intent_not_open',
  'intent_not_open',
  'intent_not_open',
  'intent_not_open',
] as const;

const DAY_MS = 24 * 60 * 60 * 1000;

export interface UnaskedDepositsOutcome {
  /** The unmatched reasons the service recorded, in ledger order. */
  readonly reasons: readonly string[];
  /**
   * Per instrument: the total over all parties before plus what was minted since, and after plus
   * what was burned since (transfer fees, burns). Equal when nothing was lost or made.
   */
  readonly totals: readonly {
    instrument: string;
    beforeAndMinted: string;
    afterAndDestroyed: string;
  }[];
  /** The LP party's holdings at the end, per instrument. */
  readonly lpHoldings: readonly string[];
  readonly books: { readonly a: string; readonly b: string };
  readonly holdings: { readonly a: string; readonly b: string };
  readonly openFlags: readonly string[];
}

/** Sends every kind of unasked deposit and reads what became of them once all are settled. */
export async function runUnaskedDeposits(w: UnaskedDepositsWorld): Promise<UnaskedDepositsOutcome> {
  const { amulet, usdcx, cbtc } = w.instruments;
  const funds: [Instrument, string][] = [
    [amulet, '10000'],
    [usdcx, '1000'],
    [cbtc, '1'],
  ];
  const lp = await newParty(w, 'unasked-lp', [amulet, usdcx], funds);
  const stranger = await newParty(w, 'unasked-stranger', [amulet], funds);
  const start = await w.ledger.ledgerEnd();
  const before = await totals(w);
  const send = (from: string, instrument: Instrument, amount: string, ref: string | null) =>
    sendToLp(w, from, instrument, amount, ref);
  // No intent at all: one-step (Amulet, which the LP party pre-approves) and an offer (USDCx).
  await send(stranger, amulet, '10', null);
  await send(stranger, usdcx, '2', null);
  // A token the pool does not trade.
  await send(stranger, cbtc, '0.01', null);
  // Another party's reference.
  const intent = await open(w, lp, { amountA: '100' });
  await send(stranger, amulet, intent.expectedA.toString(), intent.depositReference);
  // A duplicate side: the intent takes the first Amulet, the second goes back.
  await send(lp, amulet, intent.expectedA.toString(), intent.depositReference);
  await waitForLiquidity(w.db, intent.liquidityIntentId, 'partial');
  await send(lp, amulet, '7', intent.depositReference);
  await send(lp, usdcx, intent.expectedB.toString(), intent.depositReference);
  await waitForLiquidity(w.db, intent.liquidityIntentId, 'completed');
  // Sides after their intent ended: a late USDCx offer and a late one-step Amulet.
  await send(lp, usdcx, '3', intent.depositReference);
  await send(lp, amulet, '4', intent.depositReference);
  // A side after a cancel, and one after an expiry.
  const cancelled = await open(w, lp, { amountA: '50' });
  await cancelLiquidityIntent(w.db, {
    liquidityIntentId: cancelled.liquidityIntentId,
    providerParty: lp,
    now: w.now(),
  });
  await send(lp, amulet, cancelled.expectedA.toString(), cancelled.depositReference);
  const expiring = await open(w, lp, { amountA: '60' });
  await w.caughtUp();
  await w.advanceClock(DAY_MS + 60_000);
  await waitForLiquidity(w.db, expiring.liquidityIntentId, 'expired');
  await send(lp, usdcx, expiring.expectedB.toString(), expiring.depositReference);
  await settled(w);
  return outcomeOf(w, { start, before });
}

async function newParty(
  w: UnaskedDepositsWorld,
  hint: string,
  preapprovals: readonly Instrument[],
  funds: readonly [Instrument, string][],
): Promise<string> {
  const { partyId } = await w.ledger.createParty({ hint, preapprovals });
  for (const [instrument, amount] of funds) {
    await w.ledger.mint({ owner: partyId, instrument, amount: Amount.parse(amount) });
  }
  return partyId;
}

async function sendToLp(
  w: UnaskedDepositsWorld,
  sender: string,
  instrument: Instrument,
  amount: string,
  reference: string | null,
): Promise<void> {
  const pool = await getPool(w.db, w.poolId);
  if (pool === null) throw new Error(`no pool ${w.poolId}`);
  await w.ledger.submitTransfer({
    commandId: `wallet-${randomUUID()}`,
    sender,
    receiver: pool.lpParty,
    instrument,
    amount: Amount.parse(amount),
    meta: reference === null ? {} : { [REASON_META_KEY]: reference },
  });
}

function open(
  w: UnaskedDepositsWorld,
  providerParty: string,
  amounts: { amountA?: string; amountB?: string },
): Promise<LiquidityIntentRecord> {
  return openTestLiquidityIntent(w.db, {
    ...amounts,
    poolId: w.poolId,
    providerParty,
    developerParty: w.developerParty,
    now: w.now(),
  });
}

function instrumentsOf(w: UnaskedDepositsWorld): Instrument[] {
  return [w.instruments.amulet, w.instruments.usdcx, w.instruments.cbtc];
}

/** Every party's holdings of each instrument, summed: what exists of it on the ledger. */
async function totals(w: UnaskedDepositsWorld): Promise<Map<string, Amount>> {
  const parties = await w.ledger.listParties();
  const sums = new Map<string, Amount>();
  for (const instrument of instrumentsOf(w)) {
    let sum = Amount.ZERO;
    for (const party of parties)
      sum = sum.add(await balanceOf(w.ledger, party.partyId, instrument));
    sums.set(instrumentKey(instrument), sum);
  }
  return sums;
}

/** Per instrument, what came into existence after `offset` (mints) and what left it (burns, fees). */
async function changesAfter(
  w: UnaskedDepositsWorld,
  offset: number,
): Promise<{ created: Map<string, Amount>; destroyed: Map<string, Amount> }> {
  const created = new Map<string, Amount>();
  const destroyed = new Map<string, Amount>();
  const add = (to: Map<string, Amount>, instrument: Instrument, amount: Amount) => {
    const key = instrumentKey(instrument);
    to.set(key, (to.get(key) ?? Amount.ZERO).add(amount));
  };
  for (const update of await allUpdates(w.ledger)) {
    if (update.offset <= offset) continue;
    for (const event of update.events) {
      if (event.kind === 'transfer') add(destroyed, event.instrument, event.feesBurned);
      if (event.kind === 'burn') add(destroyed, event.instrument, event.amount);
      if (event.kind === 'mint') add(created, event.instrument, event.amount);
    }
  }
  return { created, destroyed };
}

/** Every liquidity deposit ended returned or forwarded, and the service has seen all of it. */
async function settled(w: UnaskedDepositsWorld): Promise<void> {
  await w.caughtUp();
  await waitFor(async () => {
    const rows = await w.db.query<{ open: string }>(
      `SELECT count(*)::text AS open FROM liquidity_deposits
        WHERE status NOT IN ('returned', 'forwarded')`,
    );
    return rows[0]?.open === '0' || null;
  }, 'every unasked deposit to be returned');
  await w.caughtUp();
}

async function outcomeOf(
  w: UnaskedDepositsWorld,
  from: { readonly start: number; readonly before: Map<string, Amount> },
): Promise<UnaskedDepositsOutcome> {
  const deposits = await w.db.query<{ unmatched_reason: string | null }>(
    `SELECT unmatched_reason FROM liquidity_deposits WHERE ledger_offset > $1
      ORDER BY ledger_offset, event_index`,
    [from.start],
  );
  const { created, destroyed } = await changesAfter(w, from.start);
  const after = await totals(w);
  const pool = await getPool(w.db, w.poolId);
  if (pool === null) throw new Error(`no pool ${w.poolId}`);
  const { books, holdings } = await booksAndHoldings(w.db, w.ledger, w.poolId);
  const flags = await w.db.query<{ kind: string }>(
    'SELECT kind FROM operator_flags WHERE resolved_at IS NULL ORDER BY id',
  );
  return {
    reasons: deposits.flatMap((d) => (d.unmatched_reason === null ? [] : [d.unmatched_reason])),
    totals: [...from.before].map(([instrument, total]) => ({
      instrument,
      beforeAndMinted: total.add(created.get(instrument) ?? Amount.ZERO).toString(),
      afterAndDestroyed: (after.get(instrument) ?? Amount.ZERO)
        .add(destroyed.get(instrument) ?? Amount.ZERO)
        .toString(),
    })),
    lpHoldings: await Promise.all(
      instrumentsOf(w).map(async (i) => (await balanceOf(w.ledger, pool.lpParty, i)).toString()),
    ),
    books,
    holdings,
    openFlags: flags.map((f) => f.kind),
  };
}

/** What a run of every unasked kind must show: each returned, nothing lost, nothing flagged. */
export function expectConserved(outcome: UnaskedDepositsOutcome): void {
  expect(outcome.reasons).toEqual(UNASKED_REASONS);
  for (const total of outcome.totals) expect(total.afterAndDestroyed).toBe(total.beforeAndMinted);
  expect(outcome.lpHoldings).toEqual(['0', '0', '0']);
  expect(outcome.holdings).toEqual(outcome.books);
  expect(outcome.openFlags).toEqual([]);
}
