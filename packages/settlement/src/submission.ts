/**
 * Submitting recorded commands to the ledger (docs/spec/lifecycle.md#exactly-once), and recovery
 * after a restart.
 *
 * - A command is always recorded (with its deterministic id) before it is submitted, and it is
 *   only ever submitted under that id, so the ledger's deduplication makes a resubmission after a
 *   crash, a timeout or a refusal harmless.
 * - The answer of a submission is never taken as the confirmation: the update stream confirms
 *   (ingest.ts). A success only marks the command `submitted`.
 * - `timeout`: the command may have committed. The ledger is asked (`lookupCommand`); committed
 *   means the stream will confirm it, otherwise it is submitted again later under the same id.
 * - Any other refusal counts as a failed attempt: retried under the same id after an exponential
 *   backoff, and after the leg's attempt budget given up — an accept fails the intent, a payout is
 *   reversed and refunded, a refund parks the funds for an operator (`refund_failed`), a
 *   withdrawal of an expired offer is left to an operator.
 * - An offer that no longer exists cannot be accepted, rejected or withdrawn: that is final at
 *   once, and the offer's own ending on the stream says what became of it. A deposit offer past
 *   its deadline can no longer be accepted (`offer_expired`), also final at once: the intent
 *   fails as the offer expired, and the offer, still pending, is rejected back to its sender.
 */
import { Amount } from '@poolparty/core';
import { LedgerError } from '@poolparty/ledger';
import {
  claimDueCommands,
  type EngineCommand,
  failCommand,
  getCommand,
  markAllSubmitted,
  markKnownCommitted,
  markSubmitted,
  reservedHoldingIdsOfParty,
  scheduleRetry,
  unconfirmedCommands,
} from '@poolparty/store';
import { atomicSwapPortOf } from './atomic-swap-execution.js';
import { returnCollection } from './collections.js';
import { Effects, type EngineContext, EngineCrash } from './context.js';
import {
  abandonRefund,
  abandonReject,
  abandonWithdrawal,
  DEPOSIT_OFFER_EXPIRED,
  failCustody,
  failPayout,
  notAccepted,
  payloadOf,
  transferMeta,
} from './legs.js';
import { isLiquidityCommand, liquidityLegFailed } from './liquidity-legs.js';
import { retriesAfter, retryDelayMs } from './settings.js';
import { returnSweep } from './treasury.js';
import { withdrawalPayoutFailed } from './withdrawals.js';

/** Why an offer action can never succeed: its offer ended, or is past its deadline. */
type OfferRefusal = 'gone' | 'expired';

function offerRefusalOf(failure: unknown): OfferRefusal | null {
  if (!(failure instanceof LedgerError)) return null;
  if (failure.code === 'offer_not_found') return 'gone';
  return failure.code === 'offer_expired' ? 'expired' : null;
}

/**
 * Batches of submissions under way at once. More than one, so that the payouts a round records
 * while a batch waits on the ledger go out at once; few, so that a burst is still sent in whole
 * batches (one claim and one mark statement per `submissionBatchMax` commands).
 */
export const SUBMISSION_BATCHES_UNDER_WAY_MAX = 2;

/**
 * Submissions in the background of the work loop. A round claims the due commands (all in one
 * statement, so two workers do not both send one) and starts sending them; it does not wait for
 * the ledger's answers, so the next round executes what was ingested meanwhile instead of waiting
 * behind round trips to the ledger. A batch sends at most `submissionConcurrencyMax` commands at
 * once, and at most `SUBMISSION_BATCHES_UNDER_WAY_MAX` batches are under way. The ones of a batch
 * the ledger took are marked `submitted` together, in one statement, once its sends all ended.
 *
 * A batch that fails past its commands' own failures (the store out of reach) is reported; its
 * commands stay claimed until `commandClaimMs` runs out, and are sent again then.
 */
export class SubmissionPipeline {
  private readonly batches = new Set<Promise<void>>();

  constructor(
    private readonly ctx: EngineContext,
    private readonly hooks: {
      /** A batch ended: room for more, and its failures may have scheduled retries. */
      readonly onBatchEnded: () => void;
      readonly onBatchFailed: (error: unknown) => void;
    },
  ) {}

  /** Claims a batch of due commands, when there is room for one, and starts it; answers its size. */
  async fill(): Promise<number> {
    if (this.batches.size >= SUBMISSION_BATCHES_UNDER_WAY_MAX) return 0;
    const { settings } = this.ctx;
    const now = this.ctx.clock.now();
    const until = new Date(now.getTime() + settings.commandClaimMs);
    const claimed = await claimDueCommands(this.ctx.db, {
      now,
      until,
      limit: settings.submissionBatchMax,
    });
    if (claimed.length === 0) return 0;
    const batch: Promise<void> = sendBatch(this.ctx, claimed)
      .catch((error: unknown) => {
        if (!(error instanceof EngineCrash)) this.hooks.onBatchFailed(error);
      })
      .finally(() => {
        this.batches.delete(batch);
        this.hooks.onBatchEnded();
      });
    this.batches.add(batch);
    return claimed.length;
  }

