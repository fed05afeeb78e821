/**
 * Atomic swaps at once, on a service with `LEDGER=canton`: 50 prepared together on one pool
 * (its reserve split into many holdings), in both directions, each naming its own input holding
 * of its trader, then signed in a random order while deposit-flow swaps settle on the same pool.
 *
 * - Every atomic swap commits at its signed amounts or is refused with nothing moved: each
 *   trader's balances moved by exactly the signed amounts of its completed swaps.
 * - No ledger refusal comes from two swaps naming the same pool holding: no atomic swap was
 *   prepared again for a spent input (its traders' inputs are its own, so any such refusal was
 *   the pool's), and no payout of the deposit flow was refused.
 * - Over the recorded executions (the store's rows: reserves before, signed input and output,
 *   curve output), the pool never paid more than its curve at the moment it executed, and the
 *   product of its reserves never shrank from one execution to the next (fast-check).
 * - The pool's books equal its holdings on the ledger at the end.
 */
import {
  Amount,
  constantProductOutput,
  type Instrument,
  isAtomicSwapTerminal,
} from '@poolparty/core';
import type { AtomicSwap, AtomicSwapObject } from '@poolparty/sdk/atomic';
import { booksAndHoldings } from '@poolparty/settlement/testing';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ATOMIC_POOL_ID,
  type AtomicTrader,
  type AtomicWorld,
  signedToEnd,
  startAtomicWorld,
} from './support/atomic-world.js';

const ATOMIC_TRADERS = 5;
const ATOMIC_SWAPS_EACH = 10;
const DEPOSIT_TRADERS = 4;
const DEPOSIT_SWAPS_EACH = 5;
/** Signatures sent at once: the swaps are signed in a random order, a few at a time. */
const SIGNING_LANES = 5;
/** Holdings split off each side of the pool's reserve: more than the swaps prepared at once. */
const POOL_SPLITS = 60;
const DEPOSIT_SWAP_WAIT_MS = 60_000;

let world: AtomicWorld;

beforeAll(async () => {
  world = await startAtomicWorld({
    traders: ATOMIC_TRADERS + DEPOSIT_TRADERS,
    traderHoldings: { count: ATOMIC_SWAPS_EACH, tokenA: '300', tokenB: '45' },
    poolSplits: { count: POOL_SPLITS, tokenA: '2000', tokenB: '300' },
  });
}, 120_000);

afterAll(() => world?.close());

const amuletIn = (k: number) => k % 2 === 0;

/** The trader's swaps, prepared at once: each alternates direction and names its own input. */
async function preparedBy(trader: AtomicTrader): Promise<AtomicSwapObject[]> {
  const { tokenA, tokenB } = world.pool;
  const amulets = await world.holdingsOf(trader.party.partyId, tokenA);
  const dollars = await world.holdingsOf(trader.party.partyId, tokenB);
  return Promise.all(
    Array.from({ length: ATOMIC_SWAPS_EACH }, (_, k) => {
      const input = amuletIn(k) ? amulets[k / 2] : dollars[(k - 1) / 2];
      if (input === undefined) throw new Error('a trader holds too few holdings');
      return trader.pp.atomicSwaps.create({
        fromToken: amuletIn(k) ? 'Amulet' : 'USDCx',
        toToken: amuletIn(k) ? 'USDCx' : 'Amulet',
        amount: amuletIn(k) ? '100' : '15',
        poolId: ATOMIC_POOL_ID,
        keyFingerprint: trader.signer.fingerprint,
        inputHoldingIds: [input],
      });
    }),
  );
}

/** Deposit-flow swaps of one trader, one after the other in both directions, to their end. */
async function depositFlowSwaps(trader: AtomicTrader): Promise<string[]> {
  const ended: string[] = [];
  for (let k = 0; k < DEPOSIT_SWAPS_EACH; k++) {
    const swap = await trader.pp.swaps.create({
      fromToken: amuletIn(k) ? 'Amulet' : 'USDCx',
      toToken: amuletIn(k) ? 'USDCx' : 'Amulet',
      amount: amuletIn(k) ? '100' : '15',
      poolId: ATOMIC_POOL_ID,
    });
    await trader.wallet.deposit(swap);
    ended.push((await swap.wait({ timeout: DEPOSIT_SWAP_WAIT_MS })).status);
  }
  return ended;
}

async function balanceOf(partyId: string, instrument: Instrument): Promise<Amount> {
  const holdings = (await world.devnet.ledger.getHoldings(partyId)).filter(
    (h) => h.instrument.id === instrument.id && h.instrument.admin === instrument.admin,
  );
  return Amount.sum(holdings.map((h) => h.amount));
}

/** What a trader holds of both tokens: `Amulet`, then `USDCx`. */
async function balancesOf(partyId: string): Promise<[Amount, Amount]> {
  return [await balanceOf(partyId, world.pool.tokenA), await balanceOf(partyId, world.pool.tokenB)];
}

/** What a trader's completed swaps paid and got by their signed amounts, per token by symbol. */
function signedMoves(partyId: string, swaps: readonly AtomicSwap[]) {
  const paid = new Map<string, Amount>();
  const got = new Map<string, Amount>();
  const add = (sums: Map<string, Amount>, token: string, amount: string) =>
    sums.set(token, (sums.get(token) ?? Amount.ZERO).add(Amount.parse(amount)));
  for (const swap of swaps) {
    if (swap.traderParty !== partyId || swap.status !== 'completed') continue;
    add(paid, swap.input.token, swap.input.amount);
    add(got, swap.output.token, swap.output.amount);
  }
  const of = (sums: Map<string, Amount>, token: string) => sums.get(token) ?? Amount.ZERO;
  return { paid: (token: string) => of(paid, token), got: (token: string) => of(got, token) };
}

