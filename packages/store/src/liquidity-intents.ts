/**
 * Liquidity intents and their outbox (docs/spec/liquidity.md#intents): one open intent per
 * provider and pool, every state change a compare-and-set with its event row in one statement.
 */
import type { Amount } from '@poolparty/core';
import { BaseError } from '@poolparty/core';
import { amountParam, amountParamOrNull, read } from './columns.js';
import type { Queryable, Row } from './database.js';
import { intentRow, type OutboxReader, outboxReader, writeIntentStates } from './intent-states.js';
import { firstRowOf } from './sql.js';

export type LiquidityStatus =
  | 'pending'
  | 'partial'
  | 'joining'
  | 'completed'
  | 'refunding'
  | 'refunded'
  | 'expired'
  | 'cancelled'
  | 'refund_failed';

/** Open: still waiting for a deposit, so a deposit can be attributed to it. */
export const OPEN_LIQUIDITY_STATES = ['pending', 'partial'] as const;

export const LIQUIDITY_PAGE_SIZE_MAX = 100;
/** Intents expired per round of the worker: the rest wait for the next. */
export const LIQUIDITY_EXPIRY_BATCH_MAX = 200;

export interface NewLiquidityIntent {
  readonly liquidityIntentId: string;
  readonly poolId: string;
  readonly apiKeyId: string;
  readonly developerParty: string;
  readonly providerParty: string;
  readonly depositAddress: string;
  readonly depositReference: string;
  readonly expectedA: Amount;
  readonly expectedB: Amount;
  readonly expectedUnits: Amount;
  readonly minimumUnits: Amount;
  readonly slippageBps: number;
  readonly createdAt: Date;
  readonly expiresAt: Date;
}

export interface LiquidityCompletion {
  readonly mintedUnits: Amount;
  readonly joinedA: Amount;
  readonly joinedB: Amount;
  readonly returnedA: Amount;
  readonly returnedB: Amount;
}

export interface LiquidityIntentRecord extends NewLiquidityIntent {
  readonly status: LiquidityStatus;
  readonly failureCode: string | null;
  readonly failureMessage: string | null;
  readonly completion: LiquidityCompletion | null;
  readonly completedAt: Date | null;
  readonly updatedAt: Date;
}

export interface LiquidityEventRecord {
  readonly seq: number;
  readonly liquidityIntentId: string;
  readonly status: LiquidityStatus;
  readonly at: Date;
  readonly payload: Readonly<Record<string, unknown>>;
}

/** The provider already has an open intent for this pool. */
export class ActiveLiquidityIntentExistsError extends BaseError<'active_liquidity_intent_exists'> {
  override readonly name = 'ActiveLiquidityIntentExistsError';
  constructor(readonly liquidityIntentId: string) {
    super('active_liquidity_intent_exists', `liquidity intent ${liquidityIntentId} is still open`);
  }
}

function completionOf(row: Row): LiquidityCompletion | null {
  const minted = read.amountOrNull(row.minted_units);
  if (minted === null) return null;
  return {
    mintedUnits: minted,
    joinedA: read.amount(row.joined_a),
    joinedB: read.amount(row.joined_b),
    returnedA: read.amount(row.returned_a),
    returnedB: read.amount(row.returned_b),
  };
}

export function liquidityIntentFromRow(row: Row): LiquidityIntentRecord {
  return {
    liquidityIntentId: read.string(row.liquidity_intent_id),
    poolId: read.string(row.pool_id),
    apiKeyId: read.string(row.api_key_id),
    developerParty: read.string(row.developer_party),
    providerParty: read.string(row.provider_party),
    depositAddress: read.string(row.deposit_address),
    depositReference: read.string(row.deposit_reference),
    expectedA: read.amount(row.expected_a),
    expectedB: read.amount(row.expected_b),
    expectedUnits: read.amount(row.expected_units),
    minimumUnits: read.amount(row.minimum_units),
    slippageBps: read.safeInteger(row.slippage_bps),
    status: read.string(row.status) as LiquidityStatus,
    failureCode: read.stringOrNull(row.failure_code),
    failureMessage: read.stringOrNull(row.failure_message),
    completion: completionOf(row),
    createdAt: read.date(row.created_at),
    expiresAt: read.date(row.expires_at),
    completedAt: read.dateOrNull(row.completed_at),
    updatedAt: read.date(row.updated_at),
  };
}

