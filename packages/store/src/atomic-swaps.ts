/**
 * Atomic swaps, their events and the reservations of the pool's holdings their output legs name
 * (docs/spec/atomic-swaps.md). A swap, its first event and its reservations are written by one
 * statement; every state change goes through `intent-states.ts` (checked against core's
 * `ATOMIC_SWAP_LIFECYCLE`, a compare-and-set on the current state), and the database releases a
 * swap's reservations the moment it ends (migration 0021).
 */
import {
  type Amount,
  type AtomicSwapState,
  BaseError,
  OUTPUT_HOLDINGS_PER_SWAP_MAX,
} from '@poolparty/core';
import {
  amountParam,
  amountParamOrNull,
  jsonParam,
  jsonParamOrNull,
  readAmount,
  readDate,
  readDateOrNull,
  readSafeInteger,
  readString,
  readStringOrNull,
  readStrings,
} from './columns.js';
import type { Queryable, Row } from './database.js';
import { intentRow, type OutboxReader, outboxReader, writeIntentStates } from './intent-states.js';

/** The most swaps one expiry round or one restart's recovery reads. */
export const ATOMIC_SWAP_BATCH_MAX = 200;
/** The most reserved holdings of one pool read at once (the live swaps times their holdings). */
export const POOL_RESERVATIONS_READ_MAX = 10_000;

export const LIVE_ATOMIC_SWAP_STATES = ['prepared', 'executing'] as const;

/** First key of the advisory lock that serialises a pool's reservations: "PPAR" in ASCII. */
const RESERVATION_LOCK_SPACE = 0x50504152;

/**
 * Holds the pool's reservations until the transaction ends: prepares of one pool pick their
 * holdings one after the other, so two never pick the same free holding and the second never
 * prepares a transaction only to have its reservation refused. It is not the pool's accounting
 * lock: a prepare moves no books and never waits for an execution.
 */
export async function lockPoolReservations(tx: Queryable, poolId: string): Promise<void> {
  await tx.query(
    `SELECT pg_advisory_xact_lock($1, hashtext(current_schema() || ':' || $2::text))`,
    [RESERVATION_LOCK_SPACE, poolId],
  );
}

/** The prepared transaction a swap currently waits on (a re-prepare replaces it). */
export interface AtomicSwapPreparation {
  readonly commandId: string;
  readonly inputHoldingIds: readonly string[];
  readonly outputHoldingIds: readonly string[];
  readonly preparedTransaction: string;
  readonly preparedTransactionHash: string;
  readonly hashingSchemeVersion: string;
  readonly expiresAt: Date;
}

export interface NewAtomicSwap {
  readonly atomicSwapId: string;
  readonly poolId: string;
  readonly apiKeyId: string;
  readonly developerParty: string;
  readonly traderParty: string;
  readonly keyFingerprint: string;
  readonly inputToken: string;
  readonly inputTokenAdmin: string;
  readonly outputToken: string;
  readonly outputTokenAdmin: string;
  /** The signed amounts. */
  readonly inputAmount: Amount;
  readonly outputAmount: Amount;
  readonly quotedOutput: Amount;
  readonly slippageTolerance: number;
  /** The quote's fee breakdown. */
  readonly networkFeeAmount: Amount;
  readonly poolFeeAmount: Amount;
  readonly lpFeeAmount: Amount;
  readonly platformFeeAmount: Amount;
  readonly inputAmountAfterPoolFee: Amount;
  readonly networkFeePolicy: unknown;
  readonly platformFeePolicy: unknown;
  readonly preparation: AtomicSwapPreparation;
  readonly createdAt: Date;
}

export interface AtomicSwapExecution {
  readonly updateId: string;
  readonly curveOutput: Amount;
  readonly excess: Amount;
  /**
   * The pool's reserves of the swap's input and output the curve's output was computed from;
   * null for a swap completed before they were recorded.
   */
  readonly reservesBefore: { readonly input: Amount; readonly output: Amount } | null;
}

