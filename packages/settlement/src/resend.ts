/**
 * An operator's re-send of a liquidity payout or return the engine gave up on (`poolparty admin
 * flags retry`, docs/operations.md#liquidity): a withdrawal's payout (`lp_payout`), an amount
 * returned to a provider (`lp_return`), or a deposit whose forward failed, which goes back to its
 * sender from the LP party.
 *
 * read → plan → write, in one transaction under the pool's lock: the flag, the command it names,
 * every attempt of the leg and the state of what the command served are read, core's
 * `planResend` decides, and the new attempt is recorded together with the withdrawal side or
 * deposit leaving `flagged`, the flag resolved (naming the attempt) and the audit row. Two runs,
 * in one process or two, serialize on the pool's lock; the second finds the flag resolved and
 * sends nothing. The store records; a worker submits the attempt and the update stream confirms
 * it like any attempt of its leg, so the books give the amount up once it arrives. Should the
 * attempt fail too, a new flag names it. Should the command given up on commit after all, its
 * confirmation finds it `failed` and raises `late_confirmation` (ingest.ts): never a second
 * payment unnoticed.
 */
import {
  BaseError,
  type Instrument,
  planResend,
  type ResendInput,
  type ResendSubject,
  resendTargetOf,
  type TransferPayload,
} from '@poolparty/core';
import type { Database, EngineCommand, Queryable } from '@poolparty/store';
import {
  announceEngineWork,
  commandAttemptsOf,
  getCommand,
  getLiquidityDeposit,
  getOperatorFlag,
  getWithdrawal,
  moveLiquidityDeposit,
  moveWithdrawalPayout,
  type OperatorFlag,
  recordAdminAction,
  recordLedgerCommand,
  resolveOperatorFlag,
} from '@poolparty/store';
import { lockPool } from './accounting.js';
import { transferPayloadOf } from './legs.js';

/** A re-send the store's state does not allow; the message says why, for the operator. */
export class ResendRefused extends BaseError<'resend_refused'> {
  override readonly name = 'ResendRefused';
  constructor(message: string) {
    super('resend_refused', message);
  }
}

/** The audit action a re-send records. */
export const RESEND_ACTION = 'flags.retry';

export interface ResentCommand {
  readonly flagId: number;
  readonly kind: string;
  readonly commandId: string;
  /** The command given up on that this one sends again. */
  readonly replaces: string;
  readonly amount: string;
  readonly instrument: Instrument;
  readonly receiver: string;
}

interface ResendFacts {
  readonly flag: OperatorFlag;
  readonly command: EngineCommand | null;
  readonly input: ResendInput;
  readonly poolId: string | null;
}

/**
 * Records the re-send of what flag `flagId` says the service gave up sending, exactly once;
 * refused with `ResendRefused` (nothing written) when it is not owed any more or not yet.
 */
export async function resendFlagged(
  db: Database,
  flagId: number,
  by: { readonly actor: string; readonly now: Date },
): Promise<ResentCommand> {
  return db.transaction(async (tx) => {
    // The pool is known only from what the flag names; everything is read again under its lock.
    const { poolId } = await readFacts(tx, flagId);
    if (poolId !== null) await lockPool(tx, poolId);
    const facts = await readFacts(tx, flagId);
    const plan = planResend(facts.input);
    if (plan.kind === 'refused') throw new ResendRefused(plan.reason);
    const command = facts.command as EngineCommand;
    await reopen(tx, command, plan.reopen, by.now);
    await recordLedgerCommand(tx, {
      commandId: plan.commandId,
      intentId: null,
      depositId: null,
      liquidityIntentId: command.liquidityIntentId ?? null,
      liquidityDepositId: command.liquidityDepositId ?? null,
      withdrawalId: command.withdrawalId ?? null,
      leg: plan.leg,
      attempt: plan.attempt,
      payload: plan.payload,
      createdAt: by.now,
    });
    const resolution = `re-sent as ${plan.commandId}`;
    if ((await resolveOperatorFlag(tx, { id: flagId, resolution, now: by.now })) === null) {
      throw new ResendRefused(`flag ${flagId} was resolved meanwhile: nothing was sent`);
    }
    const resent = resentOf(facts.flag, command, plan.commandId, plan.payload);
    await recordAdminAction(tx, {
      actor: by.actor,
      action: RESEND_ACTION,
      subject: `flag ${flagId}`,
      details: { ...resent },
      at: by.now,
    });
    // A running worker submits it now, not at its next idle round.
    await announceEngineWork(tx);
    return resent;
  });
}

