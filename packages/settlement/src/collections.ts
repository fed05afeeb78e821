/**
 * Developer collections: the developer's accrued earnings (half of each charged platform fee,
 * docs/spec/portal.md#collections) of one pool and instrument leave the pool's swap party for the
 * developer's party, as a `collect` ledger command under the rules of every other leg.
 *
 * Exactly once:
 * - one transaction takes the pool's lock, reads what is collectable (earnings of completed swaps
 *   less every collection not returned), and records the collection, its command and the books'
 *   move (`fees` → `outgoing`, the amount is promised away but still held) — before anything is
 *   submitted. A concurrent collect of the same pool waits for the lock and then finds nothing
 *   left, so two requests can never both pay, and no collection exceeds what accrued;
 * - the command id is `<collectionId>:collect:0`, submitted by the engine like a payout, so the
 *   ledger deduplicates a resubmission after a crash, and recovery looks it up before anything;
 * - the update stream confirms it (ingest.ts): the collection ends `collected` with the update
 *   id, and `outgoing` gives the amount up as the holdings left with it. A transfer that became
 *   an offer waits for the developer (`offered`); an offer rejected, withdrawn or expired, or a
 *   command the ledger kept refusing, returns the amount to `fees` and to what is collectable.
 * Every outcome applies under the pool's lock and only if the collection leaves the state it
 * waited in, so a second delivery moves nothing.
 */
import { randomBytes } from 'node:crypto';
import {
  Amount,
  collectionReturned,
  collectionSetAside,
  DomainError,
  type Instrument,
  sideOf,
  transferArrived,
} from '@poolparty/core';
import type { Database, EngineCommand, PoolRecord, Queryable } from '@poolparty/store';
import {
  type CollectionRecord,
  collectableEarnings,
  commandIdOf,
  getPool,
  insertCollection,
  moveCollection,
} from '@poolparty/store';
import { AccountingError, lockPool, moveBalances, type Side } from './accounting.js';
import { recordTransfer, type TransferPayload, transferPayloadOf } from './legs.js';

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
    const amount = Amount.parse(await collectableEarnings(tx, developerParty, poolId, side));
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
      amount: amount.toString(),
      commandId: commandIdOf(collectionId, 'collect', 0),
      createdAt: now,
    });
    const payload: TransferPayload = {
      kind: 'transfer',
      poolId,
      side,
      sender: pool.swapParty,
      receiver: developerParty,
      instrument,
      amount: amount.toString(),
      reason: collectionReason(collectionId),
    };
    const subject = { intentId: null, depositId: null, collectionId };
    await recordTransfer(tx, subject, 'collect', payload, now);
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
 * Moves the amount from the side's fees to outgoing, where it waits for the transfer; refused
 * when the fees set aside do not cover it now (an operator can tell why).
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
    await moveBalances(tx, poolId, collectionSetAside(side, amount), now);
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

/** The collect transfer became an offer: the developer accepts it in their wallet. */
export async function collectionOffered(
  tx: Queryable,
  command: EngineCommand,
  offer: { readonly offerId: string; readonly expiresAt: Date },
  now: Date,
): Promise<void> {
  if (command.collectionId === null || command.collectionId === undefined) return;
  const payload = transferPayloadOf(command);
  if (payload.poolId !== null) await lockPool(tx, payload.poolId);
  await moveCollection(tx, {
    collectionId: command.collectionId,
    from: ['pending'],
    to: 'offered',
    offer,
    now,
  });
}

/**
 * The collected amount arrived at the developer's party. `feesBurned`: what the swap party paid
 * beyond the amount (Amulet's transfer fees), paid from the fees it set aside.
 */
export async function finishCollection(
  tx: Queryable,
  command: EngineCommand,
  transfer: { readonly updateId: string; readonly feesBurned: Amount },
  now: Date,
): Promise<void> {
  if (command.collectionId === null || command.collectionId === undefined) return;
  const payload = transferPayloadOf(command);
  if (payload.poolId === null || payload.side === null) return;
  const books = await lockPool(tx, payload.poolId);
  const collected = await moveCollection(tx, {
    collectionId: command.collectionId,
    from: ['pending', 'offered'],
    to: 'collected',
    updateId: transfer.updateId,
    now,
  });
  if (collected === null) return;
  const amount = Amount.parse(payload.amount);
  const movements = transferArrived(books, payload.side, amount, transfer.feesBurned);
  await moveBalances(tx, payload.poolId, movements, now);
}

/**
 * The amount never reached the developer (the ledger kept refusing the command, or the offer was
 * rejected, withdrawn or expired): it is back among the fees, and collectable again.
 */
export async function returnCollection(
  tx: Queryable,
  command: EngineCommand,
  error: string,
  now: Date,
): Promise<void> {
  if (command.collectionId === null || command.collectionId === undefined) return;
  const payload = transferPayloadOf(command);
  if (payload.poolId === null || payload.side === null) return;
  await lockPool(tx, payload.poolId);
  const returned = await moveCollection(tx, {
    collectionId: command.collectionId,
    from: ['pending', 'offered'],
    to: 'returned',
    error,
    now,
  });
  if (returned === null) return;
  const amount = Amount.parse(payload.amount);
  await moveBalances(tx, payload.poolId, collectionReturned(payload.side, amount), now);
}
