/**
 * The ledger legs the engine sends (accept, reject, payout, refund, and the withdrawal of its own
 * offer after its deadline): what each records before it is submitted, and what its outcome does
 * to intents, deposits and the books.
 *
 * Every outcome is applied in the caller's transaction, after the pool's accounting row is
 * locked, and only if a conditional state change succeeds first (an intent leaving the state the
 * leg was waiting in, a deposit leaving `unmatched`); a second delivery of the same outcome finds
 * that state gone and changes nothing, so no amount is ever moved twice.
 */
import {
  Amount,
  type ArrivedPayout,
  assert,
  assertPath,
  type CommandPayload,
  custodyOf,
  type FailureReason,
  type Instrument,
  InvariantError,
  intentFeesOf,
  type OfferActionPayload,
  offeredRefundOf,
  payoutReversal,
  payoutsArrived,
  planIntentRefund,
  type RefundSettlement,
  SWAP_LIFECYCLE,
  sideOf,
  type TransferPayload,
  transferArrived,
} from '@poolparty/core';
import { REASON_META_KEY } from '@poolparty/ledger';
import type { LedgerCommandSubject, Queryable } from '@poolparty/store';
import {
  type CommandLeg,
  commandIdOf,
  deleteFeeEvent,
  type EngineCommand,
  failCommand,
  getDeposit,
  getDepositOfIntent,
  getIntent,
  getPool,
  hasRefundCommand,
  type IntentPath,
  type IntentRecord,
  type IntentTransition,
  moveIntentsAlong,
  type PoolBalances,
  raiseOperatorFlag,
  recordLateRefund,
  recordLedgerCommand,
  recordLegOffer,
  resolveOperatorFlag,
  setDepositFlagged,
  setDepositStatus,
  settleLegOffer,
  transitionIntent,
} from '@poolparty/store';
import { AccountingError, lockPool, moveBalances, type Side } from './accounting.js';
import type { Effects } from './context.js';

export type {
  CommandPayload,
  OfferActionPayload,
  OperatorRetry,
  RefundSettlement,
  TransferPayload,
} from '@poolparty/core';

export function payloadOf(command: EngineCommand): CommandPayload {
  const payload = command.payload as CommandPayload | null;
  if (payload === null || typeof payload !== 'object' || !('kind' in payload)) {
    throw new InvariantError(`command ${command.commandId} has no payload the engine can submit`);
  }
  return payload;
}

export function transferPayloadOf(command: EngineCommand): TransferPayload {
  const payload = payloadOf(command);
  assert(payload.kind === 'transfer', `command ${command.commandId} is no transfer`);
  return payload;
}

export function offerActionPayloadOf(command: EngineCommand): OfferActionPayload {
  const payload = payloadOf(command);
  assert(payload.kind !== 'transfer', `command ${command.commandId} is a transfer`);
  return payload;
}

export function transferMeta(payload: TransferPayload): Record<string, string> {
  return { [REASON_META_KEY]: payload.reason };
}

// --- recording -------------------------------------------------------------------------------

export interface CommandSubject extends LedgerCommandSubject {
  /** Told apart in the command's id when one subject sends a leg per side (`<id>.a`, `<id>.b`). */
  readonly part?: string;
}

/** The subject's id a command's id is made of: the first the subject names. */
function subjectIdOf(subject: CommandSubject): string | null {
  return (
    subject.intentId ??
    subject.depositId ??
    subject.collectionId ??
    subject.liquidityDepositId ??
    subject.liquidityIntentId ??
    subject.withdrawalId ??
    subject.sweepId ??
    null
  );
}

async function record(
  tx: Queryable,
  subject: CommandSubject,
  leg: CommandLeg,
  payload: CommandPayload,
  now: Date,
): Promise<void> {
  const subjectOnly = subjectIdOf(subject);
  assert(subjectOnly !== null, 'a command needs a subject to serve');
  const subjectId = subject.part === undefined ? subjectOnly : `${subjectOnly}.${subject.part}`;
  // An intent may make several offers (a payout, then a refund): a withdrawal is the offer's own.
  const commandSubject = payload.kind === 'withdraw' ? payload.offerId : subjectId;
  await recordLedgerCommand(tx, {
    commandId: commandIdOf(commandSubject, leg, 0),
    intentId: subject.intentId,
    depositId: subject.depositId,
    collectionId: subject.collectionId ?? null,
    liquidityIntentId: subject.liquidityIntentId ?? null,
    liquidityDepositId: subject.liquidityDepositId ?? null,
    withdrawalId: subject.withdrawalId ?? null,
    sweepId: subject.sweepId ?? null,
    leg,
    attempt: 0,
    payload,
    createdAt: now,
  });
}

