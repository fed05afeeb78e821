/**
 * `poolparty admin pools add`: a pool on a ledger that already holds its liquidity. The operator
 * funds the swap party with both instruments (a transfer from the LP party, say), then adds the
 * pool; its reserves are what the swap party holds, read at one ledger offset, and its books
 * begin there (migration 0008): the funding transfers are in the reserves, not deposits.
 *
 * Everything is checked against the ledger before the store is touched: both parties exist and
 * the service may act as both (the ledger's `canActAs`), both instruments are known to the
 * ledger's registries, the swap party holds both and has no transfer in flight, and neither the
 * pool id, nor the swap party, nor the pair is taken.
 */
import { Amount, type Instrument, openingLiquidity, sameInstrument } from '@poolparty/core';
import type { Holding, LedgerPort } from '@poolparty/ledger';
import type { Database, Queryable } from '@poolparty/store';
import {
  getPool,
  insertPool,
  listPools,
  type PoolRecord,
  recordAdminAction,
} from '@poolparty/store';
import { AdminError } from './admin-error.js';
import type { Attribution } from './discounts.js';

export interface PoolOpening {
  readonly poolId: string;
  readonly swapParty: string;
  readonly lpParty: string;
  /** Side A of the pool. */
  readonly base: Instrument;
  /** Side B of the pool. */
  readonly quote: Instrument;
  readonly feeBps: number;
  /**
   * The party credited with the units of the opening reserves (who funded them); null opens a
   * pool whose swap party holds nothing yet, which its first liquidity intent prices.
   */
  readonly owner: string | null;
}

/** Reads of the holdings retried while the ledger keeps committing between two ledger ends. */
const HOLDINGS_READ_ATTEMPTS = 5;

export async function openPool(
  db: Database,
  ledger: LedgerPort,
  opening: PoolOpening,
  by: Attribution,
): Promise<PoolRecord> {
  if (opening.swapParty === opening.lpParty) {
    throw new AdminError('validation_error', '--swap-party and --lp-party must be two parties');
  }
  if (sameInstrument(opening.base, opening.quote)) {
    throw new AdminError('validation_error', '--base and --quote must be two instruments');
  }
  await refuseTaken(db, opening);
  await requireParties(ledger, opening);
  await requireInstruments(ledger, opening);
  const { offset, holdings } = await holdingsAtOneOffset(ledger, opening.swapParty);
  const reserveA = reserveOf(holdings, opening, opening.base);
  const reserveB = reserveOf(holdings, opening, opening.quote);
  const units = openingUnits(opening, reserveA, reserveB);
  return db.transaction(async (tx) => {
    // Checked again inside the transaction: another operator may have added it meanwhile.
    await refuseTaken(tx, opening);
    const pool = await insertPool(tx, {
      poolId: opening.poolId,
      tokenA: opening.base,
      tokenB: opening.quote,
      swapParty: opening.swapParty,
      lpParty: opening.lpParty,
      feeBps: opening.feeBps,
      lpSupply: units.supply,
      ...(opening.owner !== null && {
        openingPosition: { providerParty: opening.owner, units: units.ownerUnits },
      }),
      reserveA,
      reserveB,
      booksFromOffset: offset,
      createdAt: by.now,
    });
    await recordAdminAction(tx, {
      actor: by.actor,
      action: 'pools.add',
      subject: opening.poolId,
      details: {
        swapParty: opening.swapParty,
        lpParty: opening.lpParty,
        base: opening.base,
        quote: opening.quote,
        feeBps: opening.feeBps,
        owner: opening.owner,
        reserveA: pool.accounting.reserveA,
        reserveB: pool.accounting.reserveB,
        booksFromOffset: offset,
      },
      at: by.now,
    });
    return pool;
  });
}

async function refuseTaken(q: Queryable, opening: PoolOpening): Promise<void> {
  if ((await getPool(q, opening.poolId)) !== null) {
    throw new AdminError(
      'precondition_failed',
      `pool ${opening.poolId} exists already (choose another --pool-id)`,
    );
  }
  for (const pool of await listPools(q)) {
    // The books of a pool are the whole holdings of its swap party: two pools cannot share one.
    if (pool.swapParty === opening.swapParty) {
      throw new AdminError(
        'precondition_failed',
        `${opening.swapParty} is the swap party of pool ${pool.poolId} already: a swap party serves one pool`,
      );
    }
    const samePair =
      (sameInstrument(pool.tokenA, opening.base) && sameInstrument(pool.tokenB, opening.quote)) ||
      (sameInstrument(pool.tokenA, opening.quote) && sameInstrument(pool.tokenB, opening.base));
    if (samePair) {
      throw new AdminError(
        'precondition_failed',
        `pool ${pool.poolId} trades ${describeInstrument(opening.base)} and ${describeInstrument(opening.quote)} already`,
      );
    }
  }
}

