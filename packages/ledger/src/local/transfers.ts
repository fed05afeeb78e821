/**
 * Token-standard transfers on UTXO holdings: `TransferFactory_Transfer` (direct or as an offer),
 * the offer's accept / reject / withdraw, and the faucet's mint and burn.
 *
 * Holding selection (input-holdings.ts): exactly the holdings the transfer names, or else the
 * sender's unlocked holdings of the instrument, largest first, until they cover the amount; the
 * selected ones are archived and any excess comes back to the sender as one change holding.
 *
 * A transfer to oneself is Splice's self-transfer, how a wallet merges (or splits) its holdings:
 * always direct, the inputs archived and one holding of the amount (plus change) created for the
 * sender. It is no offer and needs no pre-approval.
 *
 * An offer locks exactly the offered amount: the inputs are archived and the sender receives a
 * holding of the amount locked for the offer (plus unlocked change), as Amulet's transfer
 * instructions do; the lock expires at the offer's `executeBefore`. Accepting moves the locked
 * holding to the receiver; rejecting or withdrawing gives the sender an unlocked holding of the
 * amount back. An offer past its deadline stays pending and its holding locked: it can no longer
 * be accepted, only rejected or withdrawn, as on Canton.
 */
import { Amount, type Instrument } from '@poolparty/core';
import {
  type CommandResult,
  LedgerError,
  type LedgerEvent,
  type TransferOffer,
  type TransferOutcome,
} from '../port.js';
import { checkMeta } from '../rules.js';
import type { OfferActionEntry, SupplyEntry, TransferEntry } from './entries.js';
import { type InputSelection, selectLargestFirst, selectNamed } from './input-holdings.js';
import {
  archiveHoldings,
  createHolding,
  holdingsOfInstrument,
  isPreapproved,
  type LedgerState,
  ledgerId,
  nextOffset,
  type OfferEnding,
  type PendingOffer,
  recordCompletion,
  recordUpdate,
  requireInstrument,
  requireParty,
} from './state.js';

export function positiveAmount(text: string): Amount {
  const amount = Amount.tryParse(text);
  if (!(amount instanceof Amount) || !amount.isPositive()) {
    throw new LedgerError('invalid_amount', `amount must be positive, not ${text}`);
  }
  return amount;
}

/** Archives the inputs and returns the change; the caller creates what the amount becomes. */
export function spend(
  state: LedgerState,
  owner: string,
  instrument: Instrument,
  selection: InputSelection,
): void {
  archiveHoldings(
    state,
    selection.inputs.map((h) => h.holdingId),
  );
  if (selection.change.isPositive()) createHolding(state, owner, instrument, selection.change);
}

/** The holdings a transfer or burn of `amount` spends: those it names, else the ledger's pick. */
function inputsOf(
  state: LedgerState,
  owner: string,
  instrument: Instrument,
  amount: Amount,
  named: readonly string[] | undefined,
  avoided: readonly string[] = [],
): InputSelection {
  if (named !== undefined && named.length > 0) {
    return selectNamed(named, (id) => state.holdings.get(id), owner, instrument, amount);
  }
  const passedOver = new Set(avoided);
  return selectLargestFirst(
    holdingsOfInstrument(state, owner, instrument).filter((h) => !passedOver.has(h.holdingId)),
    owner,
    instrument,
    amount,
  );
}

function checkTransfer(
  state: LedgerState,
  entry: TransferEntry,
): { readonly amount: Amount; readonly selection: InputSelection } {
  const amount = positiveAmount(entry.amount);
  checkMeta(entry.meta);
  requireParty(state, entry.sender);
  requireParty(state, entry.receiver);
  requireInstrument(state, entry.instrument);
  if (entry.executeBefore <= entry.at) {
    throw new LedgerError('offer_expired', 'executeBefore is not in the future');
  }
  const selection = inputsOf(
    state,
    entry.sender,
    entry.instrument,
    amount,
    entry.inputHoldingIds,
    entry.avoidHoldingIds,
  );
  return { amount, selection };
}

export function applyTransfer(state: LedgerState, entry: TransferEntry): TransferOutcome {
  const { amount, selection } = checkTransfer(state, entry);
  const { sender, receiver, instrument } = entry;
  const meta = Object.freeze({ ...entry.meta });
  spend(state, sender, instrument, selection);
  if (sender === receiver) {
    // A merge or split settles at once (no one else is to accept it) and moves no value between
    // parties: no event, as the port reads one on Canton.
    createHolding(state, sender, instrument, amount);
    const selfTransfer = { owner: sender, instrument, amount, meta };
    const result = recordUpdate(state, entry.at, entry.commandId, [], selfTransfer);
    return complete(state, entry.commandId, { kind: 'direct', ...result });
  }
  if (isPreapproved(requireParty(state, receiver), instrument)) {
    createHolding(state, receiver, instrument, amount);
    const event = transferEvent({ sender, receiver, instrument, amount, meta }, null);
    const result = recordUpdate(state, entry.at, entry.commandId, [event]);
    return complete(state, entry.commandId, { kind: 'direct', ...result });
  }
  const offerId = ledgerId(state, 'offer', nextOffset(state));
  const executeBefore = new Date(entry.executeBefore);
  const offer: TransferOffer = Object.freeze({
    offerId,
    sender,
    receiver,
    instrument,
    amount,
    meta,
    executeBefore,
  });
  const locked = createHolding(state, sender, instrument, amount, {
    offerId,
    expiresAt: executeBefore,
    context: lockContext(offer),
  });
  state.pendingOffers.set(offerId, { offer, lockedHoldingId: locked.holdingId });
  const result = recordUpdate(state, entry.at, entry.commandId, [
    { kind: 'offer_created', ...offer },
  ]);
  return complete(state, entry.commandId, { kind: 'offer', ...result, offerId });
}