/** Records an accept, reject or withdrawal of an offer; `leg` when it is not the action's name. */
export function recordOfferAction(
  tx: Queryable,
  subject: CommandSubject,
  payload: OfferActionPayload,
  now: Date,
  leg: CommandLeg = payload.kind,
): Promise<void> {
  return record(tx, subject, leg, payload, now);
}

/**
 * Records the withdrawal of the offer a payout or refund made (an offer unanswered by its
 * deadline ends `expired`). Canton leaves an expired offer pending with the amount locked,
 * so the sender, the swap party, takes it back; the withdrawal's confirmation then ends the leg
 * as the ledger's expiry used to. The command id is the offer's, so it is recorded once.
 */
export function recordOfferWithdrawal(
  tx: Queryable,
  offerCommand: EngineCommand,
  offerId: string,
  now: Date,
): Promise<void> {
  const payload = transferPayloadOf(offerCommand);
  return record(
    tx,
    offerCommand,
    'withdraw',
    { kind: 'withdraw', poolId: payload.poolId, offerId, actor: payload.sender },
    now,
  );
}

export function recordTransfer(
  tx: Queryable,
  subject: CommandSubject,
  leg: 'payout' | 'refund' | 'collect' | 'sweep' | 'forward' | 'lp_return' | 'lp_payout',
  payload: TransferPayload,
  now: Date,
): Promise<void> {
  return record(tx, subject, leg, payload, now);
}

/**
 * Refunds `refund` of the intent's deposit: the refund command is recorded and the intent stays
 * where it is until the refund commits. With nothing to refund, the terminal state
 * is written at once. The caller has moved the books.
 */
export async function refundIntent(
  tx: Queryable,
  input: {
    readonly intent: IntentRecord;
    readonly side: Side;
    readonly settle: RefundSettlement;
    readonly refund: Amount;
    readonly now: Date;
  },
): Promise<void> {
  const { intent, settle, now } = input;
  assertPath(SWAP_LIFECYCLE, settle.from, [settle.to]);
  const plan = planIntentRefund(input);
  if (plan.kind === 'nothing_owed') {
    await transitionIntent(tx, {
      intentId: intent.intentId,
      from: settle.from,
      to: settle.to,
      at: now,
      failureReason: settle.failureReason,
      refund: {
        amount: Amount.ZERO,
        networkFeeAmount: Amount.parse(settle.networkFeeAmount),
        updateId: null,
      },
    });
    return;
  }
  const deposit = await getDepositOfIntent(tx, intent.intentId);
  const subject = { intentId: intent.intentId, depositId: deposit?.depositId ?? null };
  await recordTransfer(tx, subject, 'refund', plan.payload, now);
}

// --- pending legs ------------------------------------------------------------------------------

/**
 * The intent's payout or refund leg a command sent, with its pool locked as every intent write
 * takes it; null for a command that is no such leg (an accept, a reject, an unmatched return).
 */
async function lockedLegOf(tx: Queryable, command: EngineCommand) {
  const { intentId, leg } = command;
  if (intentId === null || (leg !== 'payout' && leg !== 'refund')) return null;
  const payload = transferPayloadOf(command);
  if (payload.poolId !== null) await lockPool(tx, payload.poolId);
  return { intentId, leg, payload };
}

/**
 * A payout or refund became a two-step offer: the receiver has no transfer pre-approval for the
 * token and must accept it. The intent stays where it is; its status and a leg event
 * (`payout_offered`, `refund_offered`) tell the wallet what to accept, and by when.
 */
export async function recordOfferMade(
  tx: Queryable,
  command: EngineCommand,
  offer: { readonly offerId: string; readonly expiresAt: Date },
  updateId: string,
  now: Date,
): Promise<void> {
  const leg = await lockedLegOf(tx, command);
  if (leg === null) return;
  const refund = offeredRefundOf(leg.leg, leg.payload);
  await recordLegOffer(tx, {
    intentId: leg.intentId,
    leg: leg.leg,
    offerId: offer.offerId,
    expiresAt: offer.expiresAt,
    updateId,
    at: now,
    ...(refund !== null && { refund }),
  });
}

