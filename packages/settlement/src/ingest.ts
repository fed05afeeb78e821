/**
 * Ingesting one ledger update (ledger update → ingest → attribution → intent state change):
 * everything the update means for the service and the stream checkpoint are written in one store
 * transaction, so an update is applied exactly once however often it is delivered.
 *
 * What an update can mean:
 * - it carries the id of a command the service recorded: the confirmation of that command
 *   (an accept, a reject, a payout or refund transfer, the offer a payout or refund became, or
 *   the service's withdrawal of such an offer after its deadline, which ends the leg `expired`,
 *   or a developer's collection of earnings, collections.ts, or a treasury sweep, treasury.ts);
 * - a transfer or offer to a swap party: a deposit;
 * - a transfer settling an offer a swap party made: the receiver accepted a payout or refund;
 * - an offer from a swap party rejected or withdrawn: a payout or refund came back;
 * - an offer to a swap party withdrawn: a deposit offer the sender took back.
 * Offers do not end by themselves on the ledger: one past its deadline stays pending until its
 * sender withdraws it or its receiver rejects it (offer-withdrawal.ts).
 * Anything else that names a swap party (mints, burns, an operator's own transfers) is not the
 * engine's business; the reconciler compares holdings with the books.
 */
import { Amount, planOfferOutcome, type SwapPartyOfferEnding } from '@poolparty/core';
import type { LedgerEvent, LedgerUpdate } from '@poolparty/ledger';
import type { PoolRecord, Queryable } from '@poolparty/store';
import {
  advanceCheckpoint,
  atomicSwapCommands,
  commandByOffer,
  confirmCommand,
  confirmCommands,
  depositByOffer,
  type EngineCommand,
  endCommandOffer,
  failCommand,
  getCommand,
  getCommands,
  lockCheckpoint,
  openCommandsOfDeposit,
  raiseOperatorFlag,
} from '@poolparty/store';
import { collectionOffered, finishCollection, returnCollection } from './collections.js';
import { Effects, type EngineContext } from './context.js';
import { type IncomingDeposit, takeDeposits } from './intake.js';
import { kindReceiving } from './intent-kinds.js';
import {
  abandonRefund,
  failPayout,
  finishAccept,
  finishDepositOffer,
  finishPayouts,
  finishTransfer,
  offerActionPayloadOf,
  recordOfferMade,
  recordOfferOutcome,
} from './legs.js';
import {
  forwardOffered,
  isLiquidityCommand,
  liquidityForwarded,
  liquidityLegFailed,
  liquidityOfferAccepted,
  liquidityOfferRejected,
  liquidityOfferTakenBack,
  liquidityReturned,
} from './liquidity-legs.js';
import { type PriceBook, readPriceBook } from './prices.js';
import { finishSweep, returnSweep, sweepOffered } from './treasury.js';
import { withdrawalOffered, withdrawalPaid, withdrawalPayoutFailed } from './withdrawals.js';

export interface IngestResult {
  /** How many updates were applied; 0 when all were at or below the checkpoint (duplicates). */
  readonly applied: number;
  /**
   * How many of them may have left the engine work (a deposit, a payout's confirmation, anything
   * but an atomic swap's update, which its execution records and which leaves the engine none).
   */
  readonly forEngine: number;
  readonly effects: Effects;
}

interface UpdateScope {
  readonly tx: Queryable;
  readonly update: LedgerUpdate;
  readonly pools: readonly PoolRecord[];
  readonly prices: PriceBook | null;
  readonly now: Date;
  readonly effects: Effects;
  /** The service's commands the batch's updates name, read once for the batch. */
  readonly commands: ReadonlyMap<string, EngineCommand>;
}

/**
 * Applies `updates` (in stream order) in one store transaction, with the checkpoint moved to the
 * last one applied in the same transaction: their effects and the offset commit together or not
 * at all. Updates at or below the checkpoint, or not above one applied before them in the batch
 * (a duplicate delivery), are skipped. The ledger's prices are read once, before the transaction,
 * when some update may bring a deposit.
 */