function shuffled<T>(items: readonly T[]): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
  }
  return copy;
}

interface Execution {
  readonly atomicSwapId: string;
  readonly inputReserve: Amount;
  readonly outputReserve: Amount;
  readonly signedOutput: Amount;
  readonly priced: Amount;
  readonly curveOutput: Amount;
}

/** The completed swaps' rows, in the order they executed (their `completed` event's). */
async function recordedExecutions(): Promise<Execution[]> {
  const rows = await world.service.ctx.db.query<Record<string, string>>(
    `SELECT s.atomic_swap_id, s.input_reserve_before, s.output_reserve_before, s.output_amount,
            s.input_amount_after_pool_fee, s.curve_output
       FROM atomic_swaps s
       JOIN atomic_swap_events e ON e.atomic_swap_id = s.atomic_swap_id AND e.status = 'completed'
      WHERE s.status = 'completed'
      ORDER BY e.seq`,
  );
  return rows.map((row) => ({
    atomicSwapId: row.atomic_swap_id ?? '',
    inputReserve: Amount.parse(String(row.input_reserve_before)),
    outputReserve: Amount.parse(String(row.output_reserve_before)),
    signedOutput: Amount.parse(String(row.output_amount)),
    priced: Amount.parse(String(row.input_amount_after_pool_fee)),
    curveOutput: Amount.parse(String(row.curve_output)),
  }));
}

const productOf = (e: Execution) => e.inputReserve.units * e.outputReserve.units;

describe('atomic swaps prepared at once on one pool, beside the deposit flow', () => {
  it('commit at their signed amounts or move nothing, and no two swaps name one holding', async () => {
    const atomicTraders = world.traders.slice(0, ATOMIC_TRADERS);
    const depositTraders = world.traders.slice(ATOMIC_TRADERS);
    const before = await Promise.all(atomicTraders.map((t) => balancesOf(t.party.partyId)));
    const signers = new Map(atomicTraders.map((t) => [t.party.partyId, t.signer]));

    const depositFlow = Promise.all(depositTraders.map(depositFlowSwaps));
    const prepared = (await Promise.all(atomicTraders.map(preparedBy))).flat();
    expect(prepared).toHaveLength(ATOMIC_TRADERS * ATOMIC_SWAPS_EACH);
    const order = shuffled(prepared);
    const ended: AtomicSwap[] = [];
    const lane = async () => {
      for (let swap = order.shift(); swap !== undefined; swap = order.shift()) {
        const signer = signers.get(swap.data.traderParty);
        if (signer === undefined) throw new Error('no signer');
        ended.push(await signedToEnd(swap, signer));
      }
    };
    await Promise.all(Array.from({ length: SIGNING_LANES }, lane));
    expect(ended).toHaveLength(prepared.length);
    expect((await depositFlow).flat()).toEqual(
      Array(DEPOSIT_TRADERS * DEPOSIT_SWAPS_EACH).fill('completed'),
    );

    // Each swap ended; each trader moved by exactly its completed swaps' signed amounts.
    expect(ended.every((swap) => isAtomicSwapTerminal(swap.status))).toBe(true);
    expect(ended.filter((swap) => swap.status === 'completed').length).toBeGreaterThan(
      ended.length / 2,
    );
    for (const [index, trader] of atomicTraders.entries()) {
      const after = await balancesOf(trader.party.partyId);
      const { paid, got } = signedMoves(trader.party.partyId, ended);
      for (const [side, token] of ['Amulet', 'USDCx'].entries()) {
        const [held, heldBefore] = [after[side], before[index]?.[side]];
        // What it holds now and paid is what it held before and got.
        expect(held?.add(paid(token)).toString()).toBe(heldBefore?.add(got(token)).toString());
      }
    }

    // No ledger refusal of a holding another swap spent: no atomic swap prepared again (its
    // trader's input was its own), no deposit-flow command refused.
    const { db, ledger } = world.service.ctx;
    const prepares = await db.query<{ atomic_swap_id: string; preparations: number }>(
      'SELECT atomic_swap_id, preparations FROM atomic_swaps WHERE preparations > 1',
    );
    expect(prepares).toEqual([]);
    const refused = await db.query<{ command_id: string; error: string }>(
      'SELECT command_id, error FROM ledger_commands WHERE error IS NOT NULL',
    );
    expect(refused).toEqual([]);

    // The pool never paid more than its curve at the reserves it executed against, and the
    // product of its reserves never shrank from one execution to a later one.
    const executions = await recordedExecutions();
    expect(executions).toHaveLength(ended.filter((swap) => swap.status === 'completed').length);
    fc.assert(
      fc.property(fc.constantFrom(...executions), (e) => {
        const curve = constantProductOutput(
          { input: e.inputReserve, output: e.outputReserve },
          e.priced,
        );
        expect(curve.toString()).toBe(e.curveOutput.toString());
        expect(e.signedOutput.lte(curve)).toBe(true);
      }),
      { numRuns: executions.length * 2 },
    );
    const indices = fc.nat({ max: executions.length - 1 });
    fc.assert(
      fc.property(indices, indices, (i, j) => {
        const [first, later] = [executions[Math.min(i, j)], executions[Math.max(i, j)]];
        if (first === undefined || later === undefined) throw new Error('no such execution');
        expect(productOf(later) >= productOf(first)).toBe(true);
      }),
    );

    const { books, holdings } = await booksAndHoldings(db, ledger, ATOMIC_POOL_ID);
    expect(holdings).toEqual(books);
  }, 120_000);
});
