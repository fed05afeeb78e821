/**
 * A party's swaps of both kinds, newest first (`GET /v1/track/{partyId}`): the deposit flow's
 * intents and the atomic swaps in one order, `(created_at, id)` descending, paged under one
 * cursor. The order is the database's, of both tables in one statement, so the cursor compares
 * as the order does whichever kind it names.
 */
import type { SwapKind } from '@poolparty/core';
import { type AtomicSwapRecord, atomicSwapFromRow } from './atomic-swaps.js';
import { readString } from './columns.js';
import type { Queryable, Row } from './database.js';
import {
  INTENT_PAGE_SIZE_MAX,
  type IntentCursor,
  type IntentRecord,
  intentFromRow,
} from './intents.js';

/** One swap of the party's list: a deposit-flow intent or an atomic swap. */
export type PartySwap =
  | { readonly kind: 'deposit'; readonly intent: IntentRecord }
  | { readonly kind: 'atomic'; readonly swap: AtomicSwapRecord };

export interface PartySwapQuery {
  readonly walletParty: string;
  /** Only swaps in these states (of either kind); all when absent. */
  readonly statuses?: readonly string[];
  /** Only swaps of these kinds; both when absent. */
  readonly kinds?: readonly SwapKind[];
  /** Only swaps created through this developer's keys; all when absent. */
  readonly developerParty?: string;
  readonly limit: number;
  readonly cursor?: IntentCursor | null;
}

export interface PartySwapPage {
  readonly swaps: PartySwap[];
  readonly nextCursor: IntentCursor | null;
}

/**
 * One kind's newest page after the cursor, from its table: `$1` the party, `$2` the statuses,
 * `$3` the developer, `$4`/`$5` the cursor, `$6` the page size and `include` whether the kind is
 * asked for at all. Both kinds are read by the same statement, so their keys page alike.
 */
function kindPage(kind: SwapKind, table: string, id: string, party: string, include: string) {
  return `(SELECT '${kind}' AS kind, ${id} AS id, created_at FROM ${table}
     WHERE ${include}::boolean AND ${party} = $1
       AND ($2::text[] IS NULL OR status = ANY($2::text[]))
       AND ($3::text IS NULL OR developer_party = $3::text)
       AND ($4::timestamptz IS NULL OR (created_at, ${id}) < ($4::timestamptz, $5::text))
     ORDER BY created_at DESC, ${id} DESC LIMIT $6)`;
}

/** Each kind's newest page after the cursor, then the newest of both: at most `limit + 1`. */
const PAGE_KEYS = `
  SELECT kind, id, created_at FROM (
    ${kindPage('deposit', 'intents', 'intent_id', 'wallet_party', '$7')}
    UNION ALL
    ${kindPage('atomic', 'atomic_swaps', 'atomic_swap_id', 'trader_party', '$8')}
  ) page
  ORDER BY created_at DESC, id DESC
  LIMIT $6`;

/** The party's swaps of both kinds (or of `kinds`), newest first, `limit` at a time. */
export async function listSwapsForParty(
  q: Queryable,
  query: PartySwapQuery,
): Promise<PartySwapPage> {
  const { limit, cursor } = query;
  if (!Number.isInteger(limit) || limit < 1 || limit > INTENT_PAGE_SIZE_MAX) {
    throw new RangeError(`page size must be 1..${INTENT_PAGE_SIZE_MAX}, got ${limit}`);
  }
  const kinds = query.kinds ?? ['deposit', 'atomic'];
  const keys = await q.query(PAGE_KEYS, [
    query.walletParty,
    query.statuses ?? null,
    query.developerParty ?? null,
    cursor?.createdAt ?? null,
    cursor?.intentId ?? null,
    limit + 1,
    kinds.includes('deposit'),
    kinds.includes('atomic'),
  ]);
  const page = keys.slice(0, limit);
  const idsOf = (kind: SwapKind) =>
    page.filter((key) => key.kind === kind).map((key) => readString(key.id));
  const intents = await rowsById(q, 'intents', 'intent_id', idsOf('deposit'), intentFromRow);
  const atomic = await rowsById(
    q,
    'atomic_swaps',
    'atomic_swap_id',
    idsOf('atomic'),
    atomicSwapFromRow,
  );
  const swaps = page.map((key): PartySwap => {
    const id = readString(key.id);
    const intent = intents.get(id);
    if (key.kind === 'deposit' && intent !== undefined) return { kind: 'deposit', intent };
    const swap = atomic.get(id);
    if (swap === undefined) throw new Error(`swap ${id} of the page was not read`);
    return { kind: 'atomic', swap };
  });
  const last = swaps.at(-1);
  const nextCursor =
    keys.length > limit && last !== undefined
      ? last.kind === 'deposit'
        ? { createdAt: last.intent.createdAt, intentId: last.intent.intentId }
        : { createdAt: last.swap.createdAt, intentId: last.swap.atomicSwapId }
      : null;
  return { swaps, nextCursor };
}

/** The rows of `ids` (at most a page), mapped, by id; table and column are this module's. */
async function rowsById<T>(
  q: Queryable,
  table: 'intents' | 'atomic_swaps',
  idColumn: 'intent_id' | 'atomic_swap_id',
  ids: readonly string[],
  map: (row: Row) => T,
): Promise<Map<string, T>> {
  if (ids.length === 0) return new Map();
  const rows = await q.query(`SELECT * FROM ${table} WHERE ${idColumn} = ANY($1::text[])`, [ids]);
  return new Map(rows.map((row) => [readString(row[idColumn]), map(row)]));
}