export async function ingestUpdates(
  ctx: EngineContext,
  updates: readonly LedgerUpdate[],
  allPools: readonly PoolRecord[],
): Promise<IngestResult> {
  const effects = new Effects();
  const scoped = updates.map((update) => ({ update, pools: poolsBooking(allPools, update) }));
  const now = ctx.clock.now();
  const prices = scoped.some(({ update, pools }) => bringsDeposit(update, pools))
    ? await readPriceBook(ctx.ledger, allPools, now)
    : null;
  const applied = await ctx.db.transaction(async (tx) => {
    const checkpoint = await openCheckpoint(tx, ctx, updates, now);
    const fresh = scoped.filter(({ update }) => update.offset > checkpoint);
    const commandIds = fresh.flatMap(({ update }) =>
      update.commandId === null ? [] : [update.commandId],
    );
    const commands = await commandsNamed(tx, commandIds);
    // An atomic swap's update is both its legs at once; its execution records it, under the
    // pool's lock, so it is neither a deposit nor a command of the engine's.
    const atomic = commandIds.length === 0 ? new Set() : await atomicSwapCommands(tx, commandIds);
    let last = checkpoint;
    let count = 0;
    let atomicCount = 0;
    // Consecutive plain deposits, and consecutive plain payout confirmations, are each applied
    // together (`takeDeposits`, `confirmPayouts`); anything else is applied on its own. A run ends
    // before an update of another kind, so stream order holds between them.
    let deposits: IncomingDeposit[] = [];
    let payouts: PayoutConfirmation[] = [];
    const flush = async () => {
      if (deposits.length > 0 && prices !== null) await takeDeposits(tx, deposits, prices, now);
      deposits = [];
      if (payouts.length > 0) {
        await confirmPayouts({ tx, pools: allPools, prices, now, effects, commands }, payouts);
      }
      payouts = [];
    };
    for (const { update, pools } of scoped) {
      if (update.offset <= last) continue;
      ctx.faults?.applying?.(update);
      if (update.commandId !== null && atomic.has(update.commandId)) {
        last = update.offset;
        count += 1;
        atomicCount += 1;
        continue;
      }
      const payout = plainPayout(update, commands);
      const incoming = prices === null ? null : plainDeposits(update, pools, commands);
      if (payout !== null) {
        if (deposits.length > 0) await flush();
        payouts.push(payout);
      } else if (incoming !== null) {
        if (payouts.length > 0) await flush();
        deposits.push(...incoming);
      } else {
        await flush();
        await applyUpdate({ tx, update, pools, prices, now, effects, commands });
      }
      last = update.offset;
      count += 1;
    }
    await flush();
    return { applied: count, forEngine: count - atomicCount };
  });
  if (applied.applied > 0) effects.apply(ctx);
  return { ...applied, effects };
}

/**
 * The checkpoint before the batch, locked, and already moved past the batch: the batch's updates
 * above it are applied in this transaction, so the offset and their effects commit together. A
 * stream without a checkpoint gets one at its start offset first (once in its life).
 */
export async function openCheckpoint(
  tx: Queryable,
  ctx: EngineContext,
  updates: readonly LedgerUpdate[],
  now: Date,
): Promise<number> {
  const { stream, startOffset } = ctx.settings;
  const through = updates.reduce((most, update) => Math.max(most, update.offset), -1);
  if (through < 0) return lockCheckpoint(tx, stream, startOffset, now);
  const prior = await advanceCheckpoint(tx, stream, through, now);
  if (prior !== null) return prior;
  // Created and locked by this transaction, so the advance below finds it where it was created.
  const created = await lockCheckpoint(tx, stream, startOffset, now);
  await advanceCheckpoint(tx, stream, through, now);
  return created;
}

/**
 * The pools whose books the update belongs to. A pool added with reserves read at offset B has
 * every update up to B in its books already: the transfers that funded it there are not deposits.
 */
function poolsBooking(pools: readonly PoolRecord[], update: LedgerUpdate): readonly PoolRecord[] {
  return pools.filter(
    (pool) => pool.booksFromOffset === null || update.offset > pool.booksFromOffset,
  );
}

/**
 * The service's commands among `commandIds` (other ids are the wallets' own). Read once per
 * batch: a command is recorded before it is submitted, and submitted only after the transaction
 * that recorded it committed, so no update of a batch confirms a command recorded in that batch.
 * What changes of a command meanwhile (its status) is re-checked by `confirmCommand`.
 */
async function commandsNamed(
  tx: Queryable,
  commandIds: readonly string[],
): Promise<Map<string, EngineCommand>> {
  if (commandIds.length === 0) return new Map();
  const commands = await getCommands(tx, commandIds);
  return new Map(commands.map((command) => [command.commandId, command]));
}

