/**
 * Executing a prepared transaction of one or more legs, all or nothing.
 *
 * A transaction whose legs are all transfers their receivers take by pre-approval commits as one
 * update, as on a participant (the local ledger's `submitTransfers`: an atomic swap's two legs).
 * Any other transaction of several legs (instruction choices, offers) commits as one ledger
 * command per leg, in order (the first under the transaction's command id, the others under
 * `<command id>/<leg>`), since each instruction is named by its update. Before anything commits,
 * every leg is checked against the
 * ledger's state together (`legsRefusal`: each sender's unlocked holdings cover all its legs, each
 * instruction is still pending, acceptable and exercised by the party entitled to it, no
 * instruction twice), so a leg that would fail refuses the whole transaction with nothing moved.
 * The decision is a pure function of the legs and a snapshot of that state. The contracts the
 * legs would read now must also be the input contracts the signed transaction lists (see
 * `refuseStaleInputs`). Executions take turns
 * (`ExecutionTurns`), so one never checks against a state another is changing; a plain submission
 * arriving between one's check and its last commit can still stop a later leg.
 */
import { Amount, type Instrument } from '@poolparty/core';
import { type CommandResult, LedgerError, type TransferOffer } from '@poolparty/ledger';
import { CantonApiError, invalidArgument } from './canton-errors.js';
import type { ServerContext } from './context.js';
import { planLeg } from './prepared-legs.js';
import type { Json } from './request-body.js';
import type { Deduplication, LedgerCommand, TransferCommand } from './token-standard-commands.js';

/** A leg as execution runs it: its command (as sent and as run) and the party exercising it. */
export interface ExecutedLeg {
  readonly command: LedgerCommand;
  readonly actor: string;
  /** The `ExerciseCommand` read back from the prepared transaction. */
  readonly exercise: Json;
}

/** What the legs' checks read: the time and the state of what the legs touch. */
export interface LegsState {
  readonly now: Date;
  /** The unlocked amount each party holds of each instrument, by `owner/admin/id`. */
  readonly unlocked: ReadonlyMap<string, Amount>;
  /** The pending instructions the legs name, by offer id. */
  readonly pending: ReadonlyMap<string, TransferOffer>;
}

const holdingKey = (owner: string, instrument: Instrument) =>
  `${owner}/${instrument.admin}/${instrument.id}`;

function instructionRefusal(leg: ExecutedLeg, offerId: string, state: LegsState) {
  const offer = state.pending.get(offerId);
  if (offer === undefined) return new LedgerError('offer_not_found', `no pending offer ${offerId}`);
  const entitled = leg.command.kind === 'withdraw' ? offer.sender : offer.receiver;
  if (leg.actor !== entitled) {
    return new LedgerError('not_authorized', `only ${entitled} may exercise that on ${offerId}`);
  }
  if (leg.command.kind === 'accept' && offer.executeBefore.getTime() <= state.now.getTime()) {
    return new LedgerError('offer_expired', `offer ${offerId} can no longer be accepted`);
  }
  return null;
}

/** Why the legs cannot all commit, or null when every one can (see the module's note). */
export function legsRefusal(legs: readonly ExecutedLeg[], state: LegsState): Error | null {
  const spending = new Map<string, Amount>();
  const exercised = new Set<string>();
  for (const [index, leg] of legs.entries()) {
    const { command } = leg;
    if (command.kind !== 'transfer') {
      if (exercised.has(command.offerId)) {
        return invalidArgument(`leg ${index} exercises offer ${command.offerId} a second time`);
      }
      exercised.add(command.offerId);
      const refusal = instructionRefusal(leg, command.offerId, state);
      if (refusal !== null) return refusal;
      continue;
    }
    if (command.executeBefore.getTime() <= state.now.getTime()) {
      return new LedgerError('offer_expired', `leg ${index}: executeBefore is not in the future`);
    }
    const key = holdingKey(command.sender, command.instrument);
    const total = (spending.get(key) ?? Amount.ZERO).add(command.amount);
    spending.set(key, total);
    if (total.gt(state.unlocked.get(key) ?? Amount.ZERO)) {
      return new LedgerError(
        'insufficient_holdings',
        `${command.sender}'s unlocked holdings do not cover its legs of the transaction`,
      );
    }
  }
  return null;
}

/** The state `legsRefusal` reads, as of the ledger end. */
async function legsState(ctx: ServerContext, legs: readonly ExecutedLeg[]): Promise<LegsState> {
  const end = await ctx.ledger.ledgerEnd();
  const unlocked = new Map<string, Amount>();
  const pending = new Map<string, TransferOffer>();
  for (const { command } of legs) {
    if (command.kind !== 'transfer') {
      const offer = ctx.history.pendingInstruction(command.offerId, end);
      if (offer !== undefined) pending.set(command.offerId, offer);
      continue;
    }
    const key = holdingKey(command.sender, command.instrument);
    if (unlocked.has(key)) continue;
    const holdings = await ctx.ledger.getHoldings(command.sender);
    const of = holdings.filter(
      (h) =>
        h.lock === null &&
        h.instrument.admin === command.instrument.admin &&
        h.instrument.id === command.instrument.id,
    );
    unlocked.set(key, Amount.sum(of.map((h) => h.amount)));
  }
  return { now: await ctx.ledger.now(), unlocked, pending };
}

