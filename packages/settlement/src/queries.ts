/**
 * The engine's own queries over the store's schema (migrations 0001 and 0003): checkpoints taken
 * under a row lock, command retries and confirmations, offers, and the figures the guard reads.
 * Everything else goes through the store's query modules.
 */

import type {
  CommandLeg,
  DepositRecord,
  LedgerCommandRecord,
  Queryable,
  Row,
} from '@poolparty/store';
import {
  commandFromRow,
  getDeposit,
  readDateOrNull,
  readSafeInteger,
  readString,
  readStringOrNull,
} from '@poolparty/store';
import { AccountingError } from './accounting.js';

export interface EngineCommand extends LedgerCommandRecord {
  readonly submissions: number;
  readonly retryAt: Date | null;
  readonly offerId: string | null;
}

function engineCommandFromRow(row: Row): EngineCommand {
  return {
    ...commandFromRow(row),
    submissions: readSafeInteger(row.submissions),
    retryAt: readDateOrNull(row.retry_at),
    offerId: readStringOrNull(row.offer_id),
  };
}

function commandsFrom(rows: readonly Row[]): EngineCommand[] {
  return rows.map(engineCommandFromRow);
}

function firstCommand(rows: readonly Row[]): EngineCommand | null {
  return rows[0] ? engineCommandFromRow(rows[0]) : null;
}

export async function getCommand(q: Queryable, commandId: string): Promise<EngineCommand | null> {
  return firstCommand(
    await q.query('SELECT * FROM ledger_commands WHERE command_id = $1', [commandId]),
  );
}

export async function getCommands(
  q: Queryable,
  commandIds: readonly string[],
): Promise<EngineCommand[]> {
  return commandsFrom(
    await q.query('SELECT * FROM ledger_commands WHERE command_id = ANY($1::text[])', [commandIds]),
  );
}

/**
 * Locks the pool's accounting row (as `lockPool`, before any intent row) and says, in the same
 * round trip, whether the deposit is recorded already (a ledger event seen before).
 */
export async function lockPoolForDeposit(
  tx: Queryable,
  poolId: string,
  depositId: string,
): Promise<boolean> {
  const rows = await tx.query(
    `SELECT EXISTS (SELECT 1 FROM deposits WHERE deposit_id = $2) AS recorded
     FROM pool_accounting WHERE pool_id = $1 FOR UPDATE`,
    [poolId, depositId],
  );
  if (rows.length === 0) throw new AccountingError(`pool ${poolId} has no accounting`);
  return rows[0]?.recorded === true;
}

/**
 * `lockPoolForDeposit` for several deposits: the pools' accounting rows locked (in one order, so
 * two such locks never wait on each other) and which of the deposits are recorded already.
 */
export async function lockPoolsForDeposits(
  tx: Queryable,
  poolIds: readonly string[],
  depositIds: readonly string[],
): Promise<Set<string>> {
  const locked = await tx.query<{ pool_id: string }>(
    'SELECT pool_id FROM pool_accounting WHERE pool_id = ANY($1::text[]) ORDER BY pool_id FOR UPDATE',
    [poolIds],
  );
  const missing = poolIds.find((poolId) => !locked.some((row) => row.pool_id === poolId));
  if (missing !== undefined) throw new AccountingError(`pool ${missing} has no accounting`);
  const recorded = await tx.query<{ deposit_id: string }>(
    'SELECT deposit_id FROM deposits WHERE deposit_id = ANY($1::text[])',
    [depositIds],
  );
  return new Set(recorded.map((row) => row.deposit_id));
}

/** The first half of the execution lock's key: "PPEX" in ASCII, apart from the other locks. */
const EXECUTION_LOCK_SPACE = 0x50504558;

/**
 * Takes the right to execute the pool's queued swaps until the transaction ends, unless another
 * transaction holds it: false then, at once, without waiting. Only executions take it (before the
 * pool's accounting row), so it tells an engine that another one is executing the pool's batch,
 * while a deposit or a confirmation holding the accounting row is still waited for, as before.
 * The key is the pool qualified by the connection's schema (tests run many in one database); two
 * pools whose keys collide would only have one left for a round while the other executes.
 */
export async function claimPoolExecution(tx: Queryable, poolId: string): Promise<boolean> {
  const rows = await tx.query<{ claimed: boolean }>(
    `SELECT pg_try_advisory_xact_lock($1, hashtext(current_schema() || ':' || $2::text)) AS claimed`,
    [EXECUTION_LOCK_SPACE, poolId],
  );
  return rows[0]?.claimed === true;
}

