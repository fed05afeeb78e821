/**
 * Developer API keys (docs/spec/auth.md#developer-keys). The store never sees a key, only its
 * SHA-256 (lowercase hex) and the first characters for display. A rotated key keeps working until
 * `revokesAt`; a revoked key stops at once.
 */
import type { Environment } from '@poolparty/core';
import {
  readDate,
  readDateOrNull,
  readIntegerOrNull,
  readSafeInteger,
  readString,
  readStringOrNull,
} from './columns.js';
import type { Database, Queryable, Row } from './database.js';
import { type DeveloperRecord, developerFromRow } from './developers.js';

/** How long a rotated key keeps working. */
export const ROTATION_GRACE_MS = 24 * 60 * 60 * 1000;

export interface ApiKeyRecord {
  readonly keyId: string;
  readonly developerParty: string;
  readonly name: string;
  readonly prefix: string;
  readonly environment: Environment;
  readonly createdAt: Date;
  readonly lastUsedAt: Date | null;
  readonly revokedAt: Date | null;
  readonly revokesAt: Date | null;
  readonly replacedBy: string | null;
  readonly requestCount: number;
  /** Per-key limits; null means the service default. */
  readonly readsPerMin: number | null;
  readonly swapsPerMin: number | null;
}

export interface ApiKeyWithDeveloper extends ApiKeyRecord {
  readonly developer: DeveloperRecord;
}

export interface NewApiKey {
  readonly keyId: string;
  readonly developerParty: string;
  readonly name: string;
  readonly keyHash: string;
  readonly prefix: string;
  readonly environment: Environment;
  readonly createdAt: Date;
}

const KEY_COLUMNS = `k.key_id, k.developer_party, k.name, k.prefix, k.environment, k.created_at,
  k.last_used_at, k.revoked_at, k.revokes_at, k.replaced_by, k.request_count, k.reads_per_min,
  k.swaps_per_min`;

function apiKeyFromRow(row: Row): ApiKeyRecord {
  return {
    keyId: readString(row.key_id),
    developerParty: readString(row.developer_party),
    name: readString(row.name),
    prefix: readString(row.prefix),
    environment: readString(row.environment) as Environment,
    createdAt: readDate(row.created_at),
    lastUsedAt: readDateOrNull(row.last_used_at),
    revokedAt: readDateOrNull(row.revoked_at),
    revokesAt: readDateOrNull(row.revokes_at),
    replacedBy: readStringOrNull(row.replaced_by),
    requestCount: readSafeInteger(row.request_count),
    readsPerMin: readIntegerOrNull(row.reads_per_min),
    swapsPerMin: readIntegerOrNull(row.swaps_per_min),
  };
}

/** Whether the key may authenticate a request at `now`. */
export function isApiKeyUsable(key: ApiKeyRecord, now: Date): boolean {
  if (key.revokedAt !== null && key.revokedAt <= now) return false;
  return key.revokesAt === null || now < key.revokesAt;
}

/** When the key stopped (or will stop) working, as the portal lists it. */
export function apiKeyEndsAt(key: ApiKeyRecord): Date | null {
  if (key.revokedAt !== null && key.revokesAt !== null) {
    return new Date(Math.min(key.revokedAt.getTime(), key.revokesAt.getTime()));
  }
  return key.revokedAt ?? key.revokesAt;
}

export async function insertApiKey(q: Queryable, key: NewApiKey): Promise<ApiKeyRecord> {
  const rows = await q.query(
    `INSERT INTO api_keys AS k
       (key_id, developer_party, name, key_hash, prefix, environment, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7)
     RETURNING ${KEY_COLUMNS}`,
    [
      key.keyId,
      key.developerParty,
      key.name,
      key.keyHash,
      key.prefix,
      key.environment,
      key.createdAt,
    ],
  );
  return apiKeyFromRow(rows[0] as Row);
}

/**
 * How many of the developer's keys are active: neither revoked nor rotated. A rotated key still
 * works through its grace period, but its successor holds its place.
 */
export async function countActiveApiKeys(q: Queryable, developerParty: string): Promise<number> {
  const rows = await q.query(
    `SELECT count(*) AS active FROM api_keys
     WHERE developer_party = $1 AND revoked_at IS NULL AND revokes_at IS NULL`,
    [developerParty],
  );
  return Number(rows[0]?.active ?? 0);
}

/**
 * Creates `key` unless its developer already has `activeMax` active keys; null then. The
 * developer's row is locked first, so concurrent creations are counted one after the other and
 * never pass the cap together.
 */
export async function insertApiKeyWithinCap(
  db: Database,
  key: NewApiKey,
  activeMax: number,
): Promise<ApiKeyRecord | null> {
  return db.transaction(async (tx) => {
    await tx.query('SELECT party_id FROM developers WHERE party_id = $1 FOR UPDATE', [
      key.developerParty,
    ]);
    if ((await countActiveApiKeys(tx, key.developerParty)) >= activeMax) return null;
    return insertApiKey(tx, key);
  });
}

/** The key with this hash and its developer, whatever its state; check `isApiKeyUsable`. */
export async function findApiKeyByHash(
  q: Queryable,
  keyHash: string,
): Promise<ApiKeyWithDeveloper | null> {
  const rows = await q.query(
    `SELECT ${KEY_COLUMNS}, d.party_id, d.created_at AS developer_created_at
     FROM api_keys k JOIN developers d ON d.party_id = k.developer_party
     WHERE k.key_hash = $1`,
    [keyHash],
  );
  const row = rows[0];
  if (!row) return null;
  const developer = developerFromRow({
    party_id: row.party_id,
    created_at: row.developer_created_at,
  });
  return { ...apiKeyFromRow(row), developer };
}

