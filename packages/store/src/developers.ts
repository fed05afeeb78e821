/** Developers: Canton parties that signed in to the portal. */
import { read } from './columns.js';
import type { Queryable, Row } from './database.js';

export interface DeveloperRecord {
  readonly partyId: string;
  readonly createdAt: Date;
}

export function developerFromRow(row: Row): DeveloperRecord {
  return { partyId: read.string(row.party_id), createdAt: read.date(row.created_at) };
}

/** Registers the party on first sign-in; later calls return the existing record unchanged. */
export async function upsertDeveloper(
  q: Queryable,
  partyId: string,
  now: Date,
): Promise<DeveloperRecord> {
  const rows = await q.query(
    `INSERT INTO developers (party_id, created_at) VALUES ($1, $2)
     ON CONFLICT (party_id) DO UPDATE SET party_id = EXCLUDED.party_id
     RETURNING party_id, created_at`,
    [partyId, now],
  );
  return developerFromRow(rows[0] as Row);
}

export async function getDeveloper(q: Queryable, partyId: string): Promise<DeveloperRecord | null> {
  const rows = await q.query('SELECT party_id, created_at FROM developers WHERE party_id = $1', [
    partyId,
  ]);
  return rows[0] ? developerFromRow(rows[0]) : null;
}