function resentOf(
  flag: OperatorFlag,
  command: EngineCommand,
  commandId: string,
  payload: TransferPayload,
): ResentCommand {
  return {
    flagId: flag.id,
    kind: flag.kind,
    commandId,
    replaces: command.commandId,
    amount: payload.amount,
    instrument: payload.instrument,
    receiver: payload.receiver,
  };
}

/** The command the flag names (its `details.commandId`), if it is the service's. */
function flaggedCommandId(flag: OperatorFlag): string | null {
  const details = (flag.details ?? {}) as { readonly commandId?: unknown };
  return typeof details.commandId === 'string' ? details.commandId : null;
}

async function readFacts(tx: Queryable, flagId: number): Promise<ResendFacts> {
  const flag = await getOperatorFlag(tx, flagId);
  if (flag === null) throw new ResendRefused(`no flag ${flagId}`);
  const commandId = flaggedCommandId(flag);
  const command = commandId === null ? null : await getCommand(tx, commandId);
  const payload = command === null ? null : transferPayloadOrNull(command);
  const target = command === null ? null : resendTargetOf(flatCommand(command));
  const attempts = target === null ? [] : await commandAttemptsOf(tx, target.subjectId, target.leg);
  const { subject, poolId } = await subjectOf(tx, command);
  return {
    flag,
    command,
    poolId: payload?.poolId ?? poolId,
    input: {
      flag: {
        id: flag.id,
        kind: flag.kind,
        resolution: flag.resolution,
        resolved: flag.resolvedAt !== null,
      },
      command: command === null || payload === null ? null : { ...flatCommand(command), payload },
      attempts: attempts.map(flatCommand),
      subject,
    },
  };
}

function transferPayloadOrNull(command: EngineCommand): TransferPayload | null {
  const payload = command.payload as { readonly kind?: unknown } | null;
  return payload?.kind === 'transfer' ? transferPayloadOf(command) : null;
}

function flatCommand(command: EngineCommand) {
  return {
    commandId: command.commandId,
    leg: command.leg,
    attempt: command.attempt,
    status: command.status,
    offerId: command.offerId,
    updateId: command.updateId,
    liquidityDepositId: command.liquidityDepositId ?? null,
  };
}

/** The withdrawal side or LP-party deposit the command served, and the pool it belongs to. */
async function subjectOf(
  tx: Queryable,
  command: EngineCommand | null,
): Promise<{ readonly subject: ResendSubject; readonly poolId: string | null }> {
  const none = { subject: { kind: 'none' } as const, poolId: null };
  if (command === null) return none;
  const side = (command.payload as { readonly side?: unknown } | null)?.side;
  if (command.leg === 'lp_payout' && command.withdrawalId && (side === 'a' || side === 'b')) {
    const withdrawal = await getWithdrawal(tx, command.withdrawalId);
    if (withdrawal === null) return none;
    const state = side === 'a' ? withdrawal.payoutA : withdrawal.payoutB;
    return { subject: { kind: 'withdrawal_side', state }, poolId: withdrawal.poolId };
  }
  const depositId = command.liquidityDepositId ?? null;
  const deposit = depositId === null ? null : await getLiquidityDeposit(tx, depositId);
  if (deposit === null) return none;
  const { status, sender, instrument, amount } = deposit;
  return {
    subject: { kind: 'deposit', status, sender, instrument, amount: amount.toString() },
    poolId: deposit.poolId,
  };
}

/** Takes what the re-send pays out of `flagged`, so its confirmation finds it waiting again. */
async function reopen(
  tx: Queryable,
  command: EngineCommand,
  what: 'withdrawal_side' | 'deposit' | null,
  now: Date,
): Promise<void> {
  if (what === null) return;
  const { side } = transferPayloadOf(command);
  const reopened =
    what === 'deposit'
      ? await moveLiquidityDeposit(tx, {
          depositId: command.liquidityDepositId as string,
          from: ['flagged'],
          to: 'returning',
          now,
        })
      : await moveWithdrawalPayout(tx, {
          withdrawalId: command.withdrawalId as string,
          side: side ?? 'a',
          from: ['flagged'],
          to: 'pending',
          now,
        });
  // The plan read it flagged under the pool's lock: a miss means the store is not as read.
  if (reopened === null) {
    throw new ResendRefused(`${command.commandId}: what it served is no longer flagged`);
  }
}
