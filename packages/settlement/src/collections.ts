/**
 * Developer collections: the developer's accrued earnings (half of each charged platform fee,
 * docs/spec/portal.md#collections) of one pool and instrument leave the pool's swap party for the
 * developer's party, as a `collect` ledger command: fees set aside and sent (fee-transfers.ts).
 *
 * Exactly once: one transaction takes the pool's lock, reads what is collectable (earnings of
 * completed swaps less every collection not returned), and records the collection, its command
 * (`<collectionId>:collect:0`) and the books' move before anything is submitted. A concurrent
 * collect of the same pool waits for the lock and then finds nothing left, so two requests can
 * never both pay, and no collection exceeds what accrued. The collection ends `collected`, or
 * `returned` and collectable again, as fee-transfers.ts tells.
 */
import { randomBytes } from 'node:crypto';
import { type Amount, DomainError, type Instrument, sideOf } from '@poolparty/core';
import type { Database, PoolRecord, Queryable } from '@poolparty/store';
import {
  COLLECTION_TRANSFERS,
  type CollectionRecord,
  collectableEarnings,
  commandIdOf,
  getPool,
  insertCollection,
} from '@poolparty/store';
import { AccountingError, lockPool, type Side } from './accounting.js';
import {
  type FeeTransferKind,
  feeTransferSteps,
  sendSetAsideFees,
  setAsideFees,
} from './fee-transfers.js';

const COLLECTION_ID_BYTES = 12;

/** Why a collection cannot be recorded, as the catalogue code a client is answered with. */
export type CollectionRefusal =
  | 'pool_not_found'
  | 'token_not_found'
  | 'nothing_to_collect'
  | 'collection_unavailable';

/** A collection that cannot be recorded; the HTTP layer answers it as any domain refusal. */
export class CollectionRefused extends DomainError<CollectionRefusal> {
  override name = 'CollectionRefused';
}

/** The transfer reason a collection carries on the ledger. */
export function collectionReason(collectionId: string): string {
  return `collect:${collectionId}`;
}

/** A collection's transfer, from set-aside to its end (fee-transfers.ts). */
const COLLECTIONS: FeeTransferKind<'collected'> = {
  leg: 'collect',
  rows: COLLECTION_TRANSFERS,
  idOf: (command) => command.collectionId,
  subjectOf: (collectionId) => ({ intentId: null, depositId: null, collectionId }),
  reasonOf: collectionReason,
};

/**
 * Records a collection of everything the developer can collect from the pool's `instrument`.
 * The engine submits it; its confirmation on the update stream settles it.
 */
export async function recordCollection(
  db: Database,
  input: {
    readonly developerParty: string;
    readonly poolId: string;
    readonly instrument: Instrument;
    readonly now: Date;
  },
): Promise<CollectionRecord> {
  const { developerParty, poolId, instrument, now } = input;
  return db.transaction(async (tx) => {
    const { pool, side } = collectedSide(await getPool(tx, poolId), poolId, instrument);
    // The lock first, then the reading: whoever reads after us sees our collection.
    await lockPool(tx, poolId);
    const amount = await collectableEarnings(tx, developerParty, poolId, side);
    if (!amount.isPositive()) {
      throw new CollectionRefused(
        'nothing_to_collect',
        `No earnings of ${instrument.id} in pool ${poolId} are left to collect.`,
      );
    }
    const collectionId = `col_${randomBytes(COLLECTION_ID_BYTES).toString('base64url')}`;
    await setAside(tx, poolId, side, amount, instrument, now);
    const collection = await insertCollection(tx, {
      collectionId,
      developerParty,
      poolId,
      side,
      instrument,
      amount: amount,
      commandId: commandIdOf(collectionId, 'collect', 0),
      createdAt: now,
    });
    const transfer = { poolId, side, swapParty: pool.swapParty, receiver: developerParty };
    await sendSetAsideFees(tx, COLLECTIONS, collectionId, { ...transfer, instrument, amount }, now);
    return collection;
  });
}

/** The pool and its side that trades `instrument`; refuses an unknown pool or instrument. */
function collectedSide(
  pool: PoolRecord | null,
  poolId: string,
  instrument: Instrument,
): { readonly pool: PoolRecord; readonly side: Side } {
  if (pool === null) throw new CollectionRefused('pool_not_found', `No pool ${poolId}.`);
  const matches = (side: Instrument) =>
    side.id === instrument.id && side.admin === instrument.admin;
  if (!matches(pool.tokenA) && !matches(pool.tokenB)) {
    throw new CollectionRefused(
      'token_not_found',
      `Pool ${poolId} does not trade ${instrument.id} of ${instrument.admin}.`,
    );
  }
  return { pool, side: sideOf(pool, instrument) };
}

/**
 * Sets the amount aside from the side's fees; refused when the fees set aside do not cover it now
 * (an operator can tell why).
 */
async function setAside(
  tx: Queryable,
  poolId: string,
  side: Side,
  amount: Amount,
  instrument: Instrument,
  now: Date,
): Promise<void> {
  try {
    await setAsideFees(tx, poolId, side, amount, now);
  } catch (error) {
    if (!(error instanceof AccountingError)) throw error;
    throw new CollectionRefused(
      'collection_unavailable',
      `The fees pool ${poolId} set aside in ${instrument.id} do not cover ${amount} now; an operator can tell why.`,
      {},
      { cause: error },
    );
  }
}

const steps = feeTransferSteps(COLLECTIONS);

/** The collect transfer became an offer: the developer accepts it in their wallet. */
export const collectionOffered = steps.offered;

/** The collected amount arrived at the developer's party; what it burned is paid from the fees. */
export const finishCollection = steps.arrived;

/** The amount never reached the developer: it is back among the fees, and collectable again. */
export const returnCollection = steps.returned;
