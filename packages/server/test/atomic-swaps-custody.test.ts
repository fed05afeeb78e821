/**
 * No custody window: 200 atomic swaps on one pool, by several traders at once and in both
 * directions, through the HTTP API and `@poolparty/sdk/atomic` on a service with `LEDGER=canton`.
 * Every update of the traders' parties and the pool's swap party is then read back from the
 * ledger's update stream: in none did the pool receive a trader's input without paying that
 * trader's output in the same update. The updates where the pool received anything are exactly
 * the completed swaps' own, each moving exactly its signed amounts, and the pool's books equal
 * its holdings at the end.
 */
import { Amount } from '@poolparty/core';
import type { LedgerEvent, LedgerUpdate } from '@poolparty/ledger';
import { readUpdates } from '@poolparty/ledger/testing';
import type { AtomicSwap } from '@poolparty/sdk/atomic';
import { booksAndHoldings } from '@poolparty/settlement/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ATOMIC_POOL_ID,
  type AtomicTrader,
  type AtomicWorld,
  signedToEnd,
  startAtomicWorld,
} from './support/atomic-world.js';

const TRADERS = 5;
const SWAPS_PER_TRADER = 40;

let world: AtomicWorld;

beforeAll(async () => {
  world = await startAtomicWorld({
    traders: TRADERS,
    traderHoldings: { count: 1, tokenA: '50000', tokenB: '8000' },
  });
}, 120_000);

afterAll(() => world?.close());

/** A trader's swaps one after the other, alternating directions; each as it ended. */
async function swapsOf(trader: AtomicTrader): Promise<AtomicSwap[]> {
  const ended: AtomicSwap[] = [];
  for (let k = 0; k < SWAPS_PER_TRADER; k++) {
    const amuletIn = k % 2 === 0;
    const swap = await trader.pp.atomicSwaps.create({
      fromToken: amuletIn ? 'Amulet' : 'USDCx',
      toToken: amuletIn ? 'USDCx' : 'Amulet',
      amount: amuletIn ? '100' : '20',
      poolId: ATOMIC_POOL_ID,
      keyFingerprint: trader.signer.fingerprint,
    });
    ended.push(await signedToEnd(swap, trader.signer));
  }
  return ended;
}

type Transfer = Extract<LedgerEvent, { kind: 'transfer' }>;

const transfersOf = (update: LedgerUpdate): Transfer[] =>
  update.events.filter((event): event is Transfer => event.kind === 'transfer');

/** A transfer as the swap's legs state it: who pays whom how much of which token. */
const leg = (sender: string, receiver: string, token: string, amount: string) =>
  `${sender} → ${receiver}: ${Amount.parse(amount).toString()} ${token}`;

describe('atomic swaps leave the pool no custody window', () => {
  it('pays every input the pool receives in the update that brings it, over 200 swaps', async () => {
    const ended = (await Promise.all(world.traders.map(swapsOf))).flat();
    expect(ended).toHaveLength(TRADERS * SWAPS_PER_TRADER);
    // The pool is deep and the tolerance wide: every swap commits at its signed amounts.
    expect(ended.filter((swap) => swap.status !== 'completed')).toEqual([]);
    const completed = ended;

    const { ledger, db } = world.service.ctx;
    const pool = world.pool.swapParty;
    const parties = [pool, ...world.traders.map((t) => t.party.partyId)];
    const updates = await readUpdates(ledger, 0, await ledger.ledgerEnd(), parties);

    // In no update did the pool take a trader's input without paying that trader's output.
    const unpaid = updates.flatMap((update) => {
      const transfers = transfersOf(update);
      return transfers
        .filter((t) => t.receiver === pool && t.sender !== pool)
        .filter((input) => !transfers.some((t) => t.sender === pool && t.receiver === input.sender))
        .map(
          (input) =>
            `${update.updateId}: ${input.amount} ${input.instrument.id} from ${input.sender}`,
        );
    });
    expect(unpaid).toEqual([]);

    // The updates where the pool received anything are the completed swaps', each its two legs.
    const receiving = updates.filter((update) =>
      update.events.some((event) => 'receiver' in event && event.receiver === pool),
    );
    expect(receiving.map((u) => u.updateId).sort()).toEqual(
      completed.map((swap) => swap.updateId).sort(),
    );
    const legsById = new Map(
      receiving.map((update) => [
        update.updateId,
        transfersOf(update)
          .map((t) => leg(t.sender, t.receiver, t.instrument.id, t.amount.toString()))
          .sort(),
      ]),
    );
    for (const swap of completed) {
      const { input, output } = swap;
      expect(legsById.get(swap.updateId ?? '')).toEqual(
        [
          leg(input.sender, input.receiver, input.token, input.amount),
          leg(output.sender, output.receiver, output.token, output.amount),
        ].sort(),
      );
    }

    const { books, holdings } = await booksAndHoldings(db, ledger, ATOMIC_POOL_ID);
    expect(holdings).toEqual(books);
  }, 120_000);
});
