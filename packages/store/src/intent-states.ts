/**
 * The one place an intent's state is written, for every kind of intent. A write is a set of moves,
 * each a compare-and-set on the states the intent must be in and a path of states it goes through;
 * the row ends in the last, gets the facts the move carries, and every state on the way gets its
 * event row in the kind's outbox, in order — all in one statement, so a state and its event never
 * exist one without the other.
 *
 * Every path is checked against the kind's lifecycle in core (`assertPath`) before a statement is
 * sent; statements that choose their intents in SQL (a run of deposits, the expiry sweep) build
 * their state change from `stateChangeSql` here, with a path checked the same way. The database
 * holds the same rule (migration 0016): no other statement can write an edge the table lacks.
 */
import {
  assertPath,
  INTENT_LIFECYCLES,
  type IntentKind,
  type IntentLifecycle,
} from '@poolparty/core';
import { jsonParam } from './columns.js';
import type { Queryable, Row } from './database.js';
import { firstRowOf } from './sql.js';

type FactType = 'numeric' | 'text' | 'timestamptz' | 'jsonb';

/** Where a kind of intent keeps its rows and its outbox, and which facts a move may set. */
interface IntentTable {
  readonly table: string;
  readonly idColumn: string;
  /** The party the intent belongs to: the only one that may read it. */
  readonly ownerColumn: string;
  readonly eventsTable: string;
  /** Columns a move sets when it carries a value for them (`COALESCE`: a fact is never unset). */
  readonly facts: Readonly<Record<string, FactType>>;
  /** Further assignments of the kind, over the move `m` and the row `t`. */
  readonly alsoSet: readonly string[];
}

const FAILURE_FACTS = { failure_code: 'text', failure_message: 'text' } as const;

const TABLES: Readonly<Record<IntentKind, IntentTable>> = {
  swap: {
    table: 'intents',
    idColumn: 'intent_id',
    ownerColumn: 'wallet_party',
    eventsTable: 'intent_events',
    facts: {
      ...FAILURE_FACTS,
      deposit_amount: 'numeric',
      deposit_update_id: 'text',
      deposit_received_at: 'timestamptz',
      actual_output: 'numeric',
      payout_update_id: 'text',
      refund_amount: 'numeric',
      refund_network_fee_amount: 'numeric',
      refund_update_id: 'text',
    },
    alsoSet: [
      `matched_at = CASE WHEN 'matched' = ANY(m.through) THEN COALESCE(t.matched_at, $AT)
         ELSE t.matched_at END`,
      `fee_event_at_completion = CASE WHEN m.to_status = 'completed'
         THEN EXISTS (SELECT 1 FROM fee_events f WHERE f.intent_id = t.intent_id)
         ELSE t.fee_event_at_completion END`,
    ],
  },
  liquidity: {
    table: 'liquidity_intents',
    idColumn: 'liquidity_intent_id',
    ownerColumn: 'provider_party',
    eventsTable: 'liquidity_events',
    facts: {
      ...FAILURE_FACTS,
      minted_units: 'numeric',
      joined_a: 'numeric',
      joined_b: 'numeric',
      returned_a: 'numeric',
      returned_b: 'numeric',
    },
    alsoSet: [],
  },
  atomic_swap: {
    table: 'atomic_swaps',
    idColumn: 'atomic_swap_id',
    ownerColumn: 'trader_party',
    eventsTable: 'atomic_swap_events',
    facts: {
      ...FAILURE_FACTS,
      trader_signature: 'text',
      trader_public_key: 'text',
      signed_at: 'timestamptz',
      update_id: 'text',
      curve_output: 'numeric',
      excess: 'numeric',
      input_reserve_before: 'numeric',
      output_reserve_before: 'numeric',
      // A preparation again (a spent input): the new transaction replaces the old one.
      command_id: 'text',
      prepared_transaction: 'text',
      prepared_transaction_hash: 'text',
      hashing_scheme_version: 'text',
      output_holding_ids: 'jsonb',
      expires_at: 'timestamptz',
    },
    alsoSet: [
      `preparations = CASE WHEN m.to_status = 'prepared' THEN t.preparations + 1
         ELSE t.preparations END`,
    ],
  },
};

