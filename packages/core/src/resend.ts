/**
 * An operator's re-send of a payout or return the engine gave up on (`poolparty admin flags
 * retry`; docs/operations.md#liquidity): whether the flagged command may be sent again, and what
 * the new attempt is. Pure: the settlement shell reads the flag, the command, the attempts of its
 * leg and the state of what it served under the pool's lock, asks this, and writes the answer in
 * the same transaction (the new command, the subject reopened, the flag resolved).
 *
 * A re-send is exactly once because everything it requires is gone once it is written: the flag
 * is resolved, the withdrawal side or deposit leaves `flagged`, and a later attempt exists.
 */
import type { Instrument } from './instrument.js';
import type { TransferPayload } from './legs.js';

/** The flags whose amount the service sends again, and the leg of the command each names. */
const RESENDABLE_FLAGS = {
  withdrawal_payout_failed: 'lp_payout',
  liquidity_lp_return_failed: 'lp_return',
  liquidity_forward_failed: 'forward',
} as const;

export type ResendableFlagKind = keyof typeof RESENDABLE_FLAGS;
export type ResentLeg = 'lp_payout' | 'lp_return';
type FlaggedLeg = (typeof RESENDABLE_FLAGS)[ResendableFlagKind];

function isResendableFlag(kind: string): kind is ResendableFlagKind {
  return Object.hasOwn(RESENDABLE_FLAGS, kind);
}

/** A recorded command as the re-send reads it. */
export interface ResendCommand {
  readonly commandId: string;
  readonly leg: string;
  readonly attempt: number;
  readonly status: 'recorded' | 'submitted' | 'committed' | 'failed';
  /** The offer the command's transfer became, if it became one. */
  readonly offerId: string | null;
  readonly updateId: string | null;
  readonly liquidityDepositId: string | null;
}

/** What the flagged command served, as the store has it now. */
export type ResendSubject =
  /** A withdrawal's payout of one side (`pending`, `offered`, `paid`, `flagged`). */
  | { readonly kind: 'withdrawal_side'; readonly state: string }
  /** A deposit to the LP party, with what it holds of whom. */
  | {
      readonly kind: 'deposit';
      readonly status: string;
      readonly sender: string;
      readonly instrument: Instrument;
      readonly amount: string;
    }
  /** A return from the swap party's `outgoing`: nothing but the flag says it is owed. */
  | { readonly kind: 'none' };

export interface ResendInput {
  readonly flag: {
    readonly id: number;
    readonly kind: string;
    readonly resolution: string | null;
    readonly resolved: boolean;
  };
  /** The command the flag names; null when it names none. */
  readonly command: (ResendCommand & { readonly payload: TransferPayload }) | null;
  /** Every attempt of the leg the re-send records (`resendTargetOf`), lowest first. */
  readonly attempts: readonly ResendCommand[];
  readonly subject: ResendSubject;
}

export type ResendPlan =
  | { readonly kind: 'refused'; readonly reason: string }
  | {
      readonly kind: 'resend';
      readonly commandId: string;
      readonly leg: ResentLeg;
      readonly attempt: number;
      readonly payload: TransferPayload;
      /** What leaves `flagged` with the re-send, by compare-and-set: the side or the deposit. */
      readonly reopen: 'withdrawal_side' | 'deposit' | null;
    };

/**
 * The subject and leg the re-send of `command` records its attempt under. A failed forward is not
 * forwarded again: its intent stopped waiting when it failed (it refunds, or ended
 * `refund_failed`), so the deposit the LP party holds goes back to its sender, as intake returns
 * a deposit nobody's intent takes (`<depositId>:lp_return:<n>`).
 */
export function resendTargetOf(command: {
  readonly commandId: string;
  readonly leg: string;
  readonly attempt: number;
  readonly liquidityDepositId: string | null;
}): { readonly subjectId: string; readonly leg: ResentLeg } | null {
  if (command.leg === 'forward') {
    return command.liquidityDepositId === null
      ? null
      : { subjectId: command.liquidityDepositId, leg: 'lp_return' };
  }
  if (command.leg !== 'lp_payout' && command.leg !== 'lp_return') return null;
  const suffix = `:${command.leg}:${command.attempt}`;
  if (!command.commandId.endsWith(suffix)) return null;
  return { subjectId: command.commandId.slice(0, -suffix.length), leg: command.leg };
}

