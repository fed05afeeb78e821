/**
 * Idempotency records (docs/spec/protocol.md#idempotency): per principal (`scope`) and
 * `Idempotency-Key`, first a claim taken before the request runs, then the response it stored,
 * kept for 24 h and replayed to a retry of the same request.
 *
 * The claim is one `INSERT … ON CONFLICT` statement: on PostgreSQL two processes claiming one key
 * at once meet at the primary key, the second waits for the first's row and finds it taken, so
 * only one request runs. A claim whose request never finished (its process died) holds its key
 * for the whole retention: whether that request took effect is not known, so it is never run a
 * second time under the key (the service tells such a claim from a running one by its age,
 * `IDEMPOTENCY_CLAIM_RUNNING_MS`).
 */
import { jsonParam, read } from './columns.js';
import type { Queryable, Row } from './database.js';
import { causedByConnectionLoss } from './unavailable.js';

/** How long a stored response is replayed. */
export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;
/**
 * How long a claim counts as its request still running: four times the SDK's 30 s attempt
 * timeout. An older claim that neither stored a response nor gave the key back is a request that
 * was interrupted (its process died): it keeps its key, and a retry is told so.
 */
export const IDEMPOTENCY_CLAIM_RUNNING_MS = 2 * 60 * 1000;
/** Claims tried while the row in the way disappears between two statements (given back, purged). */
const CLAIM_ATTEMPTS_MAX = 3;
/**
 * Sends of a claim's statement whose connection was lost under it. Each names the claim's own
 * token, so a second send finds what the first did if it committed: a claim already taken is
 * the request's own, a key already given back stays given back.
 */
const SENDS_ON_CONNECTION_LOSS_MAX = 3;

async function sentAgainOnConnectionLoss<T>(send: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await send();
    } catch (error) {
      if (attempt >= SENDS_ON_CONNECTION_LOSS_MAX || !causedByConnectionLoss(error)) throw error;
    }
  }
}

export interface StoredResponse {
  readonly status: number;
  readonly body: unknown;
}

export interface IdempotencyRecord {
  /** Whose key it is: `api_key:<keyId>` or `developer:<party>`. */
  readonly scope: string;
  readonly key: string;
  /** A hash of the request: the same key with another request is refused (422). */
  readonly requestHash: string;
  /** Null while the claiming request runs. */
  readonly response: StoredResponse | null;
  /** The claim that wrote the row; null on rows stored before claims existed. */
  readonly claimToken: string | null;
  /** When the claim was taken, or when the response was stored. */
  readonly createdAt: Date;
}

/** A request's claim on a key. */
export interface IdempotencyClaim {
  readonly scope: string;
  readonly key: string;
  readonly requestHash: string;
  /** Unguessable and new per request: only the request that claimed a key settles it. */
  readonly claimToken: string;
  readonly at: Date;
}

export type ClaimHandle = Pick<IdempotencyClaim, 'scope' | 'key' | 'claimToken'>;

const RECORD_COLUMNS =
  'scope, key, request_hash, response_status, response_body, claim_token, created_at';

function recordFromRow(row: Row): IdempotencyRecord {
  const status = read.integerOrNull(row.response_status);
  return {
    scope: read.string(row.scope),
    key: read.string(row.key),
    requestHash: read.string(row.request_hash),
    response: status === null ? null : { status, body: row.response_body },
    claimToken: read.stringOrNull(row.claim_token),
    createdAt: read.date(row.created_at),
  };
}

/** Before this time a claim or a response is no longer kept. */
function retainedSince(now: Date): Date {
  return new Date(now.getTime() - IDEMPOTENCY_RETENTION_MS);
}

/** The record in force for the key at `now`, or null. */
export async function getIdempotencyRecord(
  q: Queryable,
  scope: string,
  key: string,
  now: Date,
): Promise<IdempotencyRecord | null> {
  const rows = await q.query(
    `SELECT ${RECORD_COLUMNS} FROM idempotency_records
     WHERE scope = $1 AND key = $2 AND created_at > $3`,
    [scope, key, retainedSince(now)],
  );
  return rows[0] ? recordFromRow(rows[0]) : null;
}

