/**
 * The contracts behind the local ledger's updates, as a participant's contract store sees them:
 * which Holding, TransferInstruction and Allocation contracts were active at an offset (with the offset that
 * created each), and every instruction ever created by id — accepting, rejecting or withdrawing
 * one archives it, and rendering that exercise needs the instruction as it was.
 *
 * Built by walking the ledger's updates in offset order; updates never change once committed,
 * so the walk only ever moves forward. An older offset (a stream resuming a little behind the end)
 * is answered by taking back, from the active set, what the offsets after it created and archived:
 * the cost is the distance back and the contracts active, not the length of the ledger's history.
 */
import type {
  Allocation,
  Holding,
  LedgerEvent,
  LocalLedger,
  Offset,
  TransferOffer,
} from '@poolparty/ledger';

export interface ActiveContract<T> {
  readonly contract: T;
  /** The offset of the update that created it. */
  readonly createdAt: Offset;
}

export interface ActiveSet {
  readonly offset: Offset;
  readonly holdings: readonly ActiveContract<Holding>[];
  readonly instructions: readonly ActiveContract<TransferOffer>[];
  readonly allocations: readonly ActiveContract<Allocation>[];
}

/** A contract the ledger ever created, with where it was created and (once) archived. */
export type ContractRecord =
  | { readonly kind: 'holding'; readonly contract: Holding; readonly createdAt: Offset }
  | { readonly kind: 'instruction'; readonly contract: TransferOffer; readonly createdAt: Offset }
  | { readonly kind: 'allocation'; readonly contract: Allocation; readonly createdAt: Offset };

interface Ever {
  readonly created: Map<string, ContractRecord>;
  readonly archivedAt: Map<string, Offset>;
  readonly instructions: Map<string, TransferOffer>;
  /** The contract ids each offset archived, to take an active set back to an earlier offset. */
  readonly archivedBy: Map<Offset, string[]>;
  /** The holdings ever locked for an offer, by offer id. */
  readonly lockedFor: Map<string, string[]>;
  /** Each contract's place in creation order (several may share an offset). */
  readonly rank: Map<string, number>;
}

function noteArchived(ever: Ever, contractId: string, offset: Offset): void {
  ever.archivedAt.set(contractId, offset);
  const archived = ever.archivedBy.get(offset);
  if (archived === undefined) ever.archivedBy.set(offset, [contractId]);
  else archived.push(contractId);
}

class Walk {
  offset = 0;
  readonly holdings = new Map<string, ActiveContract<Holding>>();
  readonly instructions = new Map<string, ActiveContract<TransferOffer>>();
  readonly allocations = new Map<string, ActiveContract<Allocation>>();

  /** An allocation event: the allocation created, or ended (executed, cancelled, withdrawn). */
  private noteAllocation(event: LedgerEvent, offset: Offset, ever: Ever): void {
    if (!('allocation' in event)) return;
    const { allocation } = event;
    const id = allocation.allocationId;
    if (event.kind !== 'allocation_created') {
      this.allocations.delete(id);
      noteArchived(ever, id, offset);
      return;
    }
    ever.rank.set(id, ever.rank.size);
    ever.created.set(id, { kind: 'allocation', contract: allocation, createdAt: offset });
    this.allocations.set(id, { contract: allocation, createdAt: offset });
  }