/** The context a lock shows a wallet: what the locked amount waits for. */
function lockContext(offer: TransferOffer): string {
  return `transfer offer to ${offer.receiver}`;
}

export function complete<T extends CommandResult>(
  state: LedgerState,
  commandId: string | null,
  result: T,
): T {
  recordCompletion(state, commandId, result);
  return result;
}

function requirePendingOffer(state: LedgerState, offerId: string): PendingOffer {
  const pending = state.pendingOffers.get(offerId);
  if (pending) return pending;
  throw new LedgerError('offer_not_found', `no pending offer ${offerId}`);
}

/** Ends a pending offer: the locked amount goes to the receiver (accepted) or back to the sender. */
function endOffer(
  state: LedgerState,
  pending: PendingOffer,
  ending: OfferEnding,
  atMs: number,
  commandId: string | null,
): CommandResult {
  const { offer } = pending;
  archiveHoldings(state, [pending.lockedHoldingId]);
  state.pendingOffers.delete(offer.offerId);
  const owner = ending === 'accepted' ? offer.receiver : offer.sender;
  createHolding(state, owner, offer.instrument, offer.amount);
  return recordUpdate(state, atMs, commandId, [offerEndEvent(offer, ending)]);
}

function offerEndEvent(offer: TransferOffer, ending: OfferEnding): LedgerEvent {
  if (ending !== 'accepted') return { kind: `offer_${ending}`, ...offer };
  return transferEvent(offer, offer.offerId);
}

/**
 * A transfer event of the local ledger, direct (no offer), a batch's leg or an accepted offer's:
 * it burns no fees.
 */
export function transferEvent(
  transfer: Pick<TransferOffer, 'sender' | 'receiver' | 'instrument' | 'amount' | 'meta'>,
  offerId: string | null,
): LedgerEvent {
  const { sender, receiver, instrument, amount, meta } = transfer;
  return {
    kind: 'transfer',
    sender,
    receiver,
    instrument,
    amount,
    meta,
    offerId,
    feesBurned: Amount.ZERO,
  };
}

const OFFER_ACTIONS = {
  acceptOffer: { ending: 'accepted', actor: 'receiver' },
  rejectOffer: { ending: 'rejected', actor: 'receiver' },
  withdrawOffer: { ending: 'withdrawn', actor: 'sender' },
} as const;

export function applyOfferAction(state: LedgerState, entry: OfferActionEntry): CommandResult {
  const pending = requirePendingOffer(state, entry.offerId);
  const action = OFFER_ACTIONS[entry.op];
  const entitled = pending.offer[action.actor];
  if (entry.actor !== entitled) {
    throw new LedgerError('not_authorized', `only the ${action.actor} ${entitled} may do that`);
  }
  // Only acceptance has a deadline; the sender and receiver can end an expired offer.
  if (action.ending === 'accepted' && pending.offer.executeBefore.getTime() <= entry.at) {
    throw new LedgerError(
      'offer_expired',
      `offer ${entry.offerId} expired at ${pending.offer.executeBefore.toISOString()}`,
    );
  }
  const result = endOffer(state, pending, action.ending, entry.at, entry.commandId);
  return complete(state, entry.commandId, result);
}

function checkSupply(state: LedgerState, entry: SupplyEntry): Amount {
  const amount = positiveAmount(entry.amount);
  requireParty(state, entry.owner);
  requireInstrument(state, entry.instrument);
  return amount;
}

export function applyMint(
  state: LedgerState,
  entry: SupplyEntry,
): CommandResult & { readonly holdingId: string } {
  const amount = checkSupply(state, entry);
  const { owner, instrument } = entry;
  const { holdingId } = createHolding(state, owner, instrument, amount);
  const result = recordUpdate(state, entry.at, entry.commandId, [
    { kind: 'mint', owner, instrument, amount },
  ]);
  return complete(state, entry.commandId, { ...result, holdingId });
}

export function applyBurn(state: LedgerState, entry: SupplyEntry): CommandResult {
  const amount = checkSupply(state, entry);
  const { owner, instrument } = entry;
  spend(state, owner, instrument, inputsOf(state, owner, instrument, amount, undefined));
  const result = recordUpdate(state, entry.at, entry.commandId, [
    { kind: 'burn', owner, instrument, amount },
  ]);
  return complete(state, entry.commandId, result);
}
