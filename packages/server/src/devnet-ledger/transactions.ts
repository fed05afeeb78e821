/**
 * The local ledger's updates as Canton transactions (rendered by the wire codec), and what an
 * event format shows of them.
 */
import type { LocalLedger, Offset } from '@poolparty/ledger';
import type { ContractHistory } from './contract-history.js';
import {
  type EventFilter,
  eventParties,
  partiesOf,
  readsAnyOf,
  shapeCreated,
} from './event-filter.js';
import { SYNCHRONIZER_ID } from './identity.js';
import { type Event, encodeTransaction, type JsTransaction, projectTransaction } from './wire.js';

/** The whole transaction at `offset`; undefined when nothing committed there. */
export function transactionAt(
  ledger: LocalLedger,
  history: ContractHistory,
  offset: Offset,
): JsTransaction | undefined {
  const update = ledger.updateAt(offset);
  const changes = ledger.holdingChangesAt(offset);
  if (update === undefined || changes === undefined) return undefined;
  return encodeTransaction({
    update,
    created: changes.created,
    archived: changes.archived,
    offers: history.instructionsUpTo(offset),
    synchronizerId: SYNCHRONIZER_ID,
  });
}

/**
 * The transaction at `offset` as `filter` shows it — projected to the filter's parties (the events
 * they witness) unless it reads for any party — or null when it shows nothing of it (the reader
 * then sees a gap in the offsets).
 */
export function visibleTransactionAt(
  ledger: LocalLedger,
  history: ContractHistory,
  offset: Offset,
  filter: EventFilter,
): JsTransaction | null {
  const update = ledger.updateAt(offset);
  if (update === undefined) return null;
  if (!readsAnyOf(filter, update.events.flatMap(eventParties))) return null;
  const transaction = transactionAt(ledger, history, offset);
  if (transaction === undefined) return null;
  return shapeTransaction(transaction, filter);
}

/** The projection to the filter's parties, created events shaped as the filter asks. */
export function shapeTransaction(
  transaction: JsTransaction,
  filter: EventFilter,
): JsTransaction | null {
  const projected =
    filter.anyParty === null ? projectTransaction(transaction, partiesOf(filter)) : transaction;
  if (projected === null) return null;
  const events = projected.events.map((event): Event => {
    if (!('CreatedEvent' in event)) return event;
    // A created event the filter does not select still belongs to the transaction the reader
    // sees; it is shown without views or blob.
    const shaped = shapeCreated(filter, event.CreatedEvent);
    if (shaped !== null) return { CreatedEvent: shaped };
    const { interfaceViews: _views, createdEventBlob: _blob, ...bare } = event.CreatedEvent;
    return { CreatedEvent: bare };
  });
  return { ...projected, events };
}
