/**
 * Ledger offset checkpoints, one per ingested stream. Written in the same transaction as what
 * was ingested up to that offset, so a restart resumes exactly after the last committed work.
 */
import { read } from './columns.js';
import type { Queryable } from './database.js';

/** The checkpoint of `stream`, or null before its first. */
export async function getLedgerOffset(q: Queryable, stream: string): Promise<number | null> {
  const rows = await q.query('SELECT last_offset FROM ledger_offsets WHERE stream = $1', [stream]);
  return rows[0] ? read.safeInteger(rows[0].last_offset) : null;
}

/**
 * Moves the checkpoint to `offset`. Returns false, changing nothing, when the stored checkpoint
 * is already further: a checkpoint never moves backwards, which would re-ingest settled work.
 */
export async function setLedgerOffset(
  q: Queryable,
  stream: string,
  offset: number,
  now: Date,
): Promise<boolean> {
  if (!Number.isSafeInteger(offset) || offset < 0) {
    throw new RangeError(`offset must be a non-negative integer, got ${offset}`);
  }
  const rows = await q.query(
    `INSERT INTO ledger_offsets (stream, last_offset, updated_at) VALUES ($1, $2, $3)
     ON CONFLICT (stream) DO UPDATE SET last_offset = EXCLUDED.last_offset,
       updated_at = EXCLUDED.updated_at
     WHERE ledger_offsets.last_offset <= EXCLUDED.last_offset
     RETURNING stream`,
    [stream, offset, now],
  );
  return rows.length > 0;
}

/**
 * The checkpoint of `stream`, locked until the transaction ends, so that two ingesters never
 * apply the same update: the second waits, then sees the first one's checkpoint and skips.
 */
export async function lockCheckpoint(
  tx: Queryable,
  stream: string,
  initialOffset: number,
  now: Date,
): Promise<number> {
  // One statement: the row is created if missing, and either way locked and read (a conflict's
  // no-op update takes the row lock and returns the stored offset).
  const rows = await tx.query(
    `INSERT INTO ledger_offsets (stream, last_offset, updated_at) VALUES ($1, $2, $3)
     ON CONFLICT (stream) DO UPDATE SET last_offset = ledger_offsets.last_offset
     RETURNING last_offset`,
    [stream, initialOffset, now],
  );
  return read.safeInteger(rows[0]?.last_offset);
}

/**
 * Moves the checkpoint of `stream` to `through` (never backwards), locked until the transaction
 * ends, and answers where it stood before; null, changing nothing, when the stream has none yet
 * (`lockCheckpoint` creates it). One statement where `lockCheckpoint` and `setLedgerOffset`
 * take two: an ingest knows before it starts the last offset of its batch, and moves the
 * checkpoint there only if the updates above the old checkpoint are applied in the same
 * transaction. The old offset comes from the row locked in the subquery: an ingester that waited
 * for another's lock reads the offset that one committed, so it never applies an update twice.
 */
export async function advanceCheckpoint(
  tx: Queryable,
  stream: string,
  through: number,
  now: Date,
): Promise<number | null> {
  if (!Number.isSafeInteger(through) || through < 0) {
    throw new RangeError(`offset must be a non-negative integer, got ${through}`);
  }
  const rows = await tx.query(
    `UPDATE ledger_offsets o
        SET last_offset = GREATEST(prior.last_offset, $2), updated_at = $3
       FROM (SELECT stream, last_offset FROM ledger_offsets WHERE stream = $1 FOR UPDATE) prior
      WHERE o.stream = prior.stream
     RETURNING prior.last_offset AS prior`,
    [stream, through, now],
  );
  return rows[0] === undefined ? null : read.safeInteger(rows[0].prior);
}