/**
 * The checkpoint of `stream`, locked until the transaction ends, so that two ingesters never
 * apply the same update: the second waits, then sees the first one's checkpoint and skips.
 */
export async function lockCheckpoint(
  tx: Queryable,
  stream: string,
  initialOffset: number,
  now: Date,
): Promise<number> {
  // One statement: the row is created if missing, and either way locked and read (a conflict's
  // no-op update takes the row lock and returns the stored offset).
  const rows = await tx.query(
    `INSERT INTO ledger_offsets (stream, last_offset, updated_at) VALUES ($1, $2, $3)
     ON CONFLICT (stream) DO UPDATE SET last_offset = ledger_offsets.last_offset
     RETURNING last_offset`,
    [stream, initialOffset, now],
  );
  return readSafeInteger(rows[0]?.last_offset);
}

/**
 * Marks the command committed by `updateId` (and the offer it created, if any, with the time
 * the service withdraws that offer unless it ends before). Null when it was already final: a
 * confirmation applies its effects exactly once.
 */
export async function confirmCommand(
  tx: Queryable,
  input: {
    readonly commandId: string;
    readonly updateId: string;
    readonly offer: { readonly offerId: string; readonly withdrawAt: Date } | null;
    readonly now: Date;
  },
): Promise<EngineCommand | null> {
  const rows = await tx.query(
    `UPDATE ledger_commands SET status = 'committed', update_id = $2,
       offer_id = COALESCE($3, offer_id),
       offer_withdraw_due_at = COALESCE($5, offer_withdraw_due_at),
       retry_at = NULL, updated_at = $4
     WHERE command_id = $1 AND status IN ('recorded', 'submitted')
     RETURNING *`,
    [
      input.commandId,
      input.updateId,
      input.offer?.offerId ?? null,
      input.now,
      input.offer?.withdrawAt ?? null,
    ],
  );
  return firstCommand(rows);
}

/**
 * `confirmCommand` for several commands committed by plain transfers (no offer), in one
 * statement; the commands it confirmed (one confirmed or given up before is left out).
 */
export async function confirmCommands(
  tx: Queryable,
  confirmations: readonly { readonly commandId: string; readonly updateId: string }[],
  now: Date,
): Promise<EngineCommand[]> {
  if (confirmations.length === 0) return [];
  const rows = await tx.query(
    `UPDATE ledger_commands c SET status = 'committed', update_id = k.update_id,
       retry_at = NULL, updated_at = $2
     FROM jsonb_to_recordset($1::jsonb) AS k(command_id text, update_id text)
     WHERE c.command_id = k.command_id AND c.status IN ('recorded', 'submitted')
     RETURNING c.*`,
    [
      JSON.stringify(
        confirmations.map(({ commandId, updateId }) => ({
          command_id: commandId,
          update_id: updateId,
        })),
      ),
      now,
    ],
  );
  return commandsFrom(rows);
}

/** The offer ended (accepted, rejected, withdrawn): no withdrawal of it is due any more. */
export async function endCommandOffer(q: Queryable, offerId: string): Promise<void> {
  await q.query(
    `UPDATE ledger_commands SET offer_withdraw_due_at = NULL
     WHERE offer_id = $1 AND offer_withdraw_due_at IS NOT NULL`,
    [offerId],
  );
}

/** When the next withdrawal of an offer past its deadline falls due; null when none waits. */
export async function nextOfferWithdrawalAt(q: Queryable): Promise<Date | null> {
  const rows = await q.query(
    `SELECT min(offer_withdraw_due_at) AS next FROM ledger_commands
     WHERE offer_withdraw_due_at IS NOT NULL`,
  );
  return readDateOrNull(rows[0]?.next);
}

/** Payouts and refunds whose offer is due to be withdrawn by `ledgerNow`, earliest first. */
export async function dueOfferWithdrawals(
  q: Queryable,
  ledgerNow: Date,
  limit: number,
): Promise<EngineCommand[]> {
  const rows = await q.query(
    `SELECT * FROM ledger_commands WHERE offer_withdraw_due_at <= $1
     ORDER BY offer_withdraw_due_at, command_id LIMIT $2`,
    [ledgerNow, limit],
  );
  return commandsFrom(rows);
}

/**
 * Takes the due withdrawal of the command's offer, so that it is recorded once: false when
 * another worker took it, or the offer ended meanwhile.
 */
export async function takeOfferWithdrawal(q: Queryable, commandId: string): Promise<boolean> {
  const rows = await q.query(
    `UPDATE ledger_commands SET offer_withdraw_due_at = NULL
     WHERE command_id = $1 AND offer_withdraw_due_at IS NOT NULL RETURNING command_id`,
    [commandId],
  );
  return rows.length > 0;
}

