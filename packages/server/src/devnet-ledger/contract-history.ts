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

/** A contract the ledger ever created, with where it was created and (once) archived. */
export type ContractRecord =
  | { readonly kind: 'holding'; readonly contract: Holding; readonly createdAt: Offset }
  | { readonly kind: 'instruction'; readonly contract: TransferOffer; readonly createdAt: Offset };

interface Ever {
  readonly created: Map<string, ContractRecord>;
  readonly archivedAt: Map<string, Offset>;
  readonly instructions: Map<string, TransferOffer>;
}

class Walk {
  offset = 0;
  readonly holdings = new Map<string, ActiveContract<Holding>>();
  readonly instructions = new Map<string, ActiveContract<TransferOffer>>();

  advance(ledger: LocalLedger, to: Offset, ever: Ever): void {
    while (this.offset < to) {
      const offset = this.offset + 1;
      const update = ledger.updateAt(offset);
      const changes = ledger.holdingChangesAt(offset);
      if (update === undefined || changes === undefined) return;
      for (const holding of changes.archived) {
        this.holdings.delete(holding.holdingId);
        ever.archivedAt.set(holding.holdingId, offset);
      }
      for (const holding of changes.created) {
        this.holdings.set(holding.holdingId, { contract: holding, createdAt: offset });
        ever.created.set(holding.holdingId, {
          kind: 'holding',
          contract: holding,
          createdAt: offset,
        });
      }
      for (const event of update.events) {
        if (event.kind === 'offer_created') {
          const { kind: _kind, ...offer } = event;
          ever.instructions.set(offer.offerId, offer);
          ever.created.set(offer.offerId, {
            kind: 'instruction',
            contract: offer,
            createdAt: offset,
          });
          this.instructions.set(offer.offerId, { contract: offer, createdAt: offset });
        } else if (event.kind === 'offer_rejected' || event.kind === 'offer_withdrawn') {
          this.instructions.delete(event.offerId);
          ever.archivedAt.set(event.offerId, offset);
        } else if (event.kind === 'transfer' && event.offerId !== null) {
          this.instructions.delete(event.offerId);
          ever.archivedAt.set(event.offerId, offset);
        }
      }
      this.offset = offset;
    }
  }
}

export class ContractHistory {
  private walk = new Walk();
  private readonly ever: Ever = {
    created: new Map(),
    archivedAt: new Map(),
    instructions: new Map(),
  };

  constructor(private readonly ledger: LocalLedger) {}

  /** The contracts active right after `offset` (which must not be past the ledger end). */
  activeAt(offset: Offset): ActiveSet {
    if (offset < this.walk.offset) {
      const fresh = new Walk();
      fresh.advance(this.ledger, offset, this.ever);
      return snapshot(fresh);
    }
    this.walk.advance(this.ledger, offset, this.ever);
    return snapshot(this.walk);
  }

  /** Every instruction created up to `offset`, pending or not, by offer id. */
  instructionsUpTo(offset: Offset): ReadonlyMap<string, TransferOffer> {
    if (offset > this.walk.offset) this.walk.advance(this.ledger, offset, this.ever);
    return this.ever.instructions;
  }

  /** The holdings ever locked for an offer (the sender's holding of the offered amount). */
  lockedHoldingsOf(offerId: string): string[] {
    return [...this.ever.created.values()].flatMap((record) =>
      record.kind === 'holding' && record.contract.lock?.offerId === offerId
        ? [record.contract.holdingId]
        : [],
    );
  }

  /** A contract created up to `offset`, with the offset that archived it (if one did by then). */
  contractUpTo(
    contractId: string,
    offset: Offset,
  ): { readonly record: ContractRecord; readonly archivedAt: Offset | null } | undefined {
    if (offset > this.walk.offset) this.walk.advance(this.ledger, offset, this.ever);
    const record = this.ever.created.get(contractId);
    if (record === undefined || record.createdAt > offset) return undefined;
    const archivedAt = this.ever.archivedAt.get(contractId);
    return {
      record,
      archivedAt: archivedAt !== undefined && archivedAt <= offset ? archivedAt : null,
    };
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
