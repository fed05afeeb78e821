/**
 * Idempotency records of `POST /v1/swaps` (docs/spec/protocol.md#idempotency): per API key and
 * `Idempotency-Key`, the first response is kept for 24 h and replayed to a retry with the same
 * body.
 */
import { jsonParam, readDate, readSafeInteger, readString } from './columns.js';
import type { Queryable, Row } from './database.js';

export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;

export interface IdempotencyRecord {
  readonly apiKeyId: string;
  readonly key: string;
  /** A hash of the request body: the same key with another body is refused (422). */
  readonly requestHash: string;
  readonly responseStatus: number;
  readonly responseBody: unknown;
  readonly createdAt: Date;
}

const RECORD_COLUMNS = 'api_key_id, key, request_hash, response_status, response_body, created_at';

function recordFromRow(row: Row): IdempotencyRecord {
  return {
    apiKeyId: readString(row.api_key_id),
    key: readString(row.key),
    requestHash: readString(row.request_hash),
    responseStatus: readSafeInteger(row.response_status),
    responseBody: row.response_body,
    createdAt: readDate(row.created_at),
  };
}

function retainedSince(now: Date): Date {
  return new Date(now.getTime() - IDEMPOTENCY_RETENTION_MS);
}

/** The record still within retention at `now`, or null. */
export async function getIdempotencyRecord(
  q: Queryable,
  apiKeyId: string,
  key: string,
  now: Date,
): Promise<IdempotencyRecord | null> {
  const rows = await q.query(
    `SELECT ${RECORD_COLUMNS} FROM idempotency_records
     WHERE api_key_id = $1 AND key = $2 AND created_at > $3`,
    [apiKeyId, key, retainedSince(now)],
  );
  return rows[0] ? recordFromRow(rows[0]) : null;
}

/**
 * Stores the record unless a live one exists for the key (an expired one is replaced). Returns
 * the record in force afterwards: the caller's, or the one a concurrent request stored first.
 */
export async function putIdempotencyRecord(
  q: Queryable,
  record: IdempotencyRecord,
): Promise<IdempotencyRecord> {
  const rows = await q.query(
    `INSERT INTO idempotency_records (${RECORD_COLUMNS}) VALUES ($1, $2, $3, $4, $5::jsonb, $6)
     ON CONFLICT (api_key_id, key) DO UPDATE SET request_hash = EXCLUDED.request_hash,
       response_status = EXCLUDED.response_status, response_body = EXCLUDED.response_body,
       created_at = EXCLUDED.created_at
     WHERE idempotency_records.created_at <= $7
     RETURNING ${RECORD_COLUMNS}`,
    [
      record.apiKeyId,
      record.key,
      record.requestHash,
      record.responseStatus,
      jsonParam(record.responseBody),
      record.createdAt,
      retainedSince(record.createdAt),
    ],
  );
  if (rows[0]) return recordFromRow(rows[0]);
  const live = await getIdempotencyRecord(q, record.apiKeyId, record.key, record.createdAt);
  if (!live) throw new Error(`idempotency record ${record.key} vanished while being stored`);
  return live;
}

/** Deletes up to `limit` records past retention at `now`; returns how many. */
export async function purgeIdempotencyRecords(
  q: Queryable,
  now: Date,
  limit: number,
): Promise<number> {
  const rows = await q.query(
    `DELETE FROM idempotency_records WHERE (api_key_id, key) IN (
       SELECT api_key_id, key FROM idempotency_records WHERE created_at <= $1
       ORDER BY created_at LIMIT $2
     ) RETURNING key`,
    [retainedSince(now), limit],
  );
  return rows.length;
}
