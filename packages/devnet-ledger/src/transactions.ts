/**
 * The local ledger's updates as Canton transactions (rendered by the wire codec), and what a
 * transaction format shows of them: the events its parties witness, in one of Canton's two
 * shapes — ledger effects (the exercise tree, as rendered) or the ACS delta (only the contracts
 * created and archived, a contract created and archived in the same transaction not at all).
 */
import { keepRecent } from '@poolparty/core';
import type { LedgerUpdate, LocalLedger, Offset } from '@poolparty/ledger';
import { invalidArgument } from './canton-errors.js';
import type { ContractHistory } from './contract-history.js';
import {
  allocationStakeholders,
  type EventFilter,
  eventParties,
  holdingStakeholders,
  instructionStakeholders,
  partiesOf,
  readsAnyOf,
  shapeCreated,
} from './event-filter.js';
import { SYNCHRONIZER_ID } from './identity.js';
import type { PartyHosting } from './party-hosting.js';
import {
  type ArchivedEvent,
  type Event,
  type ExercisedEvent,
  encodeTransaction,
  type JsTransaction,
  projectTransaction,
} from './wire.js';

export type TransactionShape = 'ledger-effects' | 'acs-delta';

/** A TransactionFormat's `transactionShape` (required: UNSPECIFIED is refused, as Canton does). */
export function parseTransactionShape(value: unknown, path: string): TransactionShape {
  if (value === 'TRANSACTION_SHAPE_LEDGER_EFFECTS') return 'ledger-effects';
  if (value === 'TRANSACTION_SHAPE_ACS_DELTA') return 'acs-delta';
  throw invalidArgument(
    `${path} must be TRANSACTION_SHAPE_ACS_DELTA or TRANSACTION_SHAPE_LEDGER_EFFECTS`,
    { field: path },
  );
}

/**
 * Transactions rendered lately, per ledger (its history), by offset. A committed transaction
 * never changes, and each one is read by every stream following its parties, by the submitter's
 * answer and by active-set catch-ups: rendering it once instead of for each was about a tenth of
 * the devnet ledger's time at 50 swaps/s. The newest are the ones asked for, so the bound keeps
 * the most recently rendered.
 */
const RENDERED_TRANSACTIONS_KEPT = 1024;
const rendered = new WeakMap<ContractHistory, Map<Offset, JsTransaction>>();

/**
 * The whole transaction at `offset`; undefined when nothing committed there. Shared between
 * readers: callers derive what they show from it and never change it.
 */
export function transactionAt(
  ledger: LocalLedger,
  history: ContractHistory,
  offset: Offset,
): JsTransaction | undefined {
  let kept = rendered.get(history);
  const known = kept?.get(offset);
  if (known !== undefined) return known;
  const update = ledger.updateAt(offset);
  const changes = ledger.holdingChangesAt(offset);
  if (update === undefined || changes === undefined) return undefined;
  const transaction = encodeTransaction({
    update,
    created: changes.created,
    archived: changes.archived,
    offers: history.instructionsUpTo(offset),
    synchronizerId: SYNCHRONIZER_ID,
    ...(changes.selfTransfer !== undefined && { selfTransfer: changes.selfTransfer }),
  });
  if (kept === undefined) {
    kept = new Map();
    rendered.set(history, kept);
  }
  keepRecent(kept, offset, transaction, RENDERED_TRANSACTIONS_KEPT);
  return transaction;
}

/** The parties an update concerns: its events', or a transfer to oneself's owner and admin. */
function partiesOfUpdate(ledger: LocalLedger, update: LedgerUpdate): string[] {
  const merge = ledger.holdingChangesAt(update.offset)?.selfTransfer;
  const ofMerge = merge === undefined ? [] : [merge.owner, merge.instrument.admin];
  return [...update.events.flatMap(eventParties), ...ofMerge];
}

/**
 * The transaction at `offset` as `filter` shows it in `shape`, or null when it shows nothing of
 * it (the reader then sees a gap in the offsets).
 */
export function visibleTransactionAt(
  ledger: LocalLedger,
  history: ContractHistory,
  offset: Offset,
  filter: EventFilter,
  shape: TransactionShape,
  hosting?: PartyHosting,
): JsTransaction | null {
  const update = ledger.updateAt(offset);
  if (update === undefined) return null;
  if (!readsAnyOf(filter, partiesOfUpdate(ledger, update))) return null;
  const transaction = transactionAt(ledger, history, offset);
  if (transaction === undefined) return null;
  const shown = shapeTransaction(history, transaction, filter, shape, hosting);
  return shown.events.length === 0 ? null : shown;
}