/**
 * What became of a payout or refund offer, recorded (with its leg event) before the state it
 * leads to, so the event stream tells the offer's outcome first and then the swap's.
 */
export async function recordOfferOutcome(
  tx: Queryable,
  command: EngineCommand,
  offerId: string,
  outcome: 'accepted' | 'rejected' | 'expired',
  updateId: string,
  now: Date,
): Promise<void> {
  const leg = await lockedLegOf(tx, command);
  if (leg === null) return;
  await settleLegOffer(tx, {
    intentId: leg.intentId,
    leg: leg.leg,
    offerId,
    outcome,
    updateId,
    at: now,
  });
}

// --- outcomes --------------------------------------------------------------------------------

/** The offer the depositor made is accepted: the deposit is in custody. */
export async function finishAccept(
  tx: Queryable,
  command: EngineCommand,
  update: { readonly updateId: string; readonly recordTime: Date },
  now: Date,
): Promise<void> {
  const deposit = command.depositId ? await getDeposit(tx, command.depositId) : null;
  if (deposit === null || command.intentId === null) return;
  const pool = await getPool(tx, deposit.poolId);
  assert(pool !== null, `unknown pool ${deposit.poolId}`);
  const moved = await leaveMatched(tx, deposit.poolId, {
    intentId: command.intentId,
    to: 'deposit_received',
    at: now,
    deposit: { amount: deposit.amount, updateId: update.updateId, receivedAt: update.recordTime },
  });
  const custody = custodyOf(sideOf(pool, deposit.instrument), deposit.amount, moved !== null);
  await moveBalances(tx, deposit.poolId, custody.movements, now);
  if (!custody.owedBack) return;
  await raiseOperatorFlag(tx, {
    intentId: command.intentId,
    depositId: deposit.depositId,
    kind: 'deposit_without_intent',
    details: { commandId: command.commandId, amount: deposit.amount },
    createdAt: now,
  });
}

/** Why a matched intent failed when its deposit offer ended before the service accepted it. */
function depositOfferEnded(ending: 'withdrawn' | 'expired'): FailureReason {
  return {
    code: `deposit_offer_${ending}`,
    message: `The deposit offer was ${ending} before the service accepted it; it returned to the sender.`,
  };
}

/** The deposit offer lapsed before the service accepted it (the ledger refused the accept). */
export const DEPOSIT_OFFER_EXPIRED: FailureReason = depositOfferEnded('expired');

/** The service could not accept the deposit offer for another reason. */
export function notAccepted(error: string): FailureReason {
  return {
    code: 'deposit_not_accepted',
    message: `The service could not accept the deposit offer (${error}); it returns to the sender.`,
  };
}

/** A deposit offer the sender withdrew, or the service rejected. */
export async function finishDepositOffer(
  tx: Queryable,
  depositId: string,
  ending: 'rejected' | 'withdrawn',
  now: Date,
): Promise<void> {
  const deposit = await getDeposit(tx, depositId);
  if (deposit === null) return;
  if (deposit.status === 'unmatched' || deposit.status === 'flagged') {
    await setDepositStatus(tx, { depositId, from: deposit.status, to: 'returned', now });
    return;
  }
  if (deposit.intentId === null || ending === 'rejected') return;
  await leaveMatched(tx, deposit.poolId, {
    intentId: deposit.intentId,
    to: 'failed',
    at: now,
    failureReason: depositOfferEnded(ending),
  });
}

/**
 * The deposit offer of a matched intent cannot be accepted: the intent fails, nothing is owed.
 * An offer still pending (expired ones included) is rejected, which returns it to its sender.
 */
export async function failCustody(
  tx: Queryable,
  command: EngineCommand,
  failureReason: FailureReason,
  offerStillPending: boolean,
  now: Date,
): Promise<void> {
  const deposit = command.depositId ? await getDeposit(tx, command.depositId) : null;
  if (deposit === null || command.intentId === null) return;
  const failed = await leaveMatched(tx, deposit.poolId, {
    intentId: command.intentId,
    to: 'failed',
    at: now,
    failureReason,
  });
  if (failed && offerStillPending && deposit.offerId !== null) {
    const payload = command.payload as OfferActionPayload;
    await recordOfferAction(
      tx,
      { intentId: command.intentId, depositId: deposit.depositId },
      { kind: 'reject', poolId: deposit.poolId, offerId: deposit.offerId, actor: payload.actor },
      now,
    );
  }
}