/** One intent's move: from one of `from`, through `through`, ending in its last state. */
export interface StateMove<S extends string = string> {
  readonly id: string;
  readonly from: readonly S[];
  readonly through: readonly S[];
  /** Column → value in its text form; absent or null leaves the column as it is. */
  readonly facts?: Readonly<Record<string, string | null>>;
  /** Each entered state's event payload, by position in `through`; `{}` where absent. */
  readonly payloads?: readonly unknown[];
}

/** Refuses a move whose path, from any of its `from` states, is not the lifecycle's. */
export function checkMove<S extends string>(lifecycle: IntentLifecycle<S>, move: StateMove<S>) {
  for (const from of move.from) assertPath(lifecycle, from, move.through);
}

/**
 * The moves' state change as the CTEs `changed` (the rows moved, with `move_ord`) and
 * `moved_events`, over a source CTE with the columns of a move: `ord`, `id`, `from_states`,
 * `through`, `to_status`, `terminal`, `events` (`[{status, payload}]`) and any of `facts`. `at` is
 * the SQL of the instant written.
 */
export function stateChangeSql(
  kind: IntentKind,
  options: { readonly source: string; readonly at: string; readonly facts: readonly string[] },
): string {
  const t = TABLES[kind];
  const sets = [
    'status = m.to_status',
    `updated_at = ${options.at}`,
    `completed_at = CASE WHEN m.terminal THEN COALESCE(t.completed_at, ${options.at})
       ELSE t.completed_at END`,
    ...options.facts.map((c) => `${c} = COALESCE(m.${c}::${factType(t, c)}, t.${c})`),
    ...t.alsoSet.map((set) => set.replaceAll('$AT', options.at)),
  ];
  return `changed AS (
      UPDATE ${t.table} t SET ${sets.join(',\n        ')}
      FROM ${options.source} m
      WHERE t.${t.idColumn} = m.id AND t.status = ANY(m.from_states)
      RETURNING t.*, m.ord AS move_ord, m.events AS move_events
    ), moved_events AS (
      INSERT INTO ${t.eventsTable} (${t.idColumn}, status, at, payload)
      SELECT c.${t.idColumn}, e.value->>'status', ${options.at}, e.value->'payload'
      FROM changed c CROSS JOIN LATERAL jsonb_array_elements(c.move_events)
        WITH ORDINALITY AS e(value, n)
      ORDER BY c.move_ord, e.n
    )`;
}

function factType(table: IntentTable, column: string): FactType {
  const type = table.facts[column];
  if (type === undefined) throw new RangeError(`${table.table} has no fact ${column}`);
  return type;
}

const WRITE_SQL = new Map<IntentKind, string>();

function writeSql(kind: IntentKind): string {
  const cached = WRITE_SQL.get(kind);
  if (cached !== undefined) return cached;
  const facts = Object.keys(TABLES[kind].facts);
  const sql = `WITH moves AS (
      SELECT * FROM jsonb_to_recordset($1::jsonb) AS m(ord int, id text, from_states text[],
        through text[], to_status text, terminal boolean, events jsonb,
        ${facts.map((c) => `${c} text`).join(', ')})
    ), ${stateChangeSql(kind, { source: 'moves', at: '$2::timestamptz', facts })}
    SELECT * FROM changed ORDER BY move_ord`;
  WRITE_SQL.set(kind, sql);
  return sql;
}

/**
 * Applies the moves in one statement, each only if its intent is in one of its `from` states;
 * returns the rows moved, in the order of `moves`. Throws before any statement when a path is
 * not the lifecycle's.
 */
