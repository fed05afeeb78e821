/**
 * The contracts behind the local ledger's updates, as a participant's contract store sees them:
 * which Holding and TransferInstruction contracts were active at an offset (with the offset that
 * created each), and every instruction ever created by id — accepting, rejecting or withdrawing
 * one archives it, and rendering that exercise needs the instruction as it was.
 *
 * Built by walking the ledger's updates in offset order; updates never change once committed,
 * so the walk only ever moves forward, and an older offset is answered by walking afresh.
 */
import type { Holding, LocalLedger, Offset, TransferOffer } from '@poolparty/ledger';

export interface ActiveContract<T> {
  readonly contract: T;
  /** The offset of the update that created it. */
  readonly createdAt: Offset;
}

export interface ActiveSet {
  readonly offset: Offset;
  readonly holdings: readonly ActiveContract<Holding>[];
  readonly instructions: readonly ActiveContract<TransferOffer>[];
}

class Walk {
  offset = 0;
  readonly holdings = new Map<string, ActiveContract<Holding>>();
  readonly instructions = new Map<string, ActiveContract<TransferOffer>>();

  advance(ledger: LocalLedger, to: Offset, created: Map<string, TransferOffer>): void {
    while (this.offset < to) {
      const offset = this.offset + 1;
      const update = ledger.updateAt(offset);
      const changes = ledger.holdingChangesAt(offset);
      if (update === undefined || changes === undefined) return;
      for (const holding of changes.archived) this.holdings.delete(holding.holdingId);
      for (const holding of changes.created) {
        this.holdings.set(holding.holdingId, { contract: holding, createdAt: offset });
      }
      for (const event of update.events) {
        if (event.kind === 'offer_created') {
          const { kind: _kind, ...offer } = event;
          created.set(offer.offerId, offer);
          this.instructions.set(offer.offerId, { contract: offer, createdAt: offset });
        } else if (event.kind === 'offer_rejected' || event.kind === 'offer_withdrawn') {
          this.instructions.delete(event.offerId);
        } else if (event.kind === 'transfer' && event.offerId !== null) {
          this.instructions.delete(event.offerId);
        }
      }
      this.offset = offset;
    }
  }
}

export class ContractHistory {
  private walk = new Walk();
  private readonly instructionsById = new Map<string, TransferOffer>();

  constructor(private readonly ledger: LocalLedger) {}

  /** The contracts active right after `offset` (which must not be past the ledger end). */
  activeAt(offset: Offset): ActiveSet {
    if (offset < this.walk.offset) {
      const fresh = new Walk();
      fresh.advance(this.ledger, offset, this.instructionsById);
      return snapshot(fresh);
    }
    this.walk.advance(this.ledger, offset, this.instructionsById);
    return snapshot(this.walk);
  }

  /** Every instruction created up to `offset`, pending or not, by offer id. */
  instructionsUpTo(offset: Offset): ReadonlyMap<string, TransferOffer> {
    if (offset > this.walk.offset) this.walk.advance(this.ledger, offset, this.instructionsById);
    return this.instructionsById;
  }

  /** The instruction with this id if it is pending at `offset`. */
  pendingInstruction(offerId: string, offset: Offset): TransferOffer | undefined {
    return this.activeAt(offset).instructions.find((i) => i.contract.offerId === offerId)?.contract;
  }
}

function snapshot(walk: Walk): ActiveSet {
  return {
    offset: walk.offset,
    holdings: [...walk.holdings.values()],
    instructions: [...walk.instructions.values()],
  };
}