/** A command that must not be submitted again: given up, or overtaken by the ledger. */
export async function failCommand(
  q: Queryable,
  commandId: string,
  error: string,
  now: Date,
): Promise<EngineCommand | null> {
  const rows = await q.query(
    `UPDATE ledger_commands SET status = 'failed', error = $2, retry_at = NULL, updated_at = $3
     WHERE command_id = $1 AND status IN ('recorded', 'submitted')
     RETURNING *`,
    [commandId, error, now],
  );
  return firstCommand(rows);
}

/** The ledger took the submission; its confirmation comes from the update stream. */
export async function markSubmitted(q: Queryable, commandId: string, now: Date): Promise<void> {
  await markAllSubmitted(q, [commandId], now);
}

/**
 * `markSubmitted` for every command of a round in one statement: the rows an ingest transaction
 * is confirming at that moment are waited for once, not once per command.
 */
export async function markAllSubmitted(
  q: Queryable,
  commandIds: readonly string[],
  now: Date,
): Promise<void> {
  if (commandIds.length === 0) return;
  await q.query(
    `UPDATE ledger_commands SET status = 'submitted', submissions = submissions + 1,
       retry_at = NULL, updated_at = $2
     WHERE command_id = ANY($1::text[]) AND status = 'recorded'`,
    [commandIds, now],
  );
}

/** The ledger refused the submission; the same command id is due again at `retryAt`. */
export async function scheduleRetry(
  q: Queryable,
  input: {
    readonly commandId: string;
    readonly error: string;
    readonly retryAt: Date;
    readonly now: Date;
  },
): Promise<number | null> {
  const rows = await q.query(
    `UPDATE ledger_commands SET submissions = submissions + 1, error = $2, retry_at = $3,
       status = 'recorded', updated_at = $4
     WHERE command_id = $1 AND status IN ('recorded', 'submitted')
     RETURNING submissions`,
    [input.commandId, input.error, input.retryAt, input.now],
  );
  return rows[0] ? readSafeInteger(rows[0].submissions) : null;
}

/** Found committed on the ledger during recovery: only the stream's confirmation is missing. */
export async function markKnownCommitted(
  q: Queryable,
  commandId: string,
  now: Date,
): Promise<void> {
  await q.query(
    `UPDATE ledger_commands SET status = 'submitted', retry_at = NULL, updated_at = $2
     WHERE command_id = $1 AND status = 'recorded'`,
    [commandId, now],
  );
}

/**
 * Claims a due command for one submission: its `retry_at` moves to `until`, so other workers do
 * not see it due meanwhile. False when another worker claimed it first (or it moved on).
 */
export async function claimCommand(
  q: Queryable,
  input: { readonly commandId: string; readonly now: Date; readonly until: Date },
): Promise<boolean> {
  const rows = await q.query(
    `UPDATE ledger_commands SET retry_at = $3
     WHERE command_id = $1 AND status = 'recorded' AND (retry_at IS NULL OR retry_at <= $2)
     RETURNING command_id`,
    [input.commandId, input.now, input.until],
  );
  return rows.length > 0;
}

/**
 * Claims up to `limit` due commands in one statement, oldest first: each one's `retry_at` moves
 * to `until`, so other workers do not see it due meanwhile; rows another worker is claiming at
 * this moment are skipped, not waited for.
 */
export async function claimDueCommands(
  q: Queryable,
  input: { readonly now: Date; readonly until: Date; readonly limit: number },
): Promise<EngineCommand[]> {
  const rows = await q.query(
    `WITH due AS (
       SELECT command_id FROM ledger_commands
       WHERE status = 'recorded' AND (retry_at IS NULL OR retry_at <= $1)
       ORDER BY created_at, command_id LIMIT $3
       FOR UPDATE SKIP LOCKED
     )
     UPDATE ledger_commands c SET retry_at = $2 FROM due
     WHERE c.command_id = due.command_id
     RETURNING c.*`,
    [input.now, input.until, input.limit],
  );
  return commandsFrom(rows).sort(
    (x, y) =>
      x.createdAt.getTime() - y.createdAt.getTime() ||
      (x.commandId < y.commandId ? -1 : x.commandId > y.commandId ? 1 : 0),
  );
}

/** When the next backed-off submission is due; null when none waits. */
export async function nextRetryAt(q: Queryable): Promise<Date | null> {
  const rows = await q.query(
    `SELECT min(retry_at) AS next FROM ledger_commands
     WHERE status = 'recorded' AND retry_at IS NOT NULL`,
  );
  return readDateOrNull(rows[0]?.next);
}