  /** Resolves once every batch under way has ended. */
  async ended(): Promise<void> {
    await Promise.allSettled([...this.batches]);
  }
}

/**
 * Sends a claimed batch, at most `submissionConcurrencyMax` at once (each waits on the ledger,
 * not on the others), then marks the ones the ledger took in one statement.
 */
async function sendBatch(ctx: EngineContext, claimed: readonly EngineCommand[]): Promise<void> {
  const sent: string[] = [];
  let next = 0;
  const sender = async () => {
    for (let command = claimed[next++]; command !== undefined; command = claimed[next++]) {
      if (await sendCommand(ctx, command)) sent.push(command.commandId);
    }
  };
  const senders = Math.min(ctx.settings.submissionConcurrencyMax, claimed.length);
  const results = await Promise.allSettled(Array.from({ length: senders }, sender));
  // A crash stops the engine whatever else failed; otherwise the first failure is reported.
  const failures = results.flatMap((r) => (r.status === 'rejected' ? [r.reason] : []));
  const crash = failures.find((failure) => failure instanceof EngineCrash);
  if (crash !== undefined) throw crash;
  // Marked even when another send failed: those the ledger took are submitted all the same.
  await markAllSubmitted(ctx.db, sent, ctx.clock.now());
  for (const _ of sent) ctx.step('command_submitted');
  if (failures.length > 0) throw failures[0];
}

export async function submitCommand(ctx: EngineContext, command: EngineCommand): Promise<void> {
  if (!(await sendCommand(ctx, command))) return;
  await markSubmitted(ctx.db, command.commandId, ctx.clock.now());
  ctx.step('command_submitted');
}

/**
 * Sends one command; true when the ledger took it (the caller marks it `submitted`), false when
 * its failure was recorded (a retry scheduled, or the leg given up).
 */
async function sendCommand(ctx: EngineContext, command: EngineCommand): Promise<boolean> {
  ctx.step('command_recorded');
  let failure: unknown = null;
  try {
    await send(ctx, command);
  } catch (error) {
    if (error instanceof EngineCrash) throw error;
    failure = error;
  }
  if (failure === null || (await committedAnyway(ctx, command, failure))) return true;
  await recordFailure(ctx, command, failure);
  ctx.step('submission_failed');
  return false;
}

async function send(ctx: EngineContext, command: EngineCommand): Promise<void> {
  const payload = payloadOf(command);
  const { commandId } = command;
  if (payload.kind === 'transfer') {
    // A ledger that takes atomic swaps: the holdings live ones reserve are theirs to spend.
    const reserved =
      atomicSwapPortOf(ctx.ledger) === null
        ? []
        : await reservedHoldingIdsOfParty(ctx.db, payload.sender);
    await ctx.ledger.submitTransfer({
      commandId,
      sender: payload.sender,
      receiver: payload.receiver,
      instrument: payload.instrument,
      amount: Amount.parse(payload.amount),
      meta: transferMeta(payload),
      ...(reserved.length > 0 && { avoidHoldingIds: reserved }),
    });
    return;
  }
  const action = { commandId, offerId: payload.offerId, actor: payload.actor };
  if (payload.kind === 'accept') await ctx.ledger.acceptOffer(action);
  else if (payload.kind === 'withdraw') await ctx.ledger.withdrawOffer(action);
  else await ctx.ledger.rejectOffer(action);
}

/** A timeout says nothing about the outcome: the ledger's record of the command decides. */
async function committedAnyway(
  ctx: EngineContext,
  command: EngineCommand,
  failure: unknown,
): Promise<boolean> {
  if (!(failure instanceof LedgerError && failure.code === 'timeout')) return false;
  return (await ctx.ledger.lookupCommand(command.commandId)) !== null;
}

function describe(failure: unknown): string {
  if (failure instanceof LedgerError) return `${failure.code}: ${failure.message}`;
  return failure instanceof Error ? failure.message : String(failure);
}

function attemptsMax(ctx: EngineContext, command: EngineCommand): number {
  const { settings } = ctx;
  if (command.leg === 'refund') return settings.refundAttemptsMax;
  if (['payout', 'collect', 'sweep', 'forward', 'lp_return', 'lp_payout'].includes(command.leg)) {
    return settings.payoutAttemptsMax;
  }
  return settings.offerActionAttemptsMax;
}