/**
 * The transaction projected to the filter's parties (whole for `filtersForAnyParty`), in `shape`,
 * with created events carrying views and blobs as the filter asks. The ACS delta holds only the
 * contracts this participant stores: not the holdings of a party `hosting` says is elsewhere.
 */
export function shapeTransaction(
  history: ContractHistory,
  transaction: JsTransaction,
  filter: EventFilter,
  shape: TransactionShape,
  hosting?: PartyHosting,
): JsTransaction {
  const readers = filter.anyParty === null ? partiesOf(filter) : null;
  const projected = readers === null ? transaction : projectTransaction(transaction, readers);
  if (projected === null) return { ...transaction, events: [] };
  const stakeholders = (contractId: string) =>
    stakeholdersOf(history, contractId, transaction.offset);
  const storedHere = (contractId: string) => {
    const found = hosting && history.contractUpTo(contractId, transaction.offset);
    return found?.record.kind !== 'holding' || !!hosting?.isHostedHere(found.record.contract.owner);
  };
  const shaped =
    shape === 'acs-delta'
      ? acsDelta(projected.events, readers, stakeholders).filter(
          (event) =>
            !('CreatedEvent' in event || 'ArchivedEvent' in event) || storedHere(idOf(event)),
        )
      : projected.events;
  const events = shaped.flatMap((event): Event[] => {
    if (!('CreatedEvent' in event)) return [event];
    const shaped = shapeCreated(filter, event.CreatedEvent);
    if (shaped !== null) return [{ CreatedEvent: shaped }];
    // The ACS delta is the filter's contracts, as on a participant: a reader that keeps an
    // active set from it (the wallet SDK's cache) would take any other create for one of them.
    if (shape === 'acs-delta') return [];
    // In ledger effects a created event the filter does not select still belongs to the
    // transaction the reader sees; it is shown without views or blob.
    const { interfaceViews: _views, createdEventBlob: _blob, ...bare } = event.CreatedEvent;
    return [{ CreatedEvent: bare }];
  });
  return { ...projected, events };
}

function idOf(event: Event): string {
  if ('CreatedEvent' in event) return event.CreatedEvent.contractId;
  if ('ArchivedEvent' in event) return event.ArchivedEvent.contractId;
  return event.ExercisedEvent.contractId;
}

/** The parties of a contract's create: its signatories and observers. */
function stakeholdersOf(history: ContractHistory, contractId: string, offset: Offset): string[] {
  const found = history.contractUpTo(contractId, offset);
  if (found === undefined) return [];
  const { record } = found;
  switch (record.kind) {
    case 'holding':
      return holdingStakeholders(record.contract);
    case 'instruction':
      return instructionStakeholders(record.contract);
    case 'allocation':
      return allocationStakeholders(record.contract);
  }
}

/**
 * Ledger effects as the ACS delta: the creates and archives of contracts that outlive the
 * transaction, each shown only to the readers among its stakeholders (null: every reader).
 */
function acsDelta(
  events: readonly Event[],
  readers: readonly string[] | null,
  stakeholdersOf: (contractId: string) => readonly string[],
): Event[] {
  const created = new Set<string>();
  const consumed = new Set<string>();
  for (const event of events) {
    if ('CreatedEvent' in event) created.add(event.CreatedEvent.contractId);
    if ('ExercisedEvent' in event && event.ExercisedEvent.consuming) {
      consumed.add(event.ExercisedEvent.contractId);
    }
  }
  const informed = (stakeholders: readonly string[]) =>
    readers === null ? [...stakeholders] : stakeholders.filter((p) => readers.includes(p));
  return events.flatMap((event): Event[] => {
    if ('CreatedEvent' in event) {
      const create = event.CreatedEvent;
      const witnessParties = informed([...create.signatories, ...(create.observers ?? [])]);
      if (consumed.has(create.contractId) || witnessParties.length === 0) return [];
      return [{ CreatedEvent: { ...create, witnessParties } }];
    }
    if ('ArchivedEvent' in event) return [event];
    const exercised = event.ExercisedEvent;
    if (!exercised.consuming || created.has(exercised.contractId)) return [];
    const witnessParties = informed(stakeholdersOf(exercised.contractId));
    if (witnessParties.length === 0) return [];
    return [{ ArchivedEvent: { ...archivedEventOf(exercised), witnessParties } }];
  });
}

/** The archive a consuming exercise stands for, as the ACS delta shows it. */
export function archivedEventOf(exercised: ExercisedEvent): ArchivedEvent {
  return {
    offset: exercised.offset,
    nodeId: exercised.nodeId,
    contractId: exercised.contractId,
    templateId: exercised.templateId,
    witnessParties: exercised.witnessParties,
    packageName: exercised.packageName,
    ...(exercised.implementedInterfaces !== undefined && {
      implementedInterfaces: exercised.implementedInterfaces,
    }),
  };
}