export interface AtomicSwapRecord extends Omit<NewAtomicSwap, 'preparation'> {
  readonly preparation: AtomicSwapPreparation;
  readonly preparations: number;
  readonly status: AtomicSwapState;
  readonly failureCode: string | null;
  readonly failureMessage: string | null;
  /** The accepted signature (base64) and its raw key (base64), once signed. */
  readonly signature: { readonly signature: string; readonly publicKey: string } | null;
  readonly signedAt: Date | null;
  readonly execution: AtomicSwapExecution | null;
  readonly completedAt: Date | null;
  readonly updatedAt: Date;
}

export interface AtomicSwapEventRecord {
  readonly seq: number;
  readonly atomicSwapId: string;
  readonly status: AtomicSwapState;
  readonly at: Date;
  readonly payload: Record<string, unknown>;
}

/** A holding the swap would name is reserved by another live swap (the reservations' key). */
export class HoldingReservedError extends BaseError<'holding_reserved'> {
  override readonly name = 'HoldingReservedError';
  constructor(message: string) {
    super('holding_reserved', message);
  }
}

function executionOf(row: Row): AtomicSwapExecution | null {
  if (row.update_id === null || row.update_id === undefined) return null;
  const reserves = [row.input_reserve_before, row.output_reserve_before];
  return {
    updateId: readString(row.update_id),
    curveOutput: readAmount(row.curve_output),
    excess: readAmount(row.excess),
    reservesBefore: reserves.some((value) => value === null || value === undefined)
      ? null
      : { input: readAmount(reserves[0]), output: readAmount(reserves[1]) },
  };
}

export function atomicSwapFromRow(row: Row): AtomicSwapRecord {
  const signature = readStringOrNull(row.trader_signature);
  return {
    atomicSwapId: readString(row.atomic_swap_id),
    poolId: readString(row.pool_id),
    apiKeyId: readString(row.api_key_id),
    developerParty: readString(row.developer_party),
    traderParty: readString(row.trader_party),
    keyFingerprint: readString(row.key_fingerprint),
    inputToken: readString(row.input_token),
    inputTokenAdmin: readString(row.input_token_admin),
    outputToken: readString(row.output_token),
    outputTokenAdmin: readString(row.output_token_admin),
    inputAmount: readAmount(row.input_amount),
    outputAmount: readAmount(row.output_amount),
    quotedOutput: readAmount(row.quoted_output),
    slippageTolerance: Number(row.slippage_tolerance),
    networkFeeAmount: readAmount(row.network_fee_amount),
    poolFeeAmount: readAmount(row.pool_fee_amount),
    lpFeeAmount: readAmount(row.lp_fee_amount),
    platformFeeAmount: readAmount(row.platform_fee_amount),
    inputAmountAfterPoolFee: readAmount(row.input_amount_after_pool_fee),
    networkFeePolicy: row.network_fee_policy ?? null,
    platformFeePolicy: row.platform_fee_policy ?? null,
    preparation: {
      commandId: readString(row.command_id),
      inputHoldingIds: readStrings(row.input_holding_ids),
      outputHoldingIds: readStrings(row.output_holding_ids),
      preparedTransaction: readString(row.prepared_transaction),
      preparedTransactionHash: readString(row.prepared_transaction_hash),
      hashingSchemeVersion: readString(row.hashing_scheme_version),
      expiresAt: readDate(row.expires_at),
    },
    preparations: readSafeInteger(row.preparations),
    status: readString(row.status) as AtomicSwapState,
    failureCode: readStringOrNull(row.failure_code),
    failureMessage: readStringOrNull(row.failure_message),
    signature:
      signature === null ? null : { signature, publicKey: readString(row.trader_public_key) },
    signedAt: readDateOrNull(row.signed_at),
    execution: executionOf(row),
    createdAt: readDate(row.created_at),
    completedAt: readDateOrNull(row.completed_at),
    updatedAt: readDate(row.updated_at),
  };
}