/** Recorded or submitted commands after `afterId` in id order: the recovery work list. */
export async function unconfirmedCommands(
  q: Queryable,
  afterId: string,
  limit: number,
): Promise<EngineCommand[]> {
  const rows = await q.query(
    `SELECT * FROM ledger_commands
     WHERE status IN ('recorded', 'submitted') AND command_id > $1
     ORDER BY command_id LIMIT $2`,
    [afterId, limit],
  );
  return commandsFrom(rows);
}

export async function commandByOffer(q: Queryable, offerId: string): Promise<EngineCommand | null> {
  const rows = await q.query(
    `SELECT * FROM ledger_commands
     WHERE offer_id = $1 ORDER BY created_at LIMIT 1`,
    [offerId],
  );
  return firstCommand(rows);
}

/** The deposit's unfinished commands of `leg` (an accept or reject still to confirm). */
export async function openCommandsOfDeposit(
  q: Queryable,
  depositId: string,
  leg: CommandLeg,
): Promise<EngineCommand[]> {
  const rows = await q.query(
    `SELECT * FROM ledger_commands
     WHERE deposit_id = $1 AND leg = $2 AND status IN ('recorded', 'submitted')`,
    [depositId, leg],
  );
  return commandsFrom(rows);
}

export async function depositByOffer(q: Queryable, offerId: string): Promise<DepositRecord | null> {
  const rows = await q.query('SELECT deposit_id FROM deposits WHERE offer_id = $1 LIMIT 1', [
    offerId,
  ]);
  const id = rows[0]?.deposit_id;
  return typeof id === 'string' ? getDeposit(q, id) : null;
}

export async function setDepositFlagged(
  q: Queryable,
  depositId: string,
  now: Date,
): Promise<boolean> {
  const rows = await q.query(
    `UPDATE deposits SET status = 'flagged', updated_at = $2
     WHERE deposit_id = $1 AND status = 'unmatched' RETURNING deposit_id`,
    [depositId, now],
  );
  return rows.length > 0;
}

/**
 * Records the facts of a refund that committed after the intent ended `refund_failed` (an
 * operator's attempt); the state stays. False when the intent is elsewhere or already has them.
 */
export async function recordLateRefund(
  tx: Queryable,
  input: {
    readonly intentId: string;
    readonly amount: string;
    readonly networkFeeAmount: string;
    readonly updateId: string;
    readonly now: Date;
  },
): Promise<boolean> {
  const rows = await tx.query(
    `UPDATE intents SET refund_amount = $2, refund_network_fee_amount = $3, refund_update_id = $4,
       updated_at = $5
     WHERE intent_id = $1 AND status = 'refund_failed' AND refund_update_id IS NULL
     RETURNING intent_id`,
    [input.intentId, input.amount, input.networkFeeAmount, input.updateId, input.now],
  );
  return rows.length > 0;
}

/** Completed swaps of the pool whose payout update id or fee event is missing. */
export async function countIncompleteCompletedSwaps(q: Queryable, poolId: string): Promise<number> {
  const rows = await q.query(
    `SELECT count(*) AS n FROM intents i
     WHERE i.pool_id = $1 AND i.status = 'completed'
       AND (i.payout_update_id IS NULL OR i.actual_output IS NULL
            OR NOT EXISTS (SELECT 1 FROM fee_events f WHERE f.intent_id = i.intent_id))`,
    [poolId],
  );
  return readSafeInteger(rows[0]?.n ?? '0');
}

/** `countIncompleteCompletedSwaps` of each of `poolIds` in one statement; pools with none are absent. */
export async function countIncompleteCompletedSwapsByPool(
  q: Queryable,
  poolIds: readonly string[],
): Promise<Map<string, number>> {
  const rows = await q.query(
    `SELECT i.pool_id, count(*) AS n FROM intents i
     WHERE i.pool_id = ANY($1::text[]) AND i.status = 'completed'
       AND (i.payout_update_id IS NULL OR i.actual_output IS NULL
            OR NOT EXISTS (SELECT 1 FROM fee_events f WHERE f.intent_id = i.intent_id))
     GROUP BY i.pool_id`,
    [poolIds],
  );
  return new Map(rows.map((row) => [readString(row.pool_id), readSafeInteger(row.n)]));
}

/** A reversed swap did not happen: it leaves stats, earnings and the velocity window. */
export async function deleteFeeEvent(tx: Queryable, intentId: string): Promise<void> {
  await tx.query('DELETE FROM fee_events WHERE intent_id = $1', [intentId]);
}
