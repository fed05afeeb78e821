/**
 * The ledger command queue as the settlement engine works it: commands recorded before they are
 * submitted, claimed for submission, retried with backoff, confirmed exactly once by the update
 * that committed them, and the offers they create withdrawn when they expire.
 */

import { read } from './columns.js';
import type { Queryable, Row } from './database.js';
import type { CommandLeg, LedgerCommandRecord } from './ledger-commands.js';
import { commandFromRow } from './ledger-commands.js';

export interface EngineCommand extends LedgerCommandRecord {
  readonly submissions: number;
  readonly retryAt: Date | null;
  readonly offerId: string | null;
}

function engineCommandFromRow(row: Row): EngineCommand {
  return {
    ...commandFromRow(row),
    submissions: read.safeInteger(row.submissions),
    retryAt: read.dateOrNull(row.retry_at),
    offerId: read.stringOrNull(row.offer_id),
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
  return read.dateOrNull(rows[0]?.next);
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

/** `markSubmitted` for every command of a submitted batch, in one statement. */
export async function markAllSubmitted(
  q: Queryable,
  commandIds: readonly string[],
  now: Date,
): Promise<void> {
  if (commandIds.length === 0) return;
  // A row locked now is one an ingest is confirming (its commit already on the stream): waiting
  // for it would hold the submitting batch behind that whole ingest, and the mark would then find
  // it committed and change nothing. Should that ingest roll back, the command stays `recorded`
  // and claimed, and is sent again under its id once the claim runs out.
  await q.query(
    `UPDATE ledger_commands SET status = 'submitted', submissions = submissions + 1,
       retry_at = NULL, updated_at = $2
     WHERE command_id IN (
       SELECT command_id FROM ledger_commands
       WHERE command_id = ANY($1::text[]) AND status = 'recorded'
       FOR UPDATE SKIP LOCKED)`,
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
  return rows[0] ? read.safeInteger(rows[0].submissions) : null;
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
  return read.dateOrNull(rows[0]?.next);
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

/** Whether a refund of the intent was ever recorded. */
export async function hasRefundCommand(q: Queryable, intentId: string): Promise<boolean> {
  const rows = await q.query(
    `SELECT 1 FROM ledger_commands WHERE intent_id = $1 AND leg = 'refund' LIMIT 1`,
    [intentId],
  );
  return rows.length > 0;
}

/**
 * The refunds recorded for a subject (an intent, or an unmatched deposit with no intent), the
 * latest attempt first.
 */
export async function refundCommandsOf(
  q: Queryable,
  subjectId: string,
): Promise<LedgerCommandRecord[]> {
  const rows = await q.query(
    `SELECT command_id, intent_id, deposit_id, leg, attempt, payload, status, update_id, error,
       created_at, updated_at FROM ledger_commands
     WHERE leg = 'refund' AND (intent_id = $1 OR (intent_id IS NULL AND deposit_id = $1))
     ORDER BY attempt DESC`,
    [subjectId],
  );
  return rows.map(commandFromRow);
}

/**
 * Every attempt recorded of one leg of one subject: the commands `<subjectId>:<leg>:<n>`, lowest
 * attempt first. An operator's re-send of a leg is its next attempt.
 */
export async function commandAttemptsOf(
  q: Queryable,
  subjectId: string,
  leg: CommandLeg,
): Promise<EngineCommand[]> {
  const prefix = `${subjectId}:${leg}:`;
  const rows = await q.query(
    `SELECT * FROM ledger_commands
     WHERE leg = $1 AND starts_with(command_id, $2)
       AND substr(command_id, length($2) + 1) ~ '^[0-9]+$'
     ORDER BY attempt, command_id`,
    [leg, prefix],
  );
  return commandsFrom(rows);
}

/** The liquidity deposit's unfinished commands (an accept, a forward or a return still to confirm). */
export async function openCommandsOfLiquidityDeposit(
  q: Queryable,
  depositId: string,
): Promise<EngineCommand[]> {
  const rows = await q.query(
    `SELECT * FROM ledger_commands
     WHERE liquidity_deposit_id = $1 AND status IN ('recorded', 'submitted')`,
    [depositId],
  );
  return commandsFrom(rows);
}

/**
 * Workers listen here: a command recorded outside the engine (a withdrawal's payouts, by the API)
 * wakes them at once instead of at their next idle round. Only a hint, sent at commit.
 */
export const ENGINE_WORK_CHANNEL = 'engine_work';

export async function announceEngineWork(q: Queryable): Promise<void> {
  await q.query(`SELECT pg_notify('${ENGINE_WORK_CHANNEL}', '')`);
}