export async function writeIntentStates(
  q: Queryable,
  kind: IntentKind,
  moves: readonly StateMove[],
  at: Date,
): Promise<Row[]> {
  if (moves.length === 0) return [];
  const lifecycle = INTENT_LIFECYCLES[kind];
  const rows = moves.map((move, ord) => {
    checkMove(lifecycle, move);
    for (const column of Object.keys(move.facts ?? {})) factType(TABLES[kind], column);
    const to = move.through.at(-1) as string;
    return {
      ord,
      id: move.id,
      from_states: move.from,
      through: move.through,
      to_status: to,
      terminal: lifecycle.terminal.includes(to),
      events: move.through.map((status, n) => ({ status, payload: move.payloads?.[n] ?? {} })),
      ...move.facts,
    };
  });
  return q.query(writeSql(kind), [jsonParam(rows), at]);
}

/**
 * The intent's outbox rows in order, after `afterSeq` (SSE `Last-Event-ID`) when given, with its
 * id under the kind's own column; each kind maps them to its event record.
 */
function outboxRows(
  q: Queryable,
  kind: IntentKind,
  intentId: string,
  afterSeq = 0,
): Promise<Row[]> {
  const t = TABLES[kind];
  return q.query(
    `SELECT * FROM ${t.eventsTable} WHERE ${t.idColumn} = $1 AND seq > $2 ORDER BY seq`,
    [intentId, afterSeq],
  );
}

/** An intent's outbox, oldest first, and its row as read after it; null once it is gone. */
export interface SubjectOutbox<E, T> {
  readonly events: readonly E[];
  readonly subject: T | null;
}

/**
 * The outboxes and rows of many intents of a kind in two statements (the events first, so the
 * rows are at least as new as the last event, as one intent's read). Every id named is in the
 * answer; an intent that does not exist has its events (none) and a null subject.
 */
export async function readOutboxesOf<E, T>(
  q: Queryable,
  kind: IntentKind,
  intentIds: readonly string[],
  map: { readonly event: (row: Row) => E; readonly subject: (row: Row) => T },
): Promise<Map<string, SubjectOutbox<E, T>>> {
  const t = TABLES[kind];
  const ids = [...new Set(intentIds)];
  const events = new Map<string, E[]>(ids.map((id) => [id, []]));
  const subjects = new Map<string, T>();
  if (ids.length > 0) {
    const eventRows = await q.query(
      `SELECT * FROM ${t.eventsTable} WHERE ${t.idColumn} = ANY($1::text[])
       ORDER BY ${t.idColumn}, seq`,
      [ids],
    );
    for (const row of eventRows) events.get(String(row[t.idColumn]))?.push(map.event(row));
    const rows = await q.query(`SELECT * FROM ${t.table} WHERE ${t.idColumn} = ANY($1::text[])`, [
      ids,
    ]);
    for (const row of rows) subjects.set(String(row[t.idColumn]), map.subject(row));
  }
  return new Map(
    ids.map((id) => [id, { events: events.get(id) ?? [], subject: subjects.get(id) ?? null }]),
  );
}

/**
 * The intent's row mapped by the kind's mapper, or null; with `owner`, null too for another
 * party's intent, so that ids cannot be probed (404, not 403); with `forUpdate`, locked for the
 * transaction.
 */
export function intentRow<T>(
  q: Queryable,
  kind: IntentKind,
  intentId: string,
  map: (row: Row) => T,
  options: { readonly owner?: string; readonly forUpdate?: boolean } = {},
): Promise<T | null> {
  const t = TABLES[kind];
  const owned = options.owner === undefined ? '' : ` AND ${t.ownerColumn} = $2`;
  const params = options.owner === undefined ? [intentId] : [intentId, options.owner];
  const lock = options.forUpdate ? ' FOR UPDATE' : '';
  return firstRowOf(
    q,
    `SELECT * FROM ${t.table} WHERE ${t.idColumn} = $1${owned}${lock}`,
    params,
    map,
  );
}

/** What reads an intent's events after `afterSeq` (SSE `Last-Event-ID`), in order. */
export type OutboxReader<E> = (q: Queryable, intentId: string, afterSeq?: number) => Promise<E[]>;

/** The outbox read of a kind, its rows mapped to the kind's event record. */
export function outboxReader<E>(kind: IntentKind, map: (row: Row) => E): OutboxReader<E> {
  return async (q, intentId, afterSeq = 0) =>
    (await outboxRows(q, kind, intentId, afterSeq)).map(map);
}
