/**
 * Removing rows past their `expires_at`, a batch at a time: each purge is one short statement
 * beside live traffic, and the caller repeats it while batches come back full.
 */
import type { Queryable } from './database.js';

/** A table whose rows expire, and the column that names a row in it. */
type ExpiringTable =
  | { readonly table: 'nonces'; readonly key: 'nonce' }
  | { readonly table: 'sessions'; readonly key: 'token_hash' }
  | { readonly table: 'wallet_token_revocations'; readonly key: 'jti' };

/** Removes up to `limit` rows of `table` that expired by `now`, soonest expired first. */
export async function deleteExpired(
  q: Queryable,
  { table, key }: ExpiringTable,
  now: Date,
  limit: number,
): Promise<number> {
  const rows = await q.query(
    `DELETE FROM ${table} WHERE ${key} IN (
       SELECT ${key} FROM ${table} WHERE expires_at <= $1 ORDER BY expires_at LIMIT $2
     ) RETURNING ${key}`,
    [now, limit],
  );
  return rows.length;
}