function poolOfSwapParty(pools: readonly PoolRecord[], party: string): PoolRecord | undefined {
  return pools.find((pool) => pool.swapParty === party);
}

function poolOfLpParty(pools: readonly PoolRecord[], party: string): PoolRecord | undefined {
  return pools.find((pool) => pool.lpParty === party);
}

/** The pool whose swap party or LP party `party` is: the parties the service sends from. */
function poolOfParty(pools: readonly PoolRecord[], party: string): PoolRecord | undefined {
  return poolOfSwapParty(pools, party) ?? poolOfLpParty(pools, party);
}

/**
 * The update of a liquidity command: an accepted deposit offer moves on, a forward reaches the
 * swap party, a return or a withdrawal's payout arrives (or became an offer, which waits).
 */
async function liquidityConfirmed(
  scope: Omit<UpdateScope, 'update'>,
  command: EngineCommand,
  offerId: string | null,
  transfer: { readonly updateId: string; readonly feesBurned: Amount },
): Promise<void> {
  const { tx, now, effects } = scope;
  if (offerId !== null) {
    if (command.leg === 'forward') await forwardOffered(tx, command, offerId, now);
    if (command.leg === 'lp_payout') await withdrawalOffered(tx, command, now);
    return;
  }
  switch (command.leg) {
    case 'lp_accept':
      return liquidityOfferAccepted(tx, command, now, effects);
    case 'forward':
      return liquidityForwarded(tx, command, now, effects);
    case 'lp_return':
      return liquidityReturned(tx, command, transfer, now);
    case 'reject':
      return liquidityOfferRejected(tx, command, now);
    case 'lp_payout':
      return withdrawalPaid(tx, command, transfer, now);
  }
}

function bringsDeposit(update: LedgerUpdate, pools: readonly PoolRecord[]): boolean {
  return update.events.some(
    (event) =>
      (event.kind === 'transfer' || event.kind === 'offer_created') &&
      poolOfSwapParty(pools, event.receiver) !== undefined,
  );
}

/** The update of a payout command that committed as a plain transfer (not an offer). */
interface PayoutConfirmation {
  readonly update: LedgerUpdate;
  readonly command: EngineCommand;
}

function plainPayout(
  update: LedgerUpdate,
  commands: ReadonlyMap<string, EngineCommand>,
): PayoutConfirmation | null {
  if (update.commandId === null) return null;
  const command = commands.get(update.commandId);
  if (command?.leg !== 'payout' || update.events[0]?.kind !== 'transfer') return null;
  return { update, command };
}

/**
 * `applyConfirmation` for a run of plain payout confirmations: the commands confirmed in one
 * statement, the payouts finished together (`finishPayouts`); a command confirmed or given up
 * before is a late confirmation, as it would be alone.
 */
async function confirmPayouts(
  scope: Omit<UpdateScope, 'update'>,
  run: readonly PayoutConfirmation[],
): Promise<void> {
  const { tx, now } = scope;
  const confirmations = run.map(({ update, command }) => ({
    commandId: command.commandId,
    updateId: update.updateId,
  }));
  const confirmed = new Map(
    (await confirmCommands(tx, confirmations, now)).map((command) => [command.commandId, command]),
  );
  const committed = run.flatMap(({ update, command }) => {
    const current = confirmed.get(command.commandId);
    return current === undefined ? [] : [{ command: current, transfer: transferFacts(update) }];
  });
  await finishPayouts(tx, committed, now);
  for (const { update, command } of run) {
    if (!confirmed.has(command.commandId)) await lateConfirmation({ ...scope, update }, command);
  }
}

/**
 * The deposits of an update that is nothing but one-step transfers to swap parties (what a
 * wallet's deposit is); null for any other update, which `applyUpdate` takes on its own.
 */
function plainDeposits(
  update: LedgerUpdate,
  pools: readonly PoolRecord[],
  commands: ReadonlyMap<string, EngineCommand>,
): IncomingDeposit[] | null {
  if (update.commandId !== null && commands.has(update.commandId)) return null;
  if (update.events.length === 0) return null;
  const deposits: IncomingDeposit[] = [];
  for (const [index, event] of update.events.entries()) {
    if (event.kind !== 'transfer' || event.offerId !== null) return null;
    const pool = poolOfSwapParty(pools, event.receiver);
    if (pool === undefined) return null;
    deposits.push(incomingOf(update, index, event, pool, null));
  }
  return deposits;
}

