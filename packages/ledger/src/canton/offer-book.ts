/**
 * The offers the adapter has read, by offer id (the TransferInstruction contract id). Canton
 * shows an accept, reject or withdraw only by the instruction's contract id, so decoding such a
 * transaction needs the offer from somewhere: an instruction created in a transaction read
 * earlier, one listed as active, or one fetched by contract id. Allocations likewise: an
 * execution, cancel or withdraw names only the allocation's contract id.
 */
import type { Allocation, LedgerUpdate, TransferOffer } from '../port.js';
import {
  type CreatedEvent,
  type DecodedUpdatesItem,
  type DecodeOptions,
  decodeAllocation,
  decodeTransaction,
  decodeTransferInstruction,
  decodeUpdatesItem,
  exercisedAllocationIds,
  exercisedOfferIds,
  type JsGetUpdatesResponse,
  type JsTransaction,
} from './wire/index.js';

/**
 * Ended offers (accepted, rejected, withdrawn) kept for other readers of the same transactions
 * (several subscriptions, a resubscription); beyond this many, the oldest are forgotten and
 * fetched again should they be needed.
 */
const ENDED_OFFERS_KEPT = 10_000;
/** Allocations kept by id, pending or ended; beyond this many the oldest are fetched again. */
const ALLOCATIONS_KEPT = 10_000;

export class OfferBook {
  private readonly offers = new Map<string, TransferOffer>();
  /** Ids of ended offers still in `offers`, oldest first. */
  private readonly ended = new Set<string>();

  private readonly allocations = new Map<string, Allocation>();

  constructor(
    /** Fetches an instruction's created event the book does not know (undefined: not visible). */
    private readonly fetchInstruction: (offerId: string) => Promise<CreatedEvent | undefined>,
    /** Fetches an allocation's created event likewise; without it allocations are not looked up. */
    private readonly fetchAllocation?: (allocationId: string) => Promise<CreatedEvent | undefined>,
  ) {}

  private options(): DecodeOptions {
    return {
      offerOf: (id) => this.offers.get(id),
      allocationOf: (id) => this.allocations.get(id),
    };
  }

  /** The offers of instruction events, remembered. */
  learn(events: readonly CreatedEvent[]): TransferOffer[] {
    return events.flatMap((event) => {
      const offer = decodeTransferInstruction(event);
      if (offer === null) return [];
      this.offers.set(offer.offerId, offer);
      return [offer];
    });
  }

  /** Decodes a transaction, fetching first the offers its instruction choices act on. */
  async decodeTransaction(transaction: JsTransaction): Promise<LedgerUpdate> {
    await this.fetchUnknown(exercisedOfferIds(transaction));
    await this.fetchUnknownAllocations(exercisedAllocationIds(transaction));
    const update = decodeTransaction(transaction, this.options());
    this.remember(update);
    return update;
  }

  /** Decodes one updates item the same way. */
  async decodeItem(
    item: JsGetUpdatesResponse,
    transaction: JsTransaction | undefined,
  ): Promise<DecodedUpdatesItem> {
    if (transaction !== undefined) {
      await this.fetchUnknown(exercisedOfferIds(transaction));
      await this.fetchUnknownAllocations(exercisedAllocationIds(transaction));
    }
    const decoded = decodeUpdatesItem(item, this.options());
    if (decoded.kind === 'transaction') this.remember(decoded.update);
    return decoded;
  }

  private async fetchUnknown(offerIds: readonly string[]): Promise<void> {
    for (const offerId of offerIds) {
      if (this.offers.has(offerId)) continue;
      const event = await this.fetchInstruction(offerId);
      if (event !== undefined) this.learn([event]);
    }
  }

  private async fetchUnknownAllocations(allocationIds: readonly string[]): Promise<void> {
    if (this.fetchAllocation === undefined) return;
    for (const allocationId of allocationIds) {
      if (this.allocations.has(allocationId)) continue;
      const event = await this.fetchAllocation(allocationId);
      const allocation = event === undefined ? null : decodeAllocation(event);
      if (allocation !== null) this.keepAllocation(allocation);
    }
  }

  /** Kept past its end too: other readers of the same transaction decode it again. */
  private keepAllocation(allocation: Allocation): void {
    this.allocations.delete(allocation.allocationId);
    this.allocations.set(allocation.allocationId, allocation);
    for (const oldest of this.allocations.keys()) {
      if (this.allocations.size <= ALLOCATIONS_KEPT) break;
      this.allocations.delete(oldest);
    }
  }

  private remember(update: LedgerUpdate): void {
    for (const event of update.events) {
      if (event.kind === 'allocation_created') this.keepAllocation(event.allocation);
      if (event.kind === 'offer_created') {
        const { kind: _kind, ...offer } = event;
        this.offers.set(offer.offerId, offer);
      } else if (event.kind === 'offer_rejected' || event.kind === 'offer_withdrawn') {
        this.end(event.offerId);
      } else if (event.kind === 'transfer' && event.offerId !== null) {
        this.end(event.offerId);
      }
    }
  }

  private end(offerId: string): void {
    if (!this.offers.has(offerId) || this.ended.has(offerId)) return;
    this.ended.add(offerId);
    for (const oldest of this.ended) {
      if (this.ended.size <= ENDED_OFFERS_KEPT) break;
      this.ended.delete(oldest);
      this.offers.delete(oldest);
    }
  }
}
