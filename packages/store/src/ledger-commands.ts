/**
 * Ledger commands, recorded before submission (docs/spec/lifecycle.md#exactly-once). The id is
 * deterministic (`<intentId>:<leg>:<attempt>`; a withdrawal's `<offerId>:withdraw:0`, one per
 * offer) so the ledger deduplicates it, and a command found `recorded` or `submitted` after a
 * restart is looked up on the ledger before anything else is decided.
 */
import { jsonParam, read } from './columns.js';
import type { Queryable, Row } from './database.js';

/**
 * `withdraw`: the service takes back its own payout or refund offer after its deadline;
 * `collect`: a developer's accrued earnings leave a swap party (settlement's collections.ts);
 * `lp_accept`, `forward`, `lp_return`, `lp_payout`: liquidity (docs/spec/liquidity.md) — a deposit
 * offer to an LP party accepted, a deposit forwarded from the LP party to the swap party, an
 * amount returned to a provider, a withdrawal's payout; `sweep`: the platform's fees leave a swap
 * party for the treasury (settlement's treasury.ts).
 */
export type CommandLeg =
  | 'accept'
  | 'payout'
  | 'refund'
  | 'reject'
  | 'withdraw'
  | 'collect'
  | 'lp_accept'
  | 'forward'
  | 'lp_return'
  | 'lp_payout'
  | 'sweep';

/** The subjects a command may serve besides an intent or a deposit, by column. */
const EXTRA_SUBJECTS = {
  collectionId: 'collection_id',
  liquidityIntentId: 'liquidity_intent_id',
  liquidityDepositId: 'liquidity_deposit_id',
  withdrawalId: 'withdrawal_id',
  sweepId: 'sweep_id',
} as const;
export type CommandStatus = 'recorded' | 'submitted' | 'committed' | 'failed';

/** What a ledger command serves: the intent, deposit, collection, liquidity leg or sweep. */
export interface LedgerCommandSubject {
  readonly intentId: string | null;
  readonly depositId: string | null;
  /** The developer collection a `collect` command (or the withdrawal of its offer) serves. */
  readonly collectionId?: string | null;
  /** The liquidity intent, liquidity deposit or withdrawal a liquidity leg serves. */
  readonly liquidityIntentId?: string | null;
  readonly liquidityDepositId?: string | null;
  readonly withdrawalId?: string | null;
  /** The treasury sweep a `sweep` command (or the withdrawal of its offer) serves. */
  readonly sweepId?: string | null;
}

export interface NewLedgerCommand extends LedgerCommandSubject {
  readonly commandId: string;
  readonly leg: CommandLeg;
  readonly attempt: number;
  /** What was (or will be) submitted, so the command can be resubmitted identically. */
  readonly payload: unknown;
  readonly createdAt: Date;
}

export interface LedgerCommandRecord extends NewLedgerCommand {
  readonly status: CommandStatus;
  readonly updateId: string | null;
  readonly error: string | null;
  readonly updatedAt: Date;
}

export function commandIdOf(subjectId: string, leg: CommandLeg, attempt: number): string {
  return `${subjectId}:${leg}:${attempt}`;
}

/** The store's reading of a `ledger_commands` row; the engine extends it with its own columns. */
export function commandFromRow(row: Row): LedgerCommandRecord {
  return {
    commandId: read.string(row.command_id),
    intentId: read.stringOrNull(row.intent_id),
    depositId: read.stringOrNull(row.deposit_id),
    collectionId: read.stringOrNull(row.collection_id),
    liquidityIntentId: read.stringOrNull(row.liquidity_intent_id),
    liquidityDepositId: read.stringOrNull(row.liquidity_deposit_id),
    withdrawalId: read.stringOrNull(row.withdrawal_id),
    sweepId: read.stringOrNull(row.sweep_id),
    leg: read.string(row.leg) as CommandLeg,
    attempt: read.safeInteger(row.attempt),
    payload: row.payload,
    status: read.string(row.status) as CommandStatus,
    updateId: read.stringOrNull(row.update_id),
    error: read.stringOrNull(row.error),
    createdAt: read.date(row.created_at),
    updatedAt: read.date(row.updated_at),
  };
}