/**
 * Claims the key for a request, unless a record in force holds it (one past retention, claim or
 * response, is replaced). `takeOverUnansweredBefore`: a claim of the same request with no answer,
 * taken before then, is taken over too — for a route whose answer is stored with its effect,
 * fenced by the claim's token, so the request that lost its claim cannot commit. Returns the record in force afterwards: the caller's claim (its
 * `claimToken`), or what another request claimed or stored first.
 */
export async function claimIdempotencyKey(
  q: Queryable,
  claim: IdempotencyClaim,
  options: { readonly takeOverUnansweredBefore?: Date } = {},
): Promise<IdempotencyRecord> {
  const retained = retainedSince(claim.at);
  const takeOverBefore = options.takeOverUnansweredBefore ?? null;
  for (let attempt = 1; attempt <= CLAIM_ATTEMPTS_MAX; attempt += 1) {
    const claimed = await sentAgainOnConnectionLoss(() =>
      q.query(
        `INSERT INTO idempotency_records (scope, key, request_hash, claim_token, created_at)
         VALUES ($1, $2, $4, $5, $6)
         ON CONFLICT (scope, key) DO UPDATE SET request_hash = EXCLUDED.request_hash,
           claim_token = EXCLUDED.claim_token, created_at = EXCLUDED.created_at,
           response_status = NULL, response_body = NULL
         WHERE idempotency_records.created_at <= $3
            OR (idempotency_records.response_status IS NULL
                AND idempotency_records.created_at <= $7
                AND idempotency_records.request_hash = EXCLUDED.request_hash)
         RETURNING ${RECORD_COLUMNS}`,
        [
          claim.scope,
          claim.key,
          retained,
          claim.requestHash,
          claim.claimToken,
          claim.at,
          takeOverBefore,
        ],
      ),
    );
    if (claimed[0]) return recordFromRow(claimed[0]);
    // Another request holds the key. A new statement sees what it committed; if it gave the key
    // back (or a purge took the row) meanwhile, claim again.
    const holder = await getIdempotencyRecord(q, claim.scope, claim.key, claim.at);
    if (holder !== null) return holder;
  }
  throw new Error(`idempotency key ${claim.key} changed hands ${CLAIM_ATTEMPTS_MAX} times`);
}

/**
 * Stores the response of the claim's request; false when the claim is no longer its own (it
 * outlived the retention and another request took the key).
 */
export async function completeIdempotencyClaim(
  q: Queryable,
  claim: ClaimHandle,
  response: StoredResponse,
  at: Date,
): Promise<boolean> {
  const rows = await q.query(
    `UPDATE idempotency_records SET response_status = $4, response_body = $5::jsonb,
       created_at = $6
     WHERE scope = $1 AND key = $2 AND claim_token = $3 AND response_status IS NULL
     RETURNING key`,
    [claim.scope, claim.key, claim.claimToken, response.status, jsonParam(response.body), at],
  );
  return rows.length > 0;
}

/** Gives the key back: its request stored nothing, so a retry is judged afresh. */
export async function releaseIdempotencyClaim(q: Queryable, claim: ClaimHandle): Promise<void> {
  await sentAgainOnConnectionLoss(() =>
    q.query(
      `DELETE FROM idempotency_records
       WHERE scope = $1 AND key = $2 AND claim_token = $3 AND response_status IS NULL`,
      [claim.scope, claim.key, claim.claimToken],
    ),
  );
}

/** Deletes up to `limit` records past retention at `now`; returns how many. */
export async function purgeIdempotencyRecords(
  q: Queryable,
  now: Date,
  limit: number,
): Promise<number> {
  const rows = await q.query(
    `DELETE FROM idempotency_records WHERE (scope, key) IN (
       SELECT scope, key FROM idempotency_records WHERE created_at <= $1
       ORDER BY created_at LIMIT $2
     ) RETURNING key`,
    [retainedSince(now), limit],
  );
  return rows.length;
}
