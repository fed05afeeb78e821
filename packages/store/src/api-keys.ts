/**
 * Developer API keys (docs/spec/auth.md#developer-keys). The store never sees a key, only its
 * SHA-256 (lowercase hex) and the first characters for display. A rotated key keeps working until
 * `revokesAt`; a revoked key stops at once.
 *
 * A developer's working keys (those that authenticate: active ones and rotated ones in their
 * grace period) are capped: creating beyond the cap is refused, and a rotation at the cap ends
 * the grace of the rotated key that would stop soonest. A key that stops early is announced on
 * `API_KEY_CHANGES_CHANNEL`, so that every process forgets its cached look-up at once.
 */
import type { Environment } from '@poolparty/core';
import { read } from './columns.js';
import type { Database, Queryable, Row } from './database.js';
import { type DeveloperRecord, developerFromRow } from './developers.js';

/** How long a rotated key keeps working. */
export const ROTATION_GRACE_MS = 24 * 60 * 60 * 1000;

/**
 * Notified, with the key id as payload, when a key stops before its time: revoked, or its grace
 * ended early by a rotation at the cap. Processes that cache key look-ups listen here.
 */
export const API_KEY_CHANGES_CHANNEL = 'api_key_changes';

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
    keyId: read.string(row.key_id),
    developerParty: read.string(row.developer_party),
    name: read.string(row.name),
    prefix: read.string(row.prefix),
    environment: read.string(row.environment) as Environment,
    createdAt: read.date(row.created_at),
    lastUsedAt: read.dateOrNull(row.last_used_at),
    revokedAt: read.dateOrNull(row.revoked_at),
    revokesAt: read.dateOrNull(row.revokes_at),
    replacedBy: read.stringOrNull(row.replaced_by),
    requestCount: read.safeInteger(row.request_count),
    readsPerMin: read.integerOrNull(row.reads_per_min),
    swapsPerMin: read.integerOrNull(row.swaps_per_min),
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
 * The developer's keys that authenticate at `now` (`isApiKeyUsable`): active ones and rotated
 * ones still in their grace period, the grace that ends soonest first.
 */
export async function listWorkingApiKeys(
  q: Queryable,
  developerParty: string,
  now: Date,
): Promise<ApiKeyRecord[]> {
  const rows = await q.query(
    `SELECT ${KEY_COLUMNS} FROM api_keys k
     WHERE k.developer_party = $1
       AND (k.revoked_at IS NULL OR k.revoked_at > $2)
       AND (k.revokes_at IS NULL OR k.revokes_at > $2)
     ORDER BY k.revokes_at NULLS LAST, k.key_id`,
    [developerParty, now],
  );
  return rows.map(apiKeyFromRow);
}

/**
 * The rotated keys whose grace must end now so that at most `max` of `working` (the developer's
 * keys that authenticate) keep working: those whose grace would end soonest. Active keys are
 * never among them; creating a key beyond the cap is refused instead.
 */
export function graceKeysOverCap(working: readonly ApiKeyRecord[], max: number): string[] {
  const excess = working.length - max;
  if (excess <= 0) return [];
  const inGrace = working.flatMap((key) =>
    key.revokesAt === null ? [] : [{ keyId: key.keyId, endsAtMs: key.revokesAt.getTime() }],
  );
  inGrace.sort((a, b) => a.endsAtMs - b.endsAtMs || (a.keyId < b.keyId ? -1 : 1));
  return inGrace.slice(0, excess).map((key) => key.keyId);
}

/**
 * Locks the developer's row: every change to how many keys a developer holds takes this lock
 * first, so concurrent creations and rotations are counted one after the other and never pass
 * the cap together.
 */
async function lockDeveloperKeys(tx: Queryable, developerParty: string): Promise<void> {
  await tx.query('SELECT party_id FROM developers WHERE party_id = $1 FOR UPDATE', [
    developerParty,
  ]);
}

/**
 * Creates `key` unless its developer already has `workingMax` working keys (active or in a
 * grace period) at its creation time; null then.
 */
export async function insertApiKeyWithinCap(
  db: Database,
  key: NewApiKey,
  workingMax: number,
): Promise<ApiKeyRecord | null> {
  return db.transaction(async (tx) => {
    await lockDeveloperKeys(tx, key.developerParty);
    const working = await listWorkingApiKeys(tx, key.developerParty, key.createdAt);
    if (working.length >= workingMax) return null;
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

/**
 * Revokes the developer's key at `now`, and announces it; null when it is not theirs or already
 * revoked. One statement: the announcement goes out exactly when a key was revoked.
 */
export async function revokeApiKey(
  q: Queryable,
  input: { readonly keyId: string; readonly developerParty: string; readonly now: Date },
): Promise<ApiKeyRecord | null> {
  const rows = await q.query(
    `WITH revoked AS (
       UPDATE api_keys AS k SET revoked_at = $3
       WHERE k.key_id = $1 AND k.developer_party = $2 AND k.revoked_at IS NULL
       RETURNING ${KEY_COLUMNS}
     )
     SELECT revoked.*, pg_notify('${API_KEY_CHANGES_CHANNEL}', revoked.key_id) AS announced
     FROM revoked`,
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
 * Null when the old key is not the developer's, is revoked, or was already rotated. The cap on
 * working keys is `rotateApiKeyWithinCap`'s.
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

/**
 * Rotates as `rotateApiKey` does, then, should the developer hold more than `workingMax` working
 * keys, ends the grace of those that would stop soonest (`graceKeysOverCap`), at once and
 * announced. At the cap with no other key in its grace period, that is the rotated key itself:
 * a rotation always succeeds, and the keys that authenticate never exceed the cap.
 */
export async function rotateApiKeyWithinCap(
  db: Database,
  rotation: ApiKeyRotation,
  workingMax: number,
): Promise<ApiKeyRecord | null> {
  const { developerParty } = rotation.newKey;
  return db.transaction(async (tx) => {
    await lockDeveloperKeys(tx, developerParty);
    const created = await rotateApiKey(tx, rotation);
    if (created === null) return null;
    const working = await listWorkingApiKeys(tx, developerParty, rotation.now);
    for (const keyId of graceKeysOverCap(working, workingMax)) {
      await endGraceNow(tx, keyId, rotation.now);
    }
    return created;
  });
}

/** Ends a rotated key's grace period at `now` and announces it. */
async function endGraceNow(tx: Queryable, keyId: string, now: Date): Promise<void> {
  await tx.query(
    `WITH ended AS (
       UPDATE api_keys SET revokes_at = $2
       WHERE key_id = $1 AND revokes_at > $2
       RETURNING key_id
     )
     SELECT pg_notify('${API_KEY_CHANGES_CHANNEL}', ended.key_id) AS announced FROM ended`,
    [keyId, now],
  );
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