/** Moves an intent on from `matched` once its pool is locked; null when it had moved already. */
async function leaveMatched(
  tx: Queryable,
  poolId: string,
  move: Omit<IntentTransition, 'from'>,
): Promise<IntentRecord | null> {
  await lockPool(tx, poolId);
  return transitionIntent(tx, { ...move, from: 'matched' });
}

/**
 * A payout or refund transfer arrived at its receiver (directly, or by accepting the offer).
 * `feesBurned`: what the swap party paid beyond the amount (Amulet's transfer fees), a network
 * cost of this leg that left its holdings too.
 */
export async function finishTransfer(
  tx: Queryable,
  command: EngineCommand,
  transfer: { readonly updateId: string; readonly feesBurned: Amount },
  now: Date,
): Promise<void> {
  const { updateId } = transfer;
  const payload = transferPayloadOf(command);
  // Completing the leg changes no balance, so the books read with the lock are still current.
  const books = payload.poolId !== null ? await lockPool(tx, payload.poolId) : null;
  const leg: ConfirmedLeg = { command, payload, updateId, now };
  const done =
    command.leg === 'payout' ? await completePayout(tx, leg) : await completeRefund(tx, leg);
  if (done && books !== null && payload.poolId !== null && payload.side !== null) {
    const { poolId, side } = payload;
    const movements = transferArrived(
      books,
      side,
      Amount.parse(payload.amount),
      transfer.feesBurned,
    );
    await moveBalances(tx, poolId, movements, now);
  }
}

/** A payout whose command committed as a plain transfer, with that transfer's facts. */
export interface CommittedPayout {
  readonly command: EngineCommand;
  readonly transfer: { readonly updateId: string; readonly feesBurned: Amount };
}

/**
 * `finishTransfer` for payouts committed one after the other (stream order), set-based: the
 * pools locked first, then every intent completed in one statement, then each pool's books moved
 * in one. Each payout's network cost is taken from the books as the payouts before it left them,
 * and a movement that would make a bucket negative throws before anything is written, as it
 * would one payout at a time. Two payouts of one intent (only one can complete it) are taken one
 * by one.
 */
export async function finishPayouts(
  tx: Queryable,
  payouts: readonly CommittedPayout[],
  now: Date,
): Promise<void> {
  const intentIds = payouts.flatMap(({ command }) => command.intentId ?? []);
  if (payouts.length <= 1 || new Set(intentIds).size !== intentIds.length) {
    for (const { command, transfer } of payouts) await finishTransfer(tx, command, transfer, now);
    return;
  }
  const legs = payouts.map((payout) => ({ ...payout, payload: transferPayloadOf(payout.command) }));
  if (legs.some(({ command }) => command.leg !== 'payout')) {
    throw new InvariantError('finishPayouts takes payouts only');
  }
  const poolIds = [...new Set(legs.flatMap(({ payload }) => payload.poolId ?? []))].sort();
  const books = new Map<string, PoolBalances>();
  for (const poolId of poolIds) books.set(poolId, await lockPool(tx, poolId));
  assertPath(SWAP_LIFECYCLE, 'sending_output', ['completed']);
  const paths = legs.flatMap(({ command, payload, transfer }): IntentPath[] =>
    command.intentId === null
      ? []
      : [
          {
            intentId: command.intentId,
            from: 'sending_output',
            through: ['completed'],
            actualOutput: Amount.parse(payload.amount),
            payoutUpdateId: transfer.updateId,
          },
        ],
  );
  const completed = new Set(await moveIntentsAlong(tx, paths, now));
  const arrived = legs.flatMap(({ command, payload, transfer }): ArrivedPayout[] => {
    const { poolId, side } = payload;
    if (command.intentId === null || !completed.has(command.intentId)) return [];
    if (poolId === null || side === null) return [];
    const amount = Amount.parse(payload.amount);
    return [{ poolId, side, amount, feesBurned: transfer.feesBurned }];
  });
  for (const [poolId, moves] of payoutsArrived(books, arrived)) {
    await moveBalances(tx, poolId, moves, now);
  }
}

