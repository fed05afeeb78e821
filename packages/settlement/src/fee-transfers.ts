/**
 * Fees set aside and sent from a swap party: a developer's collection (collections.ts) and a
 * treasury sweep (treasury.ts) each take an amount out of a pool side's `fees` and send it to a
 * party of their own, as a transfer leg under the rules of every other leg. Each flow keeps its
 * own rules (who may collect, what is sweepable); this is the lifecycle they share.
 *
 * - The flow's transaction, holding the pool's lock, moves the amount `fees` → `outgoing`
 *   (promised away but still held), records its row, then the transfer command, before anything
 *   is submitted; the command id names the row, so the ledger deduplicates a resubmission.
 * - The update stream confirms it (ingest.ts): the row ends arrived, and `outgoing` gives the
 *   amount up as the holdings left with it, what the transfer burned being a network cost of the
 *   side. A transfer that became an offer waits for its receiver (`offered`); an offer rejected,
 *   withdrawn or expired, or a command the ledger kept refusing, returns the amount to `fees`.
 * Every step applies under the pool's lock and only if the row leaves the state it waited in, so
 * a second delivery moves nothing.
 */
import {
  Amount,
  feesReturned,
  feesSetAside,
  type Instrument,
  transferArrived,
} from '@poolparty/core';
import type { EngineCommand, FeeTransferTable, Queryable } from '@poolparty/store';
import { moveFeeTransfer } from '@poolparty/store';
import { lockPool, moveBalances, type Side } from './accounting.js';
import { type CommandSubject, recordTransfer, transferPayloadOf } from './legs.js';

/** One flow of such transfers: its leg, its rows, and how its ids appear on the ledger. */
export interface FeeTransferKind<Arrived extends string> {
  readonly leg: 'collect' | 'sweep';
  readonly rows: FeeTransferTable<unknown, Arrived>;
  /** The row a command serves; none on a command of another flow. */
  readonly idOf: (command: EngineCommand) => string | null | undefined;
  readonly subjectOf: (id: string) => CommandSubject;
  /** The transfer reason the row's transfer carries on the ledger. */
  readonly reasonOf: (id: string) => string;
}

/** Moves the amount from the side's fees to outgoing, where it waits for the transfer. */
export async function setAsideFees(
  tx: Queryable,
  poolId: string,
  side: Side,
  amount: Amount,
  now: Date,
): Promise<void> {
  await moveBalances(tx, poolId, feesSetAside(side, amount), now);
}

/** Records the transfer of the row `id` from the pool's swap party; the engine submits it. */
export async function sendSetAsideFees(
  tx: Queryable,
  kind: FeeTransferKind<string>,
  id: string,
  transfer: {
    readonly poolId: string;
    readonly side: Side;
    readonly swapParty: string;
    readonly receiver: string;
    readonly instrument: Instrument;
    readonly amount: Amount;
  },
  now: Date,
): Promise<void> {
  const { poolId, side, swapParty, receiver, instrument, amount } = transfer;
  await recordTransfer(
    tx,
    kind.subjectOf(id),
    kind.leg,
    {
      kind: 'transfer',
      poolId,
      side,
      sender: swapParty,
      receiver,
      instrument,
      amount: amount.toString(),
      reason: kind.reasonOf(id),
    },
    now,
  );
}

/** One step of a transfer after its command went out, given what the ledger said of it. */
type FeeTransferStep<Facts> = (
  tx: Queryable,
  command: EngineCommand,
  facts: Facts,
  now: Date,
) => Promise<void>;

/** What becomes of a flow's transfer once its command went out. */
export interface FeeTransferSteps {
  /** The transfer became an offer: its receiver accepts it in their wallet. */
  readonly offered: FeeTransferStep<{ readonly offerId: string; readonly expiresAt: Date }>;
  /**
   * The amount arrived. `feesBurned`: what the swap party paid beyond the amount (Amulet's
   * transfer fees), a network cost of the side.
   */
  readonly arrived: FeeTransferStep<{ readonly updateId: string; readonly feesBurned: Amount }>;
  /**
   * The amount never reached the receiver (the ledger kept refusing the command, or the offer
   * was rejected, withdrawn or expired), `error` says why: it is back among the fees.
   */
  readonly returned: FeeTransferStep<string>;
}

export function feeTransferSteps<Arrived extends string>(
  kind: FeeTransferKind<Arrived>,
): FeeTransferSteps {
  return {
    async offered(tx, command, offer, now) {
      const id = kind.idOf(command);
      if (id === null || id === undefined) return;
      const payload = transferPayloadOf(command);
      if (payload.poolId !== null) await lockPool(tx, payload.poolId);
      await moveFeeTransfer(tx, kind.rows, { id, from: ['pending'], to: 'offered', offer, now });
    },
    async arrived(tx, command, transfer, now) {
      const id = kind.idOf(command);
      if (id === null || id === undefined) return;
      const payload = transferPayloadOf(command);
      if (payload.poolId === null || payload.side === null) return;
      const books = await lockPool(tx, payload.poolId);
      const moved = await moveFeeTransfer(tx, kind.rows, {
        id,
        from: ['pending', 'offered'],
        to: kind.rows.arrived,
        updateId: transfer.updateId,
        now,
      });
      if (moved === null) return;
      const amount = Amount.parse(payload.amount);
      const movements = transferArrived(books, payload.side, amount, transfer.feesBurned);
      await moveBalances(tx, payload.poolId, movements, now);
    },
    async returned(tx, command, error, now) {
      const id = kind.idOf(command);
      if (id === null || id === undefined) return;
      const payload = transferPayloadOf(command);
      if (payload.poolId === null || payload.side === null) return;
      await lockPool(tx, payload.poolId);
      const moved = await moveFeeTransfer(tx, kind.rows, {
        id,
        from: ['pending', 'offered'],
        to: 'returned',
        error,
        now,
      });
      if (moved === null) return;
      const amount = Amount.parse(payload.amount);
      await moveBalances(tx, payload.poolId, feesReturned(payload.side, amount), now);
    },
  };
}
