/**
 * Keeping each pool side in several holdings, on PGlite and PostgreSQL over the embedded ledger:
 * a pool opened with each reserve in one holding is split into its target by self-transfers of
 * its swap party, and a second round splits nothing; a holding a live atomic swap reserves, or
 * an offer locks, is never split; a split the ledger refuses part-way is finished by a later
 * round; and through all of it the books equal the swap party's holdings.
 */
import { Amount, type Instrument } from '@poolparty/core';
import { LedgerError, type LedgerPort, type LocalLedger, openLocalLedger } from '@poolparty/ledger';
import {
  type Database,
  insertAtomicSwap,
  insertPool,
  listPools,
  setPoolStatus,
  transitionAtomicSwap,
} from '@poolparty/store';
import { seedTestDeveloper, storeBackends, testAtomicSwap } from '@poolparty/store/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { keepPoolHoldings, type SideKept } from '../src/pool-holdings.js';
import { ledgerWith } from '../testing/faults.js';
import { booksAndHoldings } from '../testing/holdings.js';

const T0 = new Date('2026-12-03T10:00:00Z');
const TARGETS = { EUR: 4, '*': 8 };

const backends = await storeBackends('keeping pool holdings', { schemaPrefix: 'pp_holdings' });

describe.each(backends)('keeping pool holdings on $name', (backend) => {
  if (backend.skipReason !== null) {
    it.skip(`skipped: ${backend.skipReason}`, () => {});
    return;
  }
  let db: Database;
  let ledger: LocalLedger;
  let pools = 0;

  beforeAll(async () => {
    [db] = await backend.open();
    await seedTestDeveloper(db, T0);
  }, 60_000);

  afterAll(async () => {
    await backend.close();
  });

  afterEach(async () => {
    // Each test's pool is its own: the next test's rounds leave it alone.
    for (const pool of await listPools(db)) await setPoolStatus(db, pool.poolId, 'paused', T0);
    await ledger.close();
  });

  /** A pool whose swap party holds each reserve (3000 USD, 300 EUR) as one holding. */
  async function openedPool() {
    ledger = await openLocalLedger({});
    const internal = async (hint: string) => (await ledger.createParty({ hint })).partyId;
    const usd: Instrument = { admin: await internal('bank'), id: 'USD' };
    const eur: Instrument = { admin: await internal('ecb'), id: 'EUR' };
    await ledger.createInstrument(usd);
    await ledger.createInstrument(eur);
    const swapParty = (await ledger.createParty({ hint: 'pool', preapprovals: [usd, eur] }))
      .partyId;
    await ledger.mint({ owner: swapParty, instrument: usd, amount: Amount.of(3_000) });
    await ledger.mint({ owner: swapParty, instrument: eur, amount: Amount.of(300) });
    pools += 1;
    const poolId = `pool-${pools}`;
    await insertPool(db, {
      poolId,
      tokenA: usd,
      tokenB: eur,
      swapParty,
      lpParty: 'lp::1220dd',
      lpSupply: Amount.of(1_000),
      reserveA: Amount.of(3_000),
      reserveB: Amount.of(300),
      createdAt: T0,
    });
    return { poolId, usd, eur, swapParty };
  }

  /** The swap party's holdings of `instrument`: amounts, sorted, locked ones marked. */
  async function holdingsOf(party: string, instrument: Instrument) {
    const holdings = await ledger.getHoldings(party);
    return holdings
      .filter((h) => h.instrument.id === instrument.id)
      .map((h) => `${h.amount}${h.lock === null ? '' : ' locked'}`)
      .sort();
  }

  const round = (over: LedgerPort = ledger) =>
    keepPoolHoldings({ db, ledger: over }, { targets: TARGETS });
  const done = (sides: readonly SideKept[]) =>
    sides.map((side) => [side.instrument.id, side.target, side.selfTransfers, side.refused]);

  async function expectBooksEqualHoldings(poolId: string) {
    const balance = await booksAndHoldings(db, ledger, poolId);
    expect(balance.holdings).toEqual(balance.books);
  }

  it('splits each reserve held as one holding into its target, and then nothing more', async () => {
    const { poolId, usd, eur, swapParty } = await openedPool();
    const first = await round();
    expect(done(first.sides)).toEqual([
      ['USD', 8, 7, 0],
      ['EUR', 4, 3, 0],
    ]);
    expect(first.sides.map((side) => side.counted)).toEqual([1, 1]);
    expect(await holdingsOf(swapParty, usd)).toEqual(Array(8).fill('375'));
    expect(await holdingsOf(swapParty, eur)).toEqual(Array(4).fill('75'));
    await expectBooksEqualHoldings(poolId);
    const second = await round();
    expect(done(second.sides)).toEqual([
      ['USD', 8, 0, 0],
      ['EUR', 4, 0, 0],
    ]);
    expect(await holdingsOf(swapParty, usd)).toEqual(Array(8).fill('375'));
  });

  it('never splits a holding a live atomic swap reserves or an offer locks', async () => {
    const { poolId, usd, eur, swapParty } = await openedPool();
    // 1000 USD offered to a party that pre-approves nothing: locked until the offer ends.
    const carol = (await ledger.createParty({ hint: 'carol' })).partyId;
    await ledger.submitTransfer({
      commandId: 'offer-1',
      sender: swapParty,
      receiver: carol,
      instrument: usd,
      amount: Amount.of(1_000),
    });
    const [eurHolding] = (await ledger.getHoldings(swapParty)).filter(
      (h) => h.instrument.id === 'EUR',
    );
    if (eurHolding === undefined) throw new Error('no EUR holding');
    await insertAtomicSwap(
      db,
      testAtomicSwap({
        atomicSwapId: `atm_reserving_${poolId}`,
        poolId,
        createdAt: T0,
        preparation: {
          ...testAtomicSwap({ atomicSwapId: 'x', createdAt: T0 }).preparation,
          commandId: `atomic-reserving-${poolId}-1`,
          outputHoldingIds: [eurHolding.holdingId],
        },
      }),
    );
    const first = await round();
    // USD: the locked 1000 counted, the free 2000 split into seven; EUR: the reserved one left.
    expect(done(first.sides)).toEqual([
      ['USD', 8, 6, 0],
      ['EUR', 4, 0, 0],
    ]);
    const sevenths = [...Array(6).fill('285.7142857143'), '285.7142857142'];
    expect(await holdingsOf(swapParty, usd)).toEqual(['1000 locked', ...sevenths].sort());
    expect(await holdingsOf(swapParty, eur)).toEqual(['300']);
    await expectBooksEqualHoldings(poolId);
    // The swap ends, its reservation with it: the next round splits the EUR holding.
    await transitionAtomicSwap(db, {
      atomicSwapId: `atm_reserving_${poolId}`,
      from: ['prepared'],
      to: 'cancelled',
      at: T0,
      failure: { code: 'cancelled', message: 'cancelled' },
    });
    expect(done((await round()).sides)).toEqual([
      ['USD', 8, 0, 0],
      ['EUR', 4, 3, 0],
    ]);
    await expectBooksEqualHoldings(poolId);
  });

  it('ends a split the ledger refuses for the round, and finishes it in the next', async () => {
    const { poolId, usd, swapParty } = await openedPool();
    let splits = 0;
    const refusingThird = ledgerWith(ledger, {
      splitHolding: async (command) => {
        splits += 1;
        if (splits === 3) throw new LedgerError('invalid_inputs', 'spent by another transfer');
        return ledger.splitHolding(command);
      },
    });
    const first = await round(refusingThird);
    expect(done(first.sides)).toEqual([
      ['USD', 8, 2, 1],
      ['EUR', 4, 3, 0],
    ]);
    await expectBooksEqualHoldings(poolId);
    expect(done((await round()).sides)[0]).toEqual(['USD', 8, 5, 0]);
    expect(await holdingsOf(swapParty, usd)).toHaveLength(8);
    await expectBooksEqualHoldings(poolId);
  });
});