async function recordFailure(
  ctx: EngineContext,
  command: EngineCommand,
  failure: unknown,
): Promise<void> {
  const error = describe(failure);
  const isOfferAction = ['accept', 'lp_accept', 'reject', 'withdraw'].includes(command.leg);
  const offerRefusal = isOfferAction ? offerRefusalOf(failure) : null;
  const attempts = command.submissions + 1;
  const code = failure instanceof LedgerError ? failure.code : null;
  if (offerRefusal === null && retriesAfter(code, attempts, attemptsMax(ctx, command))) {
    const now = ctx.clock.now();
    const delayMs = retryDelayMs(code, attempts, ctx.settings);
    const retryAt = new Date(now.getTime() + delayMs);
    await scheduleRetry(ctx.db, { commandId: command.commandId, error, retryAt, now });
    ctx.log.warn('ledger refused a command; retrying', { commandId: command.commandId, error });
    return;
  }
  // Giving up undoes the leg's bookkeeping: only when the ledger has no commit of it at all.
  if ((await ctx.ledger.lookupCommand(command.commandId)) !== null) {
    await markSubmitted(ctx.db, command.commandId, ctx.clock.now());
    return;
  }
  ctx.log.error('giving up a ledger command', { commandId: command.commandId, error, attempts });
  await giveUp(ctx, command, error, offerRefusal);
}

/** The leg's attempts are spent (or its offer refuses it for good): what that means for the swap. */
async function giveUp(
  ctx: EngineContext,
  command: EngineCommand,
  error: string,
  offerRefusal: OfferRefusal | null,
): Promise<void> {
  const effects = new Effects();
  await ctx.db.transaction(async (tx) => {
    const now = ctx.clock.now();
    const current = await getCommand(tx, command.commandId);
    if (current === null || current.status === 'committed' || current.status === 'failed') return;
    if (command.leg === 'lp_payout') {
      await failCommand(tx, command.commandId, error, now);
      return withdrawalPayoutFailed(tx, current, `the payout could not be sent (${error})`, now);
    }
    if (isLiquidityCommand(current)) return liquidityLegFailed(tx, current, error, now);
    switch (command.leg) {
      case 'accept':
        await failCommand(tx, command.commandId, error, now);
        if (offerRefusal === 'expired') {
          // As if the ledger had expired it: the sender's offer lapsed before the service took it.
          return failCustody(tx, current, DEPOSIT_OFFER_EXPIRED, true, now);
        }
        return failCustody(tx, current, notAccepted(error), offerRefusal === null, now);
      case 'reject':
        if (offerRefusal === 'gone') {
          // The offer's own withdrawal update returns the deposit.
          await failCommand(tx, command.commandId, error, now);
          return;
        }
        return abandonReject(tx, current, error, now);
      case 'withdraw':
        return abandonWithdrawal(tx, current, error, offerRefusal === 'gone', now);
      case 'payout':
        await failCommand(tx, command.commandId, error, now);
        return failPayout(
          tx,
          current,
          {
            code: 'output_failed',
            message: `The payout could not be sent (${error}); the trade was reversed and the input refunded.`,
          },
          now,
          effects,
        );
      case 'refund':
        return abandonRefund(tx, current, error, now);
      case 'collect':
        await failCommand(tx, command.commandId, error, now);
        return returnCollection(tx, current, `the collection could not be sent (${error})`, now);
      case 'sweep':
        await failCommand(tx, command.commandId, error, now);
        return returnSweep(tx, current, `the sweep could not be sent (${error})`, now);
    }
  });
  effects.apply(ctx);
}

/**
 * Recovery: before anything new is ingested or decided, every recorded-but-
 * unconfirmed command is looked up on the ledger. A committed one is left to the update stream,
 * which resumes below its offset and confirms it; one that never committed is submitted again
 * under its own id. Recovery ignores claims: the claim of a process that crashed must not hold up
 * its restart, and should another worker be sending the same command at that moment, the ledger
 * deduplicates the id.
 */
export async function recoverCommands(ctx: EngineContext): Promise<void> {
  let afterId = '';
  for (;;) {
    const page = await unconfirmedCommands(ctx.db, afterId, ctx.settings.recoveryBatchMax);
    for (const command of page) {
      const completion = await ctx.ledger.lookupCommand(command.commandId);
      if (completion !== null) await markKnownCommitted(ctx.db, command.commandId, ctx.clock.now());
      else await submitCommand(ctx, command);
    }
    const last = page.at(-1);
    if (last === undefined || page.length < ctx.settings.recoveryBatchMax) break;
    afterId = last.commandId;
  }
  ctx.step('recovered');
}