function incomingOf(
  update: LedgerUpdate,
  index: number,
  event: Extract<LedgerEvent, { kind: 'transfer' | 'offer_created' }>,
  pool: PoolRecord,
  offerId: string | null,
): IncomingDeposit {
  return {
    updateId: update.updateId,
    eventIndex: index,
    offset: update.offset,
    recordTime: update.recordTime,
    pool,
    sender: event.sender,
    instrument: event.instrument,
    amount: event.amount,
    meta: event.meta,
    offerId,
  };
}

async function applyUpdate(scope: UpdateScope): Promise<void> {
  const { update } = scope;
  if (update.commandId !== null) {
    const command = scope.commands.get(update.commandId);
    if (command !== undefined) return applyConfirmation(scope, command);
  }
  for (const [index, event] of update.events.entries()) {
    await applyEvent(scope, index, event);
  }
}

/** The update of a command the service recorded. */
async function applyConfirmation(scope: UpdateScope, command: EngineCommand): Promise<void> {
  const { tx, update, now } = scope;
  const event = update.events[0];
  const offer = event?.kind === 'offer_created' ? event : null;
  const confirmed = await confirmCommand(tx, {
    commandId: command.commandId,
    updateId: update.updateId,
    offer: offer && { offerId: offer.offerId, withdrawAt: offer.executeBefore },
    now,
  });
  // The offer came back to the swap party whether or not the engine still waited for it; ending
  // its leg is guarded by the leg's and the intent's states, so it applies once.
  if (command.leg === 'withdraw') {
    return swapPartyOfferEnded(scope, offerActionPayloadOf(command).offerId, 'expired');
  }
  if (confirmed === null) return lateConfirmation(scope, command);
  if (isLiquidityCommand(confirmed)) {
    return liquidityConfirmed(scope, confirmed, offer?.offerId ?? null, transferFacts(update));
  }
  // An offer made by a payout or refund waits for the receiver: the status says so, the state stays.
  if (offer !== null) {
    const made = { offerId: offer.offerId, expiresAt: offer.executeBefore };
    if (command.leg === 'collect') return collectionOffered(tx, confirmed, made, now);
    if (command.leg === 'sweep') return sweepOffered(tx, confirmed, made, now);
    return recordOfferMade(tx, confirmed, made, update.updateId, now);
  }
  switch (command.leg) {
    case 'accept':
      return finishAccept(tx, confirmed, update, now);
    case 'reject':
      if (confirmed.depositId !== null) {
        await finishDepositOffer(tx, confirmed.depositId, 'rejected', now);
      }
      return;
    case 'payout':
    case 'refund':
      return finishTransfer(tx, confirmed, transferFacts(update), now);
    case 'collect':
      return finishCollection(tx, confirmed, transferFacts(update), now);
    case 'sweep':
      return finishSweep(tx, confirmed, transferFacts(update), now);
  }
}

/**
 * A command the engine had given up on committed after all. Its effect is on the ledger and the
 * books no longer match it: only a person can decide, so it is flagged, never guessed.
 */
async function lateConfirmation(scope: UpdateScope, command: EngineCommand): Promise<void> {
  // Read again: the batch's copy may predate an earlier update of the batch that ended it.
  const current = await getCommand(scope.tx, command.commandId);
  if (current?.status !== 'failed') return;
  await raiseOperatorFlag(scope.tx, {
    intentId: command.intentId,
    depositId: command.depositId,
    kind: 'late_confirmation',
    details: { commandId: command.commandId, updateId: scope.update.updateId, leg: command.leg },
    createdAt: scope.now,
  });
}

async function applyEvent(scope: UpdateScope, index: number, event: LedgerEvent): Promise<void> {
  switch (event.kind) {
    case 'transfer':
      if (event.offerId !== null) return offerAccepted(scope, event, event.offerId);
      return incoming(scope, index, event, null);
    case 'offer_created':
      return incoming(scope, index, event, event.offerId);
    case 'offer_rejected':
      return offerEnded(scope, event, 'rejected');
    case 'offer_withdrawn':
      return offerEnded(scope, event, 'withdrawn');
    default:
      return;
  }
}

