/**
 * Several transfers in one update, all or none (`submitTransfers`): how a participant commits a
 * transaction of several `TransferFactory_Transfer` exercises, such as an atomic swap's input leg
 * (trader → pool) and output leg (pool → trader).
 *
 * Every leg is checked before any changes the state, so a leg that cannot commit refuses the
 * whole batch with nothing changed: each leg's amount, metadata, parties, instrument and deadline,
 * and its inputs — named or picked largest first — among the holdings no earlier leg of the batch
 * spends. Then every leg spends its inputs and creates the receiver's holding and the sender's
 * change, and one update records every leg's transfer event.
 *
 * Decisions:
 * - Every leg settles directly: its receiver must pre-approve the instrument. An offer leg would
 *   create a transfer instruction, whose id is the update's; a batch is the transfers that settle
 *   in the transaction itself (`not_authorized` otherwise, before anything changed).
 * - A leg to its own sender (a merge) is refused: a batch moves value between parties.
 * - At most `BATCH_LEGS_MAX` legs.
 */
import type { Amount } from '@poolparty/core';
import { type CommandResult, LedgerError, type LedgerEvent } from '../port.js';
import { checkMeta } from '../rules.js';
import type { TransferBatchEntry, TransferBatchLeg } from './entries.js';
import { type InputSelection, selectLargestFirst, selectNamed } from './input-holdings.js';
import {
  createHolding,
  holdingsOfInstrument,
  isPreapproved,
  type LedgerState,
  recordUpdate,
  requireInstrument,
  requireParty,
} from './state.js';
import { complete, positiveAmount, spend, transferEvent } from './transfers.js';

/** The most legs one batch commits: a prepared transaction's limit on commands. */
export const BATCH_LEGS_MAX = 16;

interface CheckedLeg {
  readonly leg: TransferBatchLeg;
  readonly amount: Amount;
  readonly selection: InputSelection;
}

/** The leg's inputs among the holdings no earlier leg of the batch spends. */
function selectionOf(
  state: LedgerState,
  leg: TransferBatchLeg,
  amount: Amount,
  used: ReadonlySet<string>,
): InputSelection {
  const { sender, instrument } = leg;
  const named = leg.inputHoldingIds ?? [];
  if (named.length > 0) {
    const find = (id: string) => (used.has(id) ? undefined : state.holdings.get(id));
    return selectNamed(named, find, sender, instrument, amount);
  }
  const free = holdingsOfInstrument(state, sender, instrument).filter(
    (h) => !used.has(h.holdingId),
  );
  return selectLargestFirst(free, sender, instrument, amount);
}

function checkLeg(
  state: LedgerState,
  at: number,
  leg: TransferBatchLeg,
  used: ReadonlySet<string>,
): CheckedLeg {
  const amount = positiveAmount(leg.amount);
  checkMeta(leg.meta);
  requireParty(state, leg.sender);
  const receiver = requireParty(state, leg.receiver);
  requireInstrument(state, leg.instrument);
  if (leg.sender === leg.receiver) {
    throw new LedgerError('not_authorized', 'a transfer of several legs moves between parties');
  }
  if (leg.executeBefore <= at) {
    throw new LedgerError('offer_expired', 'executeBefore is not in the future');
  }
  if (!isPreapproved(receiver, leg.instrument)) {
    throw new LedgerError(
      'not_authorized',
      `${leg.receiver} does not pre-approve ${leg.instrument.id}: every leg of a batch settles directly`,
    );
  }
  return { leg, amount, selection: selectionOf(state, leg, amount, used) };
}

export function applyTransfers(state: LedgerState, entry: TransferBatchEntry): CommandResult {
  const { transfers } = entry;
  if (transfers.length === 0 || transfers.length > BATCH_LEGS_MAX) {
    // The ledger refuses such a command before it is an entry; a journal holding one is corrupt.
    throw new RangeError(`a batch holds 1 to ${BATCH_LEGS_MAX} transfers`);
  }
  const used = new Set<string>();
  const checked: CheckedLeg[] = [];
  for (const leg of transfers) {
    const one = checkLeg(state, entry.at, leg, used);
    for (const input of one.selection.inputs) used.add(input.holdingId);
    checked.push(one);
  }
  const events: LedgerEvent[] = checked.map(({ leg, amount, selection }) => {
    const { sender, receiver, instrument } = leg;
    spend(state, sender, instrument, selection);
    createHolding(state, receiver, instrument, amount);
    return transferEvent(
      { sender, receiver, instrument, amount, meta: Object.freeze({ ...leg.meta }) },
      null,
    );
  });
  const result = recordUpdate(state, entry.at, entry.commandId, events);
  return complete(state, entry.commandId, result);
}
