/**
 * Developer collections (migration 0009): a developer's accrued earnings of one pool and
 * instrument, on their way to (or arrived at) the developer's party. The rows are written by
 * engine/collections.ts only, under the pool's lock, so the amounts they reserve and the books
 * always move together.
 */
import type { Amount, Instrument } from '@poolparty/core';
import { amountParam, read } from './columns.js';
import type { Queryable, Row } from './database.js';
import type { PoolSide } from './fee-events.js';
import {
  type FeeTransferProgress,
  type FeeTransferState,
  type FeeTransferTable,
  feeTransferProgressOf,
} from './fee-transfers.js';

/**
 * A collection's transfer (fee-transfers.ts) ends `collected`; one `returned` counts as accrued
 * again.
 */
export type CollectionStatus = FeeTransferState<'collected'>;

export interface NewCollection {
  readonly collectionId: string;
  readonly developerParty: string;
  readonly poolId: string;
  readonly side: PoolSide;
  readonly instrument: Instrument;
  readonly amount: Amount;
  readonly commandId: string;
  readonly createdAt: Date;
}

export interface CollectionRecord extends NewCollection, FeeTransferProgress<'collected'> {}

function collectionFromRow(row: Row): CollectionRecord {
  return {
    collectionId: read.string(row.collection_id),
    developerParty: read.string(row.developer_party),
    poolId: read.string(row.pool_id),
    side: read.string(row.side) as PoolSide,
    instrument: { id: read.string(row.instrument_id), admin: read.string(row.instrument_admin) },
    amount: read.amount(row.amount),
    ...feeTransferProgressOf<'collected'>(row),
  };
}

/** The collections' rows, for the steps of their transfers (`moveFeeTransfer`). */
export const COLLECTION_TRANSFERS: FeeTransferTable<CollectionRecord, 'collected'> = {
  table: 'developer_collections',
  idColumn: 'collection_id',
  arrived: 'collected',
  fromRow: collectionFromRow,
};

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