/** The ledger command id of a leg: the transaction's own for the first. */
export function legCommandId(commandId: string, index: number): string {
  return index === 0 ? commandId : `${commandId}/${index}`;
}

export interface LegsSubmission {
  readonly commandId: string;
  readonly legs: readonly ExecutedLeg[];
  /** The input contracts the signed transaction lists. */
  readonly inputContractIds: readonly string[];
  readonly deduplication: Deduplication;
  readonly userId: string;
  readonly submissionId: string;
}

/**
 * Refuses a transaction whose legs would now read other contracts than the ones it lists (a
 * holding it spends was archived, or the ledger would now pick another): the party signed what
 * the listed contracts say, so it prepares again. A participant refuses such a transaction too.
 */
async function refuseStaleInputs(ctx: ServerContext, submission: LegsSubmission): Promise<void> {
  const now = new Set<string>();
  for (const { exercise, command } of submission.legs) {
    for (const input of (await planLeg(ctx, exercise, command)).inputs) now.add(input.contractId);
  }
  const signed = new Set(submission.inputContractIds);
  const gone = [...signed].filter((id) => !now.has(id));
  const added = [...now].filter((id) => !signed.has(id));
  if (gone.length + added.length === 0) return;
  throw new CantonApiError(
    'CONTRACT_NOT_FOUND',
    'InvalidGivenCurrentSystemStateResourceMissing',
    `the prepared transaction's input contracts are no longer what its commands read (no longer read: ${gone.join(', ') || 'none'}; now also read: ${added.join(', ') || 'none'}); prepare it again`,
    { contract_id: gone[0] ?? added[0] ?? '' },
  );
}

/**
 * The legs' transfers when every leg is a transfer its receiver takes by pre-approval (between two
 * parties): those commit as one update, as the participant commits the whole transaction. Null
 * when a leg is an instruction choice or would create an offer (an instruction, whose id is its
 * update's), which commit one ledger command each.
 */
async function directTransfers(
  ctx: ServerContext,
  legs: readonly ExecutedLeg[],
): Promise<TransferCommand[] | null> {
  const transfers: TransferCommand[] = [];
  for (const { command } of legs) {
    if (command.kind !== 'transfer' || command.sender === command.receiver) return null;
    if (!(await ctx.ledger.preapproves(command.receiver, command.instrument))) return null;
    transfers.push(command);
  }
  return transfers.length > 1 ? transfers : null;
}

/** Checks every leg, then commits them: as one update, or in order; answers the last result. */
async function checkAndCommit(ctx: ServerContext, submission: LegsSubmission) {
  await ctx.commands.refuseDuplicate(submission);
  const refusal = legsRefusal(submission.legs, await legsState(ctx, submission.legs));
  if (refusal !== null) throw refusal;
  await refuseStaleInputs(ctx, submission);
  const transfers = await directTransfers(ctx, submission.legs);
  if (transfers !== null) {
    return ctx.commands.submitTransfers({
      commandId: submission.commandId,
      actAs: [...new Set(submission.legs.map((leg) => leg.actor))],
      transfers,
      deduplication: submission.deduplication,
      userId: submission.userId,
      submissionId: submission.submissionId,
    });
  }
  let result: CommandResult | undefined;
  for (const [index, leg] of submission.legs.entries()) {
    result = await ctx.commands.submit({
      commandId: legCommandId(submission.commandId, index),
      actAs: [leg.actor],
      command: leg.command,
      deduplication: submission.deduplication,
      userId: submission.userId,
      submissionId: submission.submissionId,
    });
  }
  if (result === undefined) throw invalidArgument('the prepared transaction holds no command');
  return result;
}

/** How many executions may wait for their turn; beyond it the participant is busy. */
const EXECUTIONS_WAITING_MAX = 256;

/**
 * Executions of prepared transactions take turns, so two of them never check their legs against
 * a state the other is changing (plain submissions are not in this queue: see the module's note).
 */
class ExecutionTurns {
  private last: Promise<unknown> = Promise.resolve();
  private waiting = 0;

  take<T>(run: () => Promise<T>): Promise<T> {
    if (this.waiting >= EXECUTIONS_WAITING_MAX) {
      throw new LedgerError('rejected', `over ${EXECUTIONS_WAITING_MAX} executions are waiting`);
    }
    this.waiting += 1;
    const mine = this.last
      .catch(() => undefined)
      .then(run)
      .finally(() => {
        this.waiting -= 1;
      });
    this.last = mine;
    return mine;
  }
}

const turnsOf = new WeakMap<ServerContext, ExecutionTurns>();

/** Checks every leg, then commits them in order, in this server's turn of executions. */
export function commitLegs(ctx: ServerContext, submission: LegsSubmission): Promise<CommandResult> {
  const turns = turnsOf.get(ctx) ?? new ExecutionTurns();
  turnsOf.set(ctx, turns);
  return turns.take(() => checkAndCommit(ctx, submission));
}