const INSERT_ATOMIC_SWAP = `
  WITH created AS (
    INSERT INTO atomic_swaps (atomic_swap_id, pool_id, api_key_id, developer_party, trader_party,
      key_fingerprint, input_token, input_token_admin, output_token, output_token_admin,
      input_amount, output_amount, quoted_output, slippage_tolerance, network_fee_amount,
      pool_fee_amount, lp_fee_amount, platform_fee_amount, input_amount_after_pool_fee,
      network_fee_policy, platform_fee_policy, command_id, input_holding_ids, output_holding_ids,
      prepared_transaction, prepared_transaction_hash, hashing_scheme_version, status,
      created_at, expires_at, updated_at)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19,
      $20::jsonb, $21::jsonb, $22, $23::jsonb, $24::jsonb, $25, $26, $27, 'prepared', $28, $29, $28)
    RETURNING *
  ), reserved AS (
    INSERT INTO atomic_swap_reservations (holding_id, atomic_swap_id, pool_id, reserved_at)
    SELECT h.value, c.atomic_swap_id, c.pool_id, c.created_at
    FROM created c CROSS JOIN LATERAL jsonb_array_elements_text(c.output_holding_ids) AS h(value)
  ), event AS (
    INSERT INTO atomic_swap_events (atomic_swap_id, status, at, payload)
    SELECT atomic_swap_id, status, created_at, '{}' FROM created
  )
  SELECT * FROM created`;

const UNIQUE_VIOLATION = '23505';

function isReservationConflict(error: unknown): boolean {
  const e = error as { code?: unknown; constraint?: unknown } | null;
  return e?.code === UNIQUE_VIOLATION && e.constraint === 'atomic_swap_reservations_pkey';
}

function checkHoldingCount(ids: readonly string[]): void {
  if (ids.length > OUTPUT_HOLDINGS_PER_SWAP_MAX) {
    throw new RangeError(
      `an output leg names at most ${OUTPUT_HOLDINGS_PER_SWAP_MAX} holdings, not ${ids.length}`,
    );
  }
}

/**
 * Creates a `prepared` swap with its first event and reserves the holdings its output leg names,
 * all or nothing; throws `HoldingReservedError` when another live swap reserved one of them.
 */
export async function insertAtomicSwap(
  q: Queryable,
  swap: NewAtomicSwap,
): Promise<AtomicSwapRecord> {
  const p = swap.preparation;
  checkHoldingCount(p.outputHoldingIds);
  try {
    const [row] = await q.query(INSERT_ATOMIC_SWAP, [
      swap.atomicSwapId,
      swap.poolId,
      swap.apiKeyId,
      swap.developerParty,
      swap.traderParty,
      swap.keyFingerprint,
      swap.inputToken,
      swap.inputTokenAdmin,
      swap.outputToken,
      swap.outputTokenAdmin,
      amountParam(swap.inputAmount),
      amountParam(swap.outputAmount),
      amountParam(swap.quotedOutput),
      swap.slippageTolerance,
      amountParam(swap.networkFeeAmount),
      amountParam(swap.poolFeeAmount),
      amountParam(swap.lpFeeAmount),
      amountParam(swap.platformFeeAmount),
      amountParam(swap.inputAmountAfterPoolFee),
      jsonParamOrNull(swap.networkFeePolicy),
      jsonParamOrNull(swap.platformFeePolicy),
      p.commandId,
      jsonParam(p.inputHoldingIds),
      jsonParam(p.outputHoldingIds),
      p.preparedTransaction,
      p.preparedTransactionHash,
      p.hashingSchemeVersion,
      swap.createdAt,
      p.expiresAt,
    ]);
    return atomicSwapFromRow(row as Row);
  } catch (error) {
    if (isReservationConflict(error)) {
      throw new HoldingReservedError(`a holding of swap ${swap.atomicSwapId} is reserved`);
    }
    throw error;
  }
}

/** The pool's holdings live swaps reserve: none of them may be named by another swap. */
export async function reservedHoldingIds(q: Queryable, poolId: string): Promise<Set<string>> {
  const rows = await q.query(
    'SELECT holding_id FROM atomic_swap_reservations WHERE pool_id = $1 LIMIT $2',
    [poolId, POOL_RESERVATIONS_READ_MAX],
  );
  return new Set(rows.map((row) => readString(row.holding_id)));
}

/**
 * The holdings live swaps reserve of the pools whose swap party is `swapParty`: a transfer it
 * sends must not name them (none for any other party).
 */