  advance(ledger: LocalLedger, to: Offset, ever: Ever): void {
    while (this.offset < to) {
      const offset = this.offset + 1;
      const update = ledger.updateAt(offset);
      const changes = ledger.holdingChangesAt(offset);
      if (update === undefined || changes === undefined) return;
      for (const holding of changes.archived) {
        this.holdings.delete(holding.holdingId);
        noteArchived(ever, holding.holdingId, offset);
      }
      for (const holding of changes.created) {
        this.holdings.set(holding.holdingId, { contract: holding, createdAt: offset });
        ever.rank.set(holding.holdingId, ever.rank.size);
        ever.created.set(holding.holdingId, {
          kind: 'holding',
          contract: holding,
          createdAt: offset,
        });
        const offerId = holding.lock?.offerId;
        if (offerId != null)
          ever.lockedFor.set(offerId, [...(ever.lockedFor.get(offerId) ?? []), holding.holdingId]);
      }
      for (const event of update.events) {
        if (event.kind === 'offer_created') {
          const { kind: _kind, ...offer } = event;
          ever.instructions.set(offer.offerId, offer);
          ever.rank.set(offer.offerId, ever.rank.size);
          ever.created.set(offer.offerId, {
            kind: 'instruction',
            contract: offer,
            createdAt: offset,
          });
          this.instructions.set(offer.offerId, { contract: offer, createdAt: offset });
        } else if (event.kind === 'offer_rejected' || event.kind === 'offer_withdrawn') {
          this.instructions.delete(event.offerId);
          noteArchived(ever, event.offerId, offset);
        } else if (event.kind === 'transfer' && event.offerId !== null) {
          this.instructions.delete(event.offerId);
          noteArchived(ever, event.offerId, offset);
        } else {
          this.noteAllocation(event, offset, ever);
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
    archivedBy: new Map(),
    lockedFor: new Map(),
    rank: new Map(),
  };

  constructor(private readonly ledger: LocalLedger) {}

  /** The contracts active right after `offset` (which must not be past the ledger end). */
  activeAt(offset: Offset): ActiveSet {
    if (offset >= this.walk.offset) {
      this.walk.advance(this.ledger, offset, this.ever);
      return snapshot(this.walk);
    }
    return this.takenBack(offset);
  }

  /**
   * The walk's active set as it was at an earlier `offset`: without what was created after it,
   * with what was archived after it (and created at or before it).
   */
  private takenBack(offset: Offset): ActiveSet {
    const holdings = new Map(this.walk.holdings);
    const instructions = new Map(this.walk.instructions);
    const allocations = new Map(this.walk.allocations);
    for (const [id, active] of holdings) if (active.createdAt > offset) holdings.delete(id);
    for (const [id, active] of instructions) if (active.createdAt > offset) instructions.delete(id);
    for (const [id, active] of allocations) if (active.createdAt > offset) allocations.delete(id);
    for (let at = offset + 1; at <= this.walk.offset; at++) {
      for (const id of this.ever.archivedBy.get(at) ?? []) {
        const record = this.ever.created.get(id);
        if (record === undefined || record.createdAt > offset) continue;
        if (record.kind === 'holding') holdings.set(id, record);
        else if (record.kind === 'instruction') instructions.set(id, record);
        else allocations.set(id, record);
      }
    }
    const rank = (id: string) => this.ever.rank.get(id) ?? 0;
    const inOrder = <T>(active: Map<string, ActiveContract<T>>) =>
      [...active.entries()].sort(([a], [b]) => rank(a) - rank(b)).map(([, contract]) => contract);
    return {
      offset,
      holdings: inOrder(holdings),
      instructions: inOrder(instructions),
      allocations: inOrder(allocations),
    };
  }

  /** Every instruction created up to `offset`, pending or not, by offer id. */
  instructionsUpTo(offset: Offset): ReadonlyMap<string, TransferOffer> {
    if (offset > this.walk.offset) this.walk.advance(this.ledger, offset, this.ever);
    return this.ever.instructions;
  }

  /** The holdings ever locked for an offer (the sender's holding of the offered amount). */
  lockedHoldingsOf(offerId: string): string[] {
    return [...(this.ever.lockedFor.get(offerId) ?? [])];
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

  /** The allocation with this id if it is pending (not executed, cancelled, withdrawn) at `offset`. */
  pendingAllocation(allocationId: string, offset: Offset): Allocation | undefined {
    return this.activeAt(offset).allocations.find((a) => a.contract.allocationId === allocationId)
      ?.contract;
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
    allocations: [...walk.allocations.values()],
  };
}