const INSERT_LIQUIDITY_INTENT = `
  WITH created AS (
    INSERT INTO liquidity_intents (liquidity_intent_id, pool_id, api_key_id, developer_party,
      provider_party, deposit_address, deposit_reference, expected_a, expected_b, expected_units,
      minimum_units, slippage_bps, status, created_at, expires_at, updated_at)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, 'pending', $13, $14, $13)
    ON CONFLICT (provider_party, pool_id) WHERE status IN ('pending', 'partial') DO NOTHING
    RETURNING *
  ), event AS (
    INSERT INTO liquidity_events (liquidity_intent_id, status, at)
    SELECT liquidity_intent_id, status, created_at FROM created
  )
  SELECT * FROM created`;

/**
 * Creates a pending intent and its first event; throws `ActiveLiquidityIntentExistsError` when the
 * provider has an open intent for the pool.
 */
export async function insertLiquidityIntent(
  q: Queryable,
  intent: NewLiquidityIntent,
): Promise<LiquidityIntentRecord> {
  const [created] = await q.query(INSERT_LIQUIDITY_INTENT, [
    intent.liquidityIntentId,
    intent.poolId,
    intent.apiKeyId,
    intent.developerParty,
    intent.providerParty,
    intent.depositAddress,
    intent.depositReference,
    amountParam(intent.expectedA),
    amountParam(intent.expectedB),
    amountParam(intent.expectedUnits),
    amountParam(intent.minimumUnits),
    intent.slippageBps,
    intent.createdAt,
    intent.expiresAt,
  ]);
  if (created) return liquidityIntentFromRow(created);
  const open = await findOpenLiquidityIntent(q, intent.providerParty, intent.poolId);
  throw new ActiveLiquidityIntentExistsError(open?.liquidityIntentId ?? 'unknown');
}

export async function getLiquidityIntent(
  q: Queryable,
  liquidityIntentId: string,
  options: { readonly forUpdate?: boolean } = {},
): Promise<LiquidityIntentRecord | null> {
  return intentRow(q, 'liquidity', liquidityIntentId, liquidityIntentFromRow, options);
}

/** The provider's intent; null for another party's, so ids cannot be probed. */
export async function getLiquidityIntentForParty(
  q: Queryable,
  liquidityIntentId: string,
  providerParty: string,
): Promise<LiquidityIntentRecord | null> {
  return intentRow(q, 'liquidity', liquidityIntentId, liquidityIntentFromRow, {
    owner: providerParty,
  });
}

export async function findOpenLiquidityIntent(
  q: Queryable,
  providerParty: string,
  poolId: string,
): Promise<LiquidityIntentRecord | null> {
  return firstRowOf(
    q,
    `SELECT * FROM liquidity_intents
     WHERE provider_party = $1 AND pool_id = $2 AND status IN ('pending', 'partial')`,
    [providerParty, poolId],
    liquidityIntentFromRow,
  );
}

/** The intent a deposit's reference names, whatever its state (attribution decides). */
export async function findLiquidityIntentByReference(
  q: Queryable,
  reference: string,
): Promise<LiquidityIntentRecord | null> {
  return firstRowOf(
    q,
    'SELECT * FROM liquidity_intents WHERE deposit_reference = $1',
    [reference],
    liquidityIntentFromRow,
  );
}

