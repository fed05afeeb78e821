/**
 * Developer collections (migration 0009): a developer's accrued earnings of one pool and
 * instrument, on their way to (or arrived at) the developer's party. The rows are written by
 * engine/collections.ts only, under the pool's lock, so the amounts they reserve and the books
 * always move together.
 */
import type { Instrument } from '@poolparty/core';
import {
  amountParam,
  readAmount,
  readDate,
  readDateOrNull,
  readString,
  readStringOrNull,
} from './columns.js';
import type { Queryable, Row } from './database.js';
import type { PoolSide } from './fee-events.js';

/**
 * `pending`: recorded, the ledger has not confirmed it; `offered`: the transfer became an offer
 * the developer must accept; `collected`: the amount arrived; `returned`: it never left the swap
 * party, or came back, and counts as accrued again.
 */
export type CollectionStatus = 'pending' | 'offered' | 'collected' | 'returned';

export interface NewCollection {
  readonly collectionId: string;
  readonly developerParty: string;
  readonly poolId: string;
  readonly side: PoolSide;
  readonly instrument: Instrument;
  readonly amount: string;
  readonly commandId: string;
  readonly createdAt: Date;
}

export interface CollectionRecord extends NewCollection {
  readonly status: CollectionStatus;
  readonly updateId: string | null;
  readonly offerId: string | null;
  readonly offerExpiresAt: Date | null;
  readonly error: string | null;
  readonly settledAt: Date | null;
}

function collectionFromRow(row: Row): CollectionRecord {
  return {
    collectionId: readString(row.collection_id),
    developerParty: readString(row.developer_party),
    poolId: readString(row.pool_id),
    side: readString(row.side) as PoolSide,
    instrument: { id: readString(row.instrument_id), admin: readString(row.instrument_admin) },
    amount: readAmount(row.amount),
    status: readString(row.status) as CollectionStatus,
    commandId: readString(row.command_id),
    updateId: readStringOrNull(row.update_id),
    offerId: readStringOrNull(row.offer_id),
    offerExpiresAt: readDateOrNull(row.offer_expires_at),
    error: readStringOrNull(row.error),
    createdAt: readDate(row.created_at),
    settledAt: readDateOrNull(row.settled_at),
  };
}

export async function insertCollection(
  q: Queryable,
  collection: NewCollection,
): Promise<CollectionRecord> {
  const rows = await q.query(
    `INSERT INTO developer_collections (collection_id, developer_party, pool_id, side,
       instrument_id, instrument_admin, amount, status, command_id, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, 'pending', $8, $9)
     RETURNING *`,
    [
      collection.collectionId,
      collection.developerParty,
      collection.poolId,
      collection.side,
      collection.instrument.id,
      collection.instrument.admin,
      amountParam(collection.amount),
      collection.commandId,
      collection.createdAt,
    ],
  );
  return collectionFromRow(rows[0] as Row);
}

export async function getCollection(
  q: Queryable,
  collectionId: string,
): Promise<CollectionRecord | null> {
  const rows = await q.query('SELECT * FROM developer_collections WHERE collection_id = $1', [
    collectionId,
  ]);
  return rows[0] ? collectionFromRow(rows[0]) : null;
}

/** The developer's collections, newest first. */
export async function listCollections(
  q: Queryable,
  developerParty: string,
  limit: number,
): Promise<CollectionRecord[]> {
  const rows = await q.query(
    `SELECT * FROM developer_collections WHERE developer_party = $1
     ORDER BY created_at DESC, collection_id DESC LIMIT $2`,
    [developerParty, limit],
  );
  return rows.map(collectionFromRow);
}

/**
 * Moves a collection from one of `from` to `to`, with the facts of that step. Null when it was
 * elsewhere: a second delivery of the same outcome changes nothing.
 */
export async function moveCollection(
  q: Queryable,
  input: {
    readonly collectionId: string;
    readonly from: readonly CollectionStatus[];
    readonly to: CollectionStatus;
    readonly updateId?: string;
    readonly offer?: { readonly offerId: string; readonly expiresAt: Date };
    readonly error?: string;
    readonly now: Date;
  },
): Promise<CollectionRecord | null> {
  const settles = input.to === 'collected' || input.to === 'returned';
  const rows = await q.query(
    `UPDATE developer_collections SET status = $3, update_id = COALESCE($4, update_id),
       offer_id = COALESCE($5, offer_id), offer_expires_at = COALESCE($6, offer_expires_at),
       error = COALESCE($7, error), settled_at = CASE WHEN $8 THEN $9 ELSE settled_at END
     WHERE collection_id = $1 AND status = ANY($2::text[])
     RETURNING *`,
    [
      input.collectionId,
      [...input.from],
      input.to,
      input.updateId ?? null,
      input.offer?.offerId ?? null,
      input.offer?.expiresAt ?? null,
      input.error ?? null,
      settles,
      input.now,
    ],
  );
  return rows[0] ? collectionFromRow(rows[0]) : null;
}