export async function reservedHoldingIdsOfParty(
  q: Queryable,
  swapParty: string,
): Promise<string[]> {
  const rows = await q.query(
    `SELECT r.holding_id FROM atomic_swap_reservations r
       JOIN pools p ON p.pool_id = r.pool_id
      WHERE p.swap_party = $1
      LIMIT $2`,
    [swapParty, POOL_RESERVATIONS_READ_MAX],
  );
  return rows.map((row) => readString(row.holding_id));
}

/** The holdings the swap reserves now (none once it ended). */
export async function reservationsOf(q: Queryable, atomicSwapId: string): Promise<string[]> {
  const rows = await q.query(
    'SELECT holding_id FROM atomic_swap_reservations WHERE atomic_swap_id = $1 ORDER BY holding_id',
    [atomicSwapId],
  );
  return rows.map((row) => readString(row.holding_id));
}

export function getAtomicSwap(
  q: Queryable,
  atomicSwapId: string,
  options: { readonly forUpdate?: boolean } = {},
): Promise<AtomicSwapRecord | null> {
  return intentRow(q, 'atomic_swap', atomicSwapId, atomicSwapFromRow, options);
}

/** The trader's swap; null for another party's, so ids cannot be probed. */
export function getAtomicSwapForParty(
  q: Queryable,
  atomicSwapId: string,
  traderParty: string,
): Promise<AtomicSwapRecord | null> {
  return intentRow(q, 'atomic_swap', atomicSwapId, atomicSwapFromRow, { owner: traderParty });
}

export interface AtomicSwapTransition {
  readonly atomicSwapId: string;
  readonly from: readonly AtomicSwapState[];
  readonly to: AtomicSwapState;
  /** A state passed on the way in the same write (`executing`, for a refusal under the lock). */
  readonly via?: AtomicSwapState;
  readonly at: Date;
  readonly failure?: { readonly code: string; readonly message: string };
  /** Written with the move to `executing`. */
  readonly signature?: { readonly signature: string; readonly publicKey: string };
  /** Written with the move to `completed`. */
  readonly execution?: AtomicSwapExecution;
  readonly payload?: Readonly<Record<string, unknown>>;
}

/**
 * Moves the swap from one of `from` to `to` with its event row; null when it was elsewhere
 * (another writer first). Ending it releases its reservations (the database's trigger). Throws
 * `IllegalPathError` before any statement when the move is not the lifecycle's.
 */
export async function transitionAtomicSwap(
  q: Queryable,
  move: AtomicSwapTransition,
): Promise<AtomicSwapRecord | null> {
  const payload = { ...(move.failure && { failure: move.failure }), ...move.payload };
  const facts = {
    failure_code: move.failure?.code ?? null,
    failure_message: move.failure?.message ?? null,
    trader_signature: move.signature?.signature ?? null,
    trader_public_key: move.signature?.publicKey ?? null,
    signed_at: move.signature === undefined ? null : move.at.toISOString(),
    update_id: move.execution?.updateId ?? null,
    curve_output: amountParamOrNull(move.execution?.curveOutput),
    excess: amountParamOrNull(move.execution?.excess),
    input_reserve_before: amountParamOrNull(move.execution?.reservesBefore?.input),
    output_reserve_before: amountParamOrNull(move.execution?.reservesBefore?.output),
  };
  const [row] = await writeIntentStates(
    q,
    'atomic_swap',
    [
      {
        id: move.atomicSwapId,
        from: move.from,
        through: move.via === undefined ? [move.to] : [move.via, move.to],
        facts,
        payloads: move.via === undefined ? [payload] : [{}, payload],
      },
    ],
    move.at,
  );
  return row ? atomicSwapFromRow(row) : null;
}

/**
 * An `executing` swap whose input the ledger found spent, prepared again: the new transaction
 * replaces the old (whose signature authorises nothing else), and its output leg's holdings
 * replace the old reservation. Null when the swap was no longer `executing`. Throws
 * `HoldingReservedError` when another live swap reserved one of the new holdings.
 */