/** A payout or refund the ledger confirmed in `updateId`, as its completion reads it. */
interface ConfirmedLeg {
  readonly command: EngineCommand;
  readonly payload: TransferPayload;
  readonly updateId: string;
  readonly now: Date;
}

async function completePayout(tx: Queryable, leg: ConfirmedLeg): Promise<boolean> {
  const { command, payload, updateId, now } = leg;
  if (command.intentId === null) return false;
  const completed = await transitionIntent(tx, {
    intentId: command.intentId,
    from: 'sending_output',
    to: 'completed',
    at: now,
    actualOutput: Amount.parse(payload.amount),
    payoutUpdateId: updateId,
  });
  return completed !== null;
}

async function completeRefund(tx: Queryable, leg: ConfirmedLeg): Promise<boolean> {
  const { command, payload, updateId, now } = leg;
  const { settle } = payload;
  if (payload.operatorRetry !== undefined) {
    await completeOperatorRefund(tx, leg);
    return true;
  }
  if (command.intentId === null || settle === undefined) {
    if (command.depositId === null) return false;
    const returned = await setDepositStatus(tx, {
      depositId: command.depositId,
      from: 'unmatched',
      to: 'returned',
      now,
    });
    return returned !== null;
  }
  const settled = await transitionIntent(tx, {
    intentId: command.intentId,
    from: settle.from,
    to: settle.to,
    at: now,
    failureReason: settle.failureReason,
    refund: {
      amount: Amount.parse(payload.amount),
      networkFeeAmount: Amount.parse(settle.networkFeeAmount),
      updateId,
    },
  });
  return settled !== null;
}

/**
 * An operator's refund attempt committed. The intent stays `refund_failed` (a terminal state): the
 * refund's facts are recorded on it, the deposit of an unmatched transfer is returned, and the
 * operator flag is resolved. The amount left the swap party, so the caller takes it out of
 * `outgoing` in any case; the confirmation applies once (`confirmCommand`).
 */
async function completeOperatorRefund(tx: Queryable, leg: ConfirmedLeg): Promise<void> {
  const { command, payload, updateId, now } = leg;
  if (command.intentId !== null) {
    await recordLateRefund(tx, {
      intentId: command.intentId,
      amount: Amount.parse(payload.amount),
      networkFeeAmount: Amount.parse(payload.settle?.networkFeeAmount ?? '0'),
      updateId,
      now,
    });
  } else if (command.depositId !== null) {
    await setDepositStatus(tx, {
      depositId: command.depositId,
      from: 'flagged',
      to: 'returned',
      now,
    });
  }
  await resolveOperatorFlag(tx, {
    id: payload.operatorRetry?.flagId ?? -1,
    resolution: `refunded by ${command.commandId} in update ${updateId}`,
    now,
  });
}

/**
 * The payout cannot reach the receiver (offer rejected, withdrawn or expired, or the ledger kept
 * refusing it): the trade is reversed and the input refunded minus the network fee
 * (`output_failed`).
 */
export async function failPayout(
  tx: Queryable,
  command: EngineCommand,
  failureReason: FailureReason,
  now: Date,
  effects: Effects,
): Promise<void> {
  const payload = transferPayloadOf(command);
  if (command.intentId === null || payload.poolId === null || payload.side === null) return;
  await lockPool(tx, payload.poolId);
  const intent = await getIntent(tx, command.intentId);
  if (intent?.status !== 'sending_output') return;
  if (await hasRefundCommand(tx, intent.intentId)) return;
  const reversal = payoutReversal({
    deposit: intent.deposit?.amount ?? intent.expectedAmount,
    fees: intentFeesOf(intent),
    outputSide: payload.side,
    output: Amount.parse(payload.amount),
  });
  const settle: RefundSettlement = {
    from: 'sending_output',
    to: 'output_failed',
    failureReason,
    networkFeeAmount: intent.networkFeeAmount.toString(),
  };
  try {
    await moveBalances(tx, payload.poolId, reversal.movements, now);
  } catch (error) {
    if (!(error instanceof AccountingError)) throw error;
    await parkIntent(tx, intent, settle, `the trade cannot be reversed: ${error.message}`, now);
    return;
  }
  await deleteFeeEvent(tx, intent.intentId);
  effects.poolsRepriced.add(payload.poolId);
  await refundIntent(tx, {
    intent,
    side: reversal.inputSide,
    settle,
    refund: reversal.refund,
    now,
  });
}