async function requireParties(ledger: LedgerPort, opening: PoolOpening): Promise<void> {
  for (const [option, partyId] of [
    ['--swap-party', opening.swapParty],
    ['--lp-party', opening.lpParty],
  ] as const) {
    if ((await ledger.getParty(partyId)) === null) {
      throw new AdminError('not_found', `${option}: the ledger knows no party ${partyId}`);
    }
    // The swap party pays out and accepts deposit offers, the LP party forwards and returns
    // deposits: a party the service cannot act for would strand the first deposit sent to it.
    const right = await ledger.canActAs(partyId);
    if (!right.canAct) {
      throw new AdminError(
        'precondition_failed',
        `${option}: the service cannot act as ${partyId}: ${right.reason}`,
      );
    }
  }
}

async function requireInstruments(ledger: LedgerPort, opening: PoolOpening): Promise<void> {
  const known = await ledger.listInstruments();
  for (const [option, instrument] of [
    ['--base', opening.base],
    ['--quote', opening.quote],
  ] as const) {
    if (!known.some((each) => sameInstrument(each, instrument))) {
      throw new AdminError(
        'token_not_found',
        `${option}: the ledger's registries know no instrument ${describeInstrument(instrument)}`,
      );
    }
  }
}

/** The party's holdings and the ledger end they are the holdings at (no commit in between). */
async function holdingsAtOneOffset(
  ledger: LedgerPort,
  party: string,
): Promise<{ offset: number; holdings: readonly Holding[] }> {
  for (let attempt = 0; attempt < HOLDINGS_READ_ATTEMPTS; attempt += 1) {
    const offset = await ledger.ledgerEnd();
    const holdings = await ledger.getHoldings(party);
    if ((await ledger.ledgerEnd()) === offset) return { offset, holdings };
  }
  throw new AdminError(
    'ledger_unavailable',
    `the ledger kept committing while the holdings of ${party} were read; try again`,
  );
}

function reserveOf(
  holdings: readonly Holding[],
  opening: PoolOpening,
  instrument: Instrument,
): Amount {
  const of = holdings.filter((holding) => sameInstrument(holding.instrument, instrument));
  // A locked holding is a transfer in flight: it may come back or leave, so no reserve is known.
  if (of.some((holding) => holding.lock !== null)) {
    throw new AdminError(
      'precondition_failed',
      `${opening.swapParty} has ${describeInstrument(instrument)} locked in a pending transfer; settle or withdraw it first`,
    );
  }
  return Amount.sum(of.map((holding) => holding.amount));
}

/**
 * The opening supply and its owner's units: none for a swap party holding nothing (the first
 * liquidity intent prices the pool); both reserves and an owner for one that holds both.
 */
function openingUnits(opening: PoolOpening, reserveA: Amount, reserveB: Amount) {
  const empty = [reserveA, reserveB].filter((reserve) => !reserve.isPositive()).length;
  if (empty === 2) return openingLiquidity(Amount.ZERO, Amount.ZERO);
  if (empty === 1) {
    throw new AdminError(
      'precondition_failed',
      `${opening.swapParty} holds only one of ${describeInstrument(opening.base)} and ${describeInstrument(opening.quote)}; fund both, or neither for a pool its first liquidity prices`,
    );
  }
  if (opening.owner === null) {
    throw new AdminError(
      'validation_error',
      `${opening.swapParty} holds reserves already: give --owner <partyId>, the party credited with their liquidity units`,
    );
  }
  const units = openingLiquidity(reserveA, reserveB);
  if (!units.ownerUnits.isPositive()) {
    throw new AdminError(
      'first_deposit_too_small',
      'the reserves are too small to mint any units; fund the swap party with more',
    );
  }
  return units;
}

export function describeInstrument(instrument: Instrument): string {
  return `${instrument.id} (${instrument.admin})`;
}

/** The default pool id: the two symbols, e.g. `amulet-usdcx`. */
export function defaultPoolId(base: Instrument, quote: Instrument): string {
  return `${base.id}-${quote.id}`.toLowerCase().replace(/[^a-z0-9._~-]/g, '-');
}
