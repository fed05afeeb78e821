/** Open operator flags counted by kind, for `/metrics`: every process reads the same figures. */
import { read } from './columns.js';
import type { Queryable } from './database.js';

export interface FlagCount {
  readonly kind: string;
  readonly open: number;
}

/** Kinds a scrape reports at most: flag kinds are the service's own, a few dozen at most. */
export const FLAG_KINDS_MAX = 200;

/** How many flags of each kind are open (unresolved), most first. */
export async function countOpenFlagsByKind(q: Queryable): Promise<FlagCount[]> {
  const rows = await q.query(
    `SELECT kind, count(*)::int AS open FROM operator_flags WHERE resolved_at IS NULL
     GROUP BY kind ORDER BY open DESC, kind LIMIT $1`,
    [FLAG_KINDS_MAX],
  );
  return rows.map((row) => ({ kind: read.string(row.kind), open: read.safeInteger(row.open) }));
}