/**
 * A refund that could not be committed (or came back): the funds stay parked in `outgoing`, the
 * intent ends `refund_failed` (or the deposit `flagged`) and an operator is told.
 */
export async function abandonRefund(
  tx: Queryable,
  command: EngineCommand,
  error: string,
  now: Date,
): Promise<void> {
  const payload = transferPayloadOf(command);
  if (payload.poolId !== null) await lockPool(tx, payload.poolId);
  await failCommand(tx, command.commandId, error, now);
  // An operator's attempt failed: the funds stay parked and its flag stays open for the next.
  if (payload.operatorRetry !== undefined) return;
  const details = { commandId: command.commandId, amount: payload.amount, error };
  if (command.intentId !== null && payload.settle !== undefined) {
    const intent = await getIntent(tx, command.intentId);
    if (intent !== null) await parkIntent(tx, intent, payload.settle, error, now, details);
    return;
  }
  if (command.depositId !== null && (await setDepositFlagged(tx, command.depositId, now))) {
    await raiseOperatorFlag(tx, {
      intentId: null,
      depositId: command.depositId,
      kind: 'refund_failed',
      details,
      createdAt: now,
    });
  }
}

async function parkIntent(
  tx: Queryable,
  intent: IntentRecord,
  settle: RefundSettlement,
  error: string,
  now: Date,
  details: Record<string, unknown> = {},
): Promise<void> {
  const parked = await transitionIntent(tx, {
    intentId: intent.intentId,
    from: settle.from,
    to: 'refund_failed',
    at: now,
    failureReason: {
      code: 'refund_failed',
      message: `The refund could not be committed (${error}); an operator will return the funds.`,
    },
  });
  if (parked === null) return;
  await raiseOperatorFlag(tx, {
    intentId: intent.intentId,
    depositId: null,
    kind: 'refund_failed',
    details: { ...details, intended: settle.to, error },
    createdAt: now,
  });
}

/**
 * An unmatched deposit offer could not be rejected: it stays pending until its sender withdraws
 * it (or a later reject succeeds), and an operator is told.
 */
export async function abandonReject(
  tx: Queryable,
  command: EngineCommand,
  error: string,
  now: Date,
): Promise<void> {
  await failCommand(tx, command.commandId, error, now);
  if (command.intentId !== null || command.depositId === null) return;
  if (await setDepositFlagged(tx, command.depositId, now)) {
    await raiseOperatorFlag(tx, {
      intentId: null,
      depositId: command.depositId,
      kind: 'offer_not_rejected',
      details: { commandId: command.commandId, error },
      createdAt: now,
    });
  }
}

/**
 * The withdrawal of an expired payout or refund offer was given up. When the offer is gone it
 * ended otherwise (the receiver rejected it), and that ending, on the stream, ends the leg.
 * Otherwise the offer is still pending with the swap party's amount locked, and the leg stays
 * `offered`: only an operator can resolve it, so one is told.
 */
export async function abandonWithdrawal(
  tx: Queryable,
  command: EngineCommand,
  error: string,
  offerGone: boolean,
  now: Date,
): Promise<void> {
  await failCommand(tx, command.commandId, error, now);
  if (offerGone) return;
  const { offerId } = offerActionPayloadOf(command);
  await raiseOperatorFlag(tx, {
    intentId: command.intentId,
    depositId: command.depositId,
    kind: 'offer_not_withdrawn',
    details: { commandId: command.commandId, offerId, error },
    createdAt: now,
  });
}

/**
 * A transfer of one side of a pool from its swap party to `receiver`: what the books hold of
 * that side leaves with it (a payout of liquidity, an amount returned to a provider).
 */
export function fromSwapParty(
  pool: {
    readonly poolId: string;
    readonly swapParty: string;
    readonly tokenA: Instrument;
    readonly tokenB: Instrument;
  },
  side: Side,
  receiver: string,
  amount: Amount,
  reason: string,
): TransferPayload {
  return {
    kind: 'transfer',
    poolId: pool.poolId,
    side,
    sender: pool.swapParty,
    receiver,
    instrument: side === 'a' ? pool.tokenA : pool.tokenB,
    amount: amount.toString(),
    reason,
  };
}