/** Records the command as `recorded`; a command already recorded is returned as it is. */
export async function recordLedgerCommand(
  q: Queryable,
  command: NewLedgerCommand,
): Promise<LedgerCommandRecord> {
  const params = [
    command.commandId,
    command.intentId,
    command.depositId,
    command.leg,
    command.attempt,
    jsonParam(command.payload),
    command.createdAt,
  ];
  // Only the subject columns a command names are written, so recording a swap's command still
  // works on a store at an earlier schema, as the migration tests build them.
  const extra = Object.entries(EXTRA_SUBJECTS).flatMap(([field, column]) => {
    const value = command[field as keyof typeof EXTRA_SUBJECTS] ?? null;
    return value === null ? [] : [{ column, value }];
  });
  const columns = extra.map(({ column }) => `, ${column}`).join('');
  const values = extra.map((_, i) => `, $${params.length + 1 + i}`).join('');
  const rows = await q.query(
    `INSERT INTO ledger_commands (command_id, intent_id, deposit_id, leg, attempt, status,
       payload, created_at, updated_at${columns})
     VALUES ($1, $2, $3, $4, $5, 'recorded', $6::jsonb, $7, $7${values})
     ON CONFLICT (command_id) DO NOTHING
     RETURNING *`,
    [...params, ...extra.map(({ value }) => value)],
  );
  if (rows[0]) return commandFromRow(rows[0]);
  const existing = await getLedgerCommand(q, command.commandId);
  if (!existing) throw new Error(`command ${command.commandId} vanished while being recorded`);
  return existing;
}

/**
 * Records several commands as `recorded` in one statement (none of them a collection's); one
 * already recorded stays as it is.
 */
export async function recordLedgerCommands(
  q: Queryable,
  commands: readonly NewLedgerCommand[],
): Promise<void> {
  if (commands.length === 0) return;
  const rows = commands.map((command) => {
    if (Object.keys(EXTRA_SUBJECTS).some((f) => (command[f as 'collectionId'] ?? null) !== null)) {
      throw new RangeError(
        `command ${command.commandId}: a collection's, liquidity's or sweep's is recorded alone`,
      );
    }
    return {
      command_id: command.commandId,
      intent_id: command.intentId,
      deposit_id: command.depositId,
      leg: command.leg,
      attempt: command.attempt,
      payload: command.payload,
      created_at: command.createdAt.toISOString(),
    };
  });
  await q.query(
    `INSERT INTO ledger_commands (command_id, intent_id, deposit_id, leg, attempt, status,
       payload, created_at, updated_at)
     SELECT command_id, intent_id, deposit_id, leg, attempt, 'recorded', payload,
       created_at::timestamptz, created_at::timestamptz
     FROM jsonb_to_recordset($1::jsonb) AS c(command_id text, intent_id text, deposit_id text,
       leg text, attempt int, payload jsonb, created_at text)
     ORDER BY command_id
     ON CONFLICT (command_id) DO NOTHING`,
    [jsonParam(rows)],
  );
}

export async function getLedgerCommand(
  q: Queryable,
  commandId: string,
): Promise<LedgerCommandRecord | null> {
  const rows = await q.query('SELECT * FROM ledger_commands WHERE command_id = $1', [commandId]);
  return rows[0] ? commandFromRow(rows[0]) : null;
}

/**
 * Records the command's progress. A committed or failed command is final: null when the command
 * is already final (or unknown), so a late duplicate outcome cannot overwrite the first.
 */
export async function markLedgerCommand(
  q: Queryable,
  input: {
    readonly commandId: string;
    readonly status: Exclude<CommandStatus, 'recorded'>;
    readonly updateId?: string;
    readonly error?: string;
    readonly now: Date;
  },
): Promise<LedgerCommandRecord | null> {
  const rows = await q.query(
    `UPDATE ledger_commands SET status = $2, update_id = COALESCE($3, update_id),
       error = COALESCE($4, error), updated_at = $5
     WHERE command_id = $1 AND status IN ('recorded', 'submitted')
     RETURNING *`,
    [input.commandId, input.status, input.updateId ?? null, input.error ?? null, input.now],
  );
  return rows[0] ? commandFromRow(rows[0]) : null;
}

/** Commands recorded or submitted but not confirmed, oldest first: the restart work list. */
export async function listUnconfirmedCommands(
  q: Queryable,
  limit: number,
): Promise<LedgerCommandRecord[]> {
  const rows = await q.query(
    `SELECT * FROM ledger_commands WHERE status IN ('recorded', 'submitted')
     ORDER BY created_at, command_id LIMIT $1`,
    [limit],
  );
  return rows.map(commandFromRow);
}

export async function listCommandsOfIntent(
  q: Queryable,
  intentId: string,
): Promise<LedgerCommandRecord[]> {
  const rows = await q.query(
    'SELECT * FROM ledger_commands WHERE intent_id = $1 ORDER BY created_at, command_id',
    [intentId],
  );
  return rows.map(commandFromRow);
}