/** The provider's intents, newest first, `limit` at most (capped at `LIQUIDITY_PAGE_SIZE_MAX`). */
export async function listLiquidityIntentsForParty(
  q: Queryable,
  providerParty: string,
  limit: number,
): Promise<LiquidityIntentRecord[]> {
  const rows = await q.query(
    `SELECT * FROM liquidity_intents WHERE provider_party = $1
     ORDER BY created_at DESC, liquidity_intent_id DESC LIMIT $2`,
    [providerParty, Math.min(Math.max(1, limit), LIQUIDITY_PAGE_SIZE_MAX)],
  );
  return rows.map(liquidityIntentFromRow);
}

export interface LiquidityTransition {
  readonly liquidityIntentId: string;
  readonly from: readonly LiquidityStatus[];
  readonly to: LiquidityStatus;
  readonly at: Date;
  readonly failure?: { readonly code: string; readonly message: string };
  readonly completion?: LiquidityCompletion;
  /** Written on the event row, e.g. the side that arrived. */
  readonly payload?: Readonly<Record<string, unknown>>;
}

/**
 * Moves the intent from one of `from` to `to` with its event row; null when it was elsewhere (a
 * second delivery, or another writer first). Terminal states set `completed_at`. Throws
 * `IllegalPathError` before any statement when a `from → to` is not an edge of the lifecycle.
 */
export async function transitionLiquidityIntent(
  q: Queryable,
  move: LiquidityTransition,
): Promise<LiquidityIntentRecord | null> {
  const c = move.completion;
  const payload = { ...(move.failure && { failure: move.failure }), ...move.payload };
  const facts = {
    failure_code: move.failure?.code ?? null,
    failure_message: move.failure?.message ?? null,
    minted_units: amountParamOrNull(c?.mintedUnits),
    joined_a: amountParamOrNull(c?.joinedA),
    joined_b: amountParamOrNull(c?.joinedB),
    returned_a: amountParamOrNull(c?.returnedA),
    returned_b: amountParamOrNull(c?.returnedB),
  };
  const [row] = await writeIntentStates(
    q,
    'liquidity',
    [
      {
        id: move.liquidityIntentId,
        from: move.from,
        through: [move.to],
        facts,
        payloads: [payload],
      },
    ],
    move.at,
  );
  return row ? liquidityIntentFromRow(row) : null;
}

/**
 * Open intents past their expiry, oldest first. Not locked here: the caller takes each pool's
 * lock first and moves the intent by compare-and-set, the order every writer keeps.
 */
export async function dueLiquidityIntents(
  q: Queryable,
  now: Date,
  limit: number = LIQUIDITY_EXPIRY_BATCH_MAX,
): Promise<LiquidityIntentRecord[]> {
  const rows = await q.query(
    `SELECT * FROM liquidity_intents
     WHERE status IN ('pending', 'partial') AND expires_at <= $1
     ORDER BY expires_at, liquidity_intent_id LIMIT $2`,
    [now, Math.min(limit, LIQUIDITY_EXPIRY_BATCH_MAX)],
  );
  return rows.map(liquidityIntentFromRow);
}

function liquidityEventFromRow(row: Row): LiquidityEventRecord {
  return {
    seq: read.safeInteger(row.seq),
    liquidityIntentId: read.string(row.liquidity_intent_id),
    status: read.string(row.status) as LiquidityStatus,
    at: read.date(row.at),
    payload: (row.payload ?? {}) as Record<string, unknown>,
  };
}

/** The intent's events in order, after `afterSeq` (SSE `Last-Event-ID`) when given. */
export const listLiquidityEvents: OutboxReader<LiquidityEventRecord> = outboxReader(
  'liquidity',
  liquidityEventFromRow,
);

/** How many of the intent's commands are still unconfirmed (recorded or submitted). */
export async function countOpenLiquidityCommands(
  q: Queryable,
  liquidityIntentId: string,
): Promise<number> {
  const rows = await q.query(
    `SELECT count(*) AS n FROM ledger_commands
     WHERE liquidity_intent_id = $1 AND status IN ('recorded', 'submitted')`,
    [liquidityIntentId],
  );
  return read.safeInteger(rows[0]?.n ?? 0);
}