async function incoming(
  scope: UpdateScope,
  index: number,
  event: Extract<LedgerEvent, { kind: 'transfer' | 'offer_created' }>,
  offerId: string | null,
): Promise<void> {
  const receiving = kindReceiving(scope.pools, event.receiver);
  if (receiving === null) return;
  const deposit = incomingOf(scope.update, index, event, receiving.pool, offerId);
  await receiving.kind.takeDeposit(scope, deposit);
}

/** A receiver accepted an offer a swap party made: a payout, refund or collection arrived. */
async function offerAccepted(
  scope: UpdateScope,
  event: Extract<LedgerEvent, { kind: 'transfer' }>,
  offerId: string,
): Promise<void> {
  if (poolOfParty(scope.pools, event.sender) === undefined) return;
  await swapPartyOfferEnded(scope, offerId, 'accepted', event.feesBurned);
}

/** The facts of a payout or refund transfer the update of its command committed. */
function transferFacts(update: LedgerUpdate): { updateId: string; feesBurned: Amount } {
  const transfer = update.events.find((event) => event.kind === 'transfer');
  return { updateId: update.updateId, feesBurned: transfer?.feesBurned ?? Amount.ZERO };
}

/** An offer ended unaccepted: the receiver rejected it, or its sender withdrew it. */
async function offerEnded(
  scope: UpdateScope,
  event: Extract<LedgerEvent, { kind: 'offer_rejected' | 'offer_withdrawn' }>,
  ending: 'rejected' | 'withdrawn',
): Promise<void> {
  const { tx, now } = scope;
  if (poolOfParty(scope.pools, event.sender) !== undefined) {
    return swapPartyOfferEnded(scope, event.offerId, ending);
  }
  if (poolOfLpParty(scope.pools, event.receiver) !== undefined) {
    return liquidityOfferTakenBack(tx, event.offerId, ending, now);
  }
  if (poolOfSwapParty(scope.pools, event.receiver) === undefined || ending === 'rejected') return;
  const deposit = await depositByOffer(tx, event.offerId);
  if (deposit === null) return;
  for (const leg of ['accept', 'reject'] as const) {
    for (const open of await openCommandsOfDeposit(tx, deposit.depositId, leg)) {
      await failCommand(tx, open.commandId, `the offer was ${ending}`, now);
    }
  }
  await finishDepositOffer(tx, deposit.depositId, ending, now);
}

/**
 * An offer a swap party made ended: read the command that made it, plan (core's
 * `planOfferOutcome`), then write. `expired`: the service withdrew it after its deadline (a
 * withdrawal by anyone else's hand also means it went unanswered). `feesBurned`: what an accepted
 * offer's transfer burned beyond the amount.
 */
async function swapPartyOfferEnded(
  scope: UpdateScope,
  offerId: string,
  ending: SwapPartyOfferEnding,
  feesBurned: Amount = Amount.ZERO,
): Promise<void> {
  const { tx, now, effects, update } = scope;
  const command = await commandByOffer(tx, offerId);
  const plan = planOfferOutcome(command?.leg ?? null, ending);
  await endCommandOffer(tx, offerId);
  if (command === null || plan.step === null) return;
  if (plan.legOutcome !== null) {
    await recordOfferOutcome(tx, command, offerId, plan.legOutcome, update.updateId, now);
  }
  const { step } = plan;
  const transfer = { updateId: update.updateId, feesBurned };
  switch (step.kind) {
    case 'finish_transfer':
      return finishTransfer(tx, command, transfer, now);
    case 'finish_collection':
      return finishCollection(tx, command, transfer, now);
    case 'reverse_payout':
      return failPayout(tx, command, step.failureReason, now, effects);
    case 'abandon_refund':
      return abandonRefund(tx, command, step.error, now);
    case 'return_collection':
      return returnCollection(tx, command, step.error, now);
    case 'finish_liquidity_leg':
      return liquidityConfirmed(scope, command, null, transfer);
    case 'fail_liquidity_leg':
      return command.leg === 'lp_payout'
        ? withdrawalPayoutFailed(tx, command, step.error, now)
        : liquidityLegFailed(tx, command, step.error, now);
    case 'finish_sweep':
      return finishSweep(tx, command, transfer, now);
    case 'return_sweep':
      return returnSweep(tx, command, step.error, now);
  }
}