export async function getApiKey(q: Queryable, keyId: string): Promise<ApiKeyRecord | null> {
  const rows = await q.query(`SELECT ${KEY_COLUMNS} FROM api_keys k WHERE k.key_id = $1`, [keyId]);
  return rows[0] ? apiKeyFromRow(rows[0]) : null;
}

/** The developer's keys, newest first. */
export async function listApiKeys(q: Queryable, developerParty: string): Promise<ApiKeyRecord[]> {
  const rows = await q.query(
    `SELECT ${KEY_COLUMNS} FROM api_keys k WHERE k.developer_party = $1
     ORDER BY k.created_at DESC, k.key_id DESC`,
    [developerParty],
  );
  return rows.map(apiKeyFromRow);
}

/** Revokes the developer's key at `now`; null when it is not theirs or already revoked. */
export async function revokeApiKey(
  q: Queryable,
  input: { readonly keyId: string; readonly developerParty: string; readonly now: Date },
): Promise<ApiKeyRecord | null> {
  const rows = await q.query(
    `UPDATE api_keys AS k SET revoked_at = $3
     WHERE k.key_id = $1 AND k.developer_party = $2 AND k.revoked_at IS NULL
     RETURNING ${KEY_COLUMNS}`,
    [input.keyId, input.developerParty, input.now],
  );
  return rows[0] ? apiKeyFromRow(rows[0]) : null;
}

export interface ApiKeyRotation {
  readonly oldKeyId: string;
  readonly newKey: NewApiKey;
  readonly now: Date;
  readonly graceMs?: number;
}

/**
 * Creates `newKey` as the successor of `oldKeyId`, which keeps working for the grace period.
 * One statement, so the old key is never left without a successor or the other way round.
 * Null when the old key is not the developer's, is revoked, or was already rotated.
 */
export async function rotateApiKey(
  q: Queryable,
  rotation: ApiKeyRotation,
): Promise<ApiKeyRecord | null> {
  const { oldKeyId, newKey, now } = rotation;
  const revokesAt = new Date(now.getTime() + (rotation.graceMs ?? ROTATION_GRACE_MS));
  const rows = await q.query(
    `WITH old AS (
       SELECT key_id FROM api_keys
       WHERE key_id = $1 AND developer_party = $3 AND revoked_at IS NULL AND revokes_at IS NULL
       FOR UPDATE
     ), created AS (
       INSERT INTO api_keys AS k
         (key_id, developer_party, name, key_hash, prefix, environment, created_at)
       SELECT $2, $3, $4, $5, $6, $7, $8 FROM old
       RETURNING ${KEY_COLUMNS}
     ), retired AS (
       UPDATE api_keys SET revokes_at = $9, replaced_by = created.key_id
       FROM created WHERE api_keys.key_id = $1
     )
     SELECT * FROM created`,
    [
      oldKeyId,
      newKey.keyId,
      newKey.developerParty,
      newKey.name,
      newKey.keyHash,
      newKey.prefix,
      newKey.environment,
      newKey.createdAt,
      revokesAt,
    ],
  );
  return rows[0] ? apiKeyFromRow(rows[0]) : null;
}

/** Adds `count` requests to the key's usage, the last of them at `lastUsedAt` (batched flushes). */
export async function recordApiKeyUsage(
  q: Queryable,
  keyId: string,
  count: number,
  lastUsedAt: Date,
): Promise<void> {
  if (!Number.isSafeInteger(count) || count < 1) {
    throw new RangeError(`usage count must be a positive integer, got ${count}`);
  }
  // GREATEST: batches from several processes may arrive out of order.
  await q.query(
    `UPDATE api_keys
     SET request_count = request_count + $2,
         last_used_at = GREATEST(COALESCE(last_used_at, $3), $3)
     WHERE key_id = $1`,
    [keyId, count, lastUsedAt],
  );
}

/** Records one authenticated request at `now`. */
export async function touchApiKey(q: Queryable, keyId: string, now: Date): Promise<void> {
  await recordApiKeyUsage(q, keyId, 1, now);
}

/** Sets the key's rate limits; null restores the service default. */
export async function setApiKeyRateLimits(
  q: Queryable,
  keyId: string,
  limits: { readonly readsPerMin: number | null; readonly swapsPerMin: number | null },
): Promise<ApiKeyRecord | null> {
  const rows = await q.query(
    `UPDATE api_keys AS k SET reads_per_min = $2, swaps_per_min = $3 WHERE k.key_id = $1
     RETURNING ${KEY_COLUMNS}`,
    [keyId, limits.readsPerMin, limits.swapsPerMin],
  );
  return rows[0] ? apiKeyFromRow(rows[0]) : null;
}

/**
 * Keys an operator names by key id or by the displayed prefix (`pp_test_abcd`, or the start of
 * one): the exact key id if there is one, otherwise every key whose prefix starts with `text`.
 */
export async function findApiKeysByIdOrPrefix(
  q: Queryable,
  text: string,
  limit: number,
): Promise<ApiKeyRecord[]> {
  const exact = await getApiKey(q, text);
  if (exact !== null) return [exact];
  const rows = await q.query(
    `SELECT ${KEY_COLUMNS} FROM api_keys k
     WHERE starts_with(k.prefix, $1) OR starts_with($1, k.prefix)
     ORDER BY k.created_at, k.key_id LIMIT $2`,
    [text, limit],
  );
  return rows.map(apiKeyFromRow);
}

/** Every key, oldest first, at most `limit`: the operator's list. */
export async function listAllApiKeys(q: Queryable, limit: number): Promise<ApiKeyRecord[]> {
  const rows = await q.query(
    `SELECT ${KEY_COLUMNS} FROM api_keys k ORDER BY k.created_at, k.key_id LIMIT $1`,
    [limit],
  );
  return rows.map(apiKeyFromRow);
}