export async function reprepareAtomicSwap(
  q: Queryable,
  atomicSwapId: string,
  preparation: AtomicSwapPreparation,
  at: Date,
): Promise<AtomicSwapRecord | null> {
  checkHoldingCount(preparation.outputHoldingIds);
  const facts = {
    command_id: preparation.commandId,
    prepared_transaction: preparation.preparedTransaction,
    prepared_transaction_hash: preparation.preparedTransactionHash,
    hashing_scheme_version: preparation.hashingSchemeVersion,
    output_holding_ids: jsonParam(preparation.outputHoldingIds),
    expires_at: preparation.expiresAt.toISOString(),
  };
  const [row] = await writeIntentStates(
    q,
    'atomic_swap',
    [
      {
        id: atomicSwapId,
        from: ['executing'],
        through: ['prepared'],
        facts,
        payloads: [{ reprepared: true }],
      },
    ],
    at,
  );
  if (!row) return null;
  await q.query('DELETE FROM atomic_swap_reservations WHERE atomic_swap_id = $1', [atomicSwapId]);
  try {
    await q.query(
      `INSERT INTO atomic_swap_reservations (holding_id, atomic_swap_id, pool_id, reserved_at)
       SELECT unnest($1::text[]), $2, $3, $4`,
      [[...preparation.outputHoldingIds], atomicSwapId, readString(row.pool_id), at],
    );
  } catch (error) {
    if (isReservationConflict(error)) {
      throw new HoldingReservedError(`a holding of swap ${atomicSwapId} is reserved`);
    }
    throw error;
  }
  return atomicSwapFromRow(row);
}

/** `prepared` swaps past their `expiresAt`, oldest first: the expiry sweep's. */
export async function dueAtomicSwaps(
  q: Queryable,
  now: Date,
  limit: number = ATOMIC_SWAP_BATCH_MAX,
): Promise<AtomicSwapRecord[]> {
  const rows = await q.query(
    `SELECT * FROM atomic_swaps WHERE status = 'prepared' AND expires_at <= $1
     ORDER BY expires_at, atomic_swap_id LIMIT $2`,
    [now, Math.min(limit, ATOMIC_SWAP_BATCH_MAX)],
  );
  return rows.map(atomicSwapFromRow);
}

/** `executing` swaps, oldest signature first: what a restart finds out from the ledger. */
export async function executingAtomicSwaps(
  q: Queryable,
  limit: number = ATOMIC_SWAP_BATCH_MAX,
): Promise<AtomicSwapRecord[]> {
  const rows = await q.query(
    `SELECT * FROM atomic_swaps WHERE status = 'executing'
     ORDER BY signed_at, atomic_swap_id LIMIT $1`,
    [Math.min(limit, ATOMIC_SWAP_BATCH_MAX)],
  );
  return rows.map(atomicSwapFromRow);
}

function atomicSwapEventFromRow(row: Row): AtomicSwapEventRecord {
  return {
    seq: readSafeInteger(row.seq),
    atomicSwapId: readString(row.atomic_swap_id),
    status: readString(row.status) as AtomicSwapState,
    at: readDate(row.at),
    payload: (row.payload ?? {}) as Record<string, unknown>,
  };
}

/** The swap's events in order, after `afterSeq` (SSE `Last-Event-ID`) when given. */
export const listAtomicSwapEvents: OutboxReader<AtomicSwapEventRecord> = outboxReader(
  'atomic_swap',
  atomicSwapEventFromRow,
);

/**
 * Of `commandIds`, those of an atomic swap's prepared transactions (any preparation of it):
 * their updates are the swaps' own, recorded by their execution, never deposits to take.
 */
export async function atomicSwapCommands(
  q: Queryable,
  commandIds: readonly string[],
): Promise<Set<string>> {
  const named = new Map<string, string>();
  for (const commandId of commandIds) {
    const match = ATOMIC_COMMAND_ID.exec(commandId);
    if (match?.[1] !== undefined) named.set(commandId, match[1]);
  }
  if (named.size === 0) return new Set();
  const rows = await q.query(
    'SELECT atomic_swap_id FROM atomic_swaps WHERE atomic_swap_id = ANY($1::text[])',
    [[...new Set(named.values())]],
  );
  const known = new Set(rows.map((row) => readString(row.atomic_swap_id)));
  return new Set([...named].filter(([, id]) => known.has(id)).map(([commandId]) => commandId));
}

/** `atomic-<atomic swap id>-<preparation>`, as settlement names an atomic swap's command. */
const ATOMIC_COMMAND_ID = /^atomic-(atm_[0-9A-Z]+)-\d+$/;