/** Whether the flagged command may be sent again, and the new attempt if so. */
export function planResend(input: ResendInput): ResendPlan {
  const { flag, command } = input;
  if (flag.resolved) {
    return refused(
      `flag ${flag.id} is resolved already (${flag.resolution ?? 'no note'}): nothing was sent`,
    );
  }
  if (!isResendableFlag(flag.kind)) {
    return refused(
      `flag ${flag.id} (${flag.kind}) names no payout or return of the service's to send again; resolve it with admin flags resolve`,
    );
  }
  const leg: FlaggedLeg = RESENDABLE_FLAGS[flag.kind];
  if (command === null || command.leg !== leg) {
    return refused(`flag ${flag.id} names no ${leg} command of the service's to send again`);
  }
  const target = resendTargetOf(command);
  if (target === null) return refused(`command ${command.commandId} has no attempt id to follow`);
  const why = whyNotFailed(command) ?? whyNotLatest(command, target.leg, input.attempts);
  const reopen = reopenOf(command, input.subject);
  if (why !== null) return refused(why);
  if ('reason' in reopen) return refused(reopen.reason);
  const attempt = nextAttempt(input.attempts);
  return {
    kind: 'resend',
    commandId: `${target.subjectId}:${target.leg}:${attempt}`,
    leg: target.leg,
    attempt,
    payload: resentPayload(command, input.subject, flag.id),
    reopen: reopen.reopen,
  };
}

function refused(reason: string): ResendPlan {
  return { kind: 'refused', reason };
}

/**
 * Failed for good: given up (the ledger had no commit of it), or committed as an offer that came
 * back (rejected, or withdrawn after its deadline) — the flag is raised only once it did.
 */
function whyNotFailed(command: ResendCommand): string | null {
  if (command.status === 'recorded' || command.status === 'submitted') {
    return `command ${command.commandId} is still ${command.status}: wait for its outcome`;
  }
  if (command.status === 'committed' && command.offerId === null) {
    return `command ${command.commandId} committed in update ${command.updateId ?? '?'}: the amount was sent`;
  }
  return null;
}

/** No attempt of the leg is in flight, and none was recorded after the flagged one. */
function whyNotLatest(
  command: ResendCommand,
  leg: ResentLeg,
  attempts: readonly ResendCommand[],
): string | null {
  const open = attempts.find((a) => a.status === 'recorded' || a.status === 'submitted');
  if (open !== undefined) return `${open.commandId} is still ${open.status}: wait for its outcome`;
  const later = command.leg === leg ? attempts.find((a) => a.attempt > command.attempt) : undefined;
  if (later === undefined) return null;
  return `${later.commandId} was recorded after ${command.commandId}: retry the flag raised for it, if any`;
}

/** What must still be flagged for the re-send to be owed, and leaves `flagged` with it. */
function reopenOf(
  command: ResendCommand & { readonly payload: TransferPayload },
  subject: ResendSubject,
): { readonly reopen: 'withdrawal_side' | 'deposit' | null } | { readonly reason: string } {
  const fromLpParty = command.leg === 'forward' || command.payload.poolId === null;
  if (command.leg === 'lp_payout') {
    if (subject.kind !== 'withdrawal_side')
      return { reason: 'the withdrawal of the payout is gone' };
    if (subject.state !== 'flagged')
      return { reason: `the payout is ${subject.state}, not flagged` };
    return { reopen: 'withdrawal_side' };
  }
  if (!fromLpParty) return { reopen: null };
  if (subject.kind !== 'deposit') return { reason: 'the deposit the LP party holds is gone' };
  if (subject.status !== 'flagged') {
    return {
      reason: `deposit ${command.liquidityDepositId ?? '?'} is ${subject.status}, not flagged`,
    };
  }
  return { reopen: 'deposit' };
}

function nextAttempt(attempts: readonly ResendCommand[]): number {
  return attempts.reduce((next, a) => Math.max(next, a.attempt + 1), 0);
}

/**
 * The same transfer again, marked as the operator's; for a forward, the deposit's way back from
 * the LP party to its sender.
 */
function resentPayload(
  command: ResendCommand & { readonly payload: TransferPayload },
  subject: ResendSubject,
  flagId: number,
): TransferPayload {
  const operatorRetry = { flagId, replaces: command.commandId };
  if (command.leg !== 'forward' || subject.kind !== 'deposit') {
    return { ...command.payload, operatorRetry };
  }
  return {
    kind: 'transfer',
    poolId: null,
    side: null,
    sender: command.payload.sender,
    receiver: subject.sender,
    instrument: subject.instrument,
    amount: subject.amount,
    reason: `return:${command.liquidityDepositId ?? ''}`,
    operatorRetry,
  };
}
