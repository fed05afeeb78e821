/**
 * A party's active contracts of one interface, kept between reads. The first read lists them
 * (`/v2/state/active-contracts`); a later read asks only for what changed in between
 * (`/v2/updates` over those offsets, in the ACS-delta shape) and applies it. A swap party keeps a
 * holding for every deposit it has not spent, so its whole list grows with its traffic and was
 * read again before every payout; the changes between two reads are a few transactions.
 *
 * Each answer is the active set at the offset asked for, as a list at that offset would be:
 * creates and archives are applied in ledger order, and a participant that cannot answer a
 * range (pruned, or more than its list limit) is asked for the whole list instead. The whole
 * list is also read again every `DELTAS_BETWEEN_LISTS` catch-ups, so a change the ranges could
 * not show (a reassignment between synchronizers) is not kept for long.
 */
import { keepRecent } from '@poolparty/core';
import type { Offset } from '../port.js';
import { type CreatedEvent, type JsGetUpdatesResponse, sameEntity } from './wire/index.js';

/** Sets kept (a party and an interface each); the least recently read goes first. */
const ACTIVE_SETS_KEPT = 256;
/** A set further behind than this many offsets is listed again rather than caught up. */
export const DELTA_OFFSETS_MAX = 2_000;
/** Catch-ups of a set before it is listed whole again. */
export const DELTAS_BETWEEN_LISTS = 200;

export interface ActiveSet {
  readonly offset: Offset;
  readonly contracts: ReadonlyMap<string, CreatedEvent>;
  /** Catch-ups since the set was last listed whole. */
  readonly deltas: number;
}

/** How to answer a read at `offset` from what is kept. */
export type ActiveSetRead =
  | { readonly kind: 'kept' }
  | { readonly kind: 'catch-up'; readonly beginExclusive: Offset }
  /** List the set whole; `keep` says whether the answer replaces what is kept. */
  | { readonly kind: 'list'; readonly keep: boolean };

export function planActiveSetRead(set: ActiveSet | undefined, offset: Offset): ActiveSetRead {
  if (set === undefined) return { kind: 'list', keep: true };
  // A read of an earlier offset is answered, but does not take the kept set back.
  if (offset < set.offset) return { kind: 'list', keep: false };
  if (offset === set.offset) return { kind: 'kept' };
  if (offset - set.offset > DELTA_OFFSETS_MAX || set.deltas >= DELTAS_BETWEEN_LISTS) {
    return { kind: 'list', keep: true };
  }
  return { kind: 'catch-up', beginExclusive: set.offset };
}

export function listedActiveSet(events: readonly CreatedEvent[], offset: Offset): ActiveSet {
  return {
    offset,
    contracts: new Map(events.map((event) => [event.contractId, event])),
    deltas: 0,
  };
}

/** Whether the created event shows a view of `interfaceId` (the contract implements it). */
function implementsInterface(event: CreatedEvent, interfaceId: string): boolean {
  return (event.interfaceViews ?? []).some((view) => sameEntity(view.interfaceId, interfaceId));
}

/**
 * The set moved to `offset` by the ACS-delta transactions between: creates of contracts of the
 * interface join it, archives leave it, in the order the participant answered them (ledger order).
 */
export function caughtUpActiveSet(
  set: ActiveSet,
  changes: readonly JsGetUpdatesResponse[],
  offset: Offset,
  interfaceId: string,
): ActiveSet {
  const contracts = new Map(set.contracts);
  for (const item of changes) {
    const events = transactionEvents(item);
    for (const event of events) {
      if ('CreatedEvent' in event && implementsInterface(event.CreatedEvent, interfaceId)) {
        contracts.set(event.CreatedEvent.contractId, event.CreatedEvent);
      } else if ('ArchivedEvent' in event) {
        contracts.delete(event.ArchivedEvent.contractId);
      }
    }
  }
  return { offset, contracts, deltas: set.deltas + 1 };
}

type ShownEvent = { CreatedEvent: CreatedEvent } | { ArchivedEvent: { contractId: string } };

function transactionEvents(item: JsGetUpdatesResponse): readonly ShownEvent[] {
  const update = item?.update as { Transaction?: { value?: { events?: unknown } } } | undefined;
  const events = update?.Transaction?.value?.events;
  return Array.isArray(events) ? (events as ShownEvent[]) : [];
}

/** The two reads a set is kept with. */
export interface ActiveSetReads {
  list(party: string, interfaceId: string, offset: Offset): Promise<CreatedEvent[]>;
  changes(
    party: string,
    interfaceId: string,
    beginExclusive: Offset,
    endInclusive: Offset,
  ): Promise<JsGetUpdatesResponse[]>;
}

export class ActiveSets {
  private readonly sets = new Map<string, ActiveSet>();
  /** The read under way for each set: reads of one set follow one another. */
  private readonly reading = new Map<string, Promise<unknown>>();

  constructor(private readonly reads: ActiveSetReads) {}

  /** The created events of the contracts of `interfaceId` with `party` a stakeholder, at `offset`. */
  read(party: string, interfaceId: string, offset: Offset): Promise<CreatedEvent[]> {
    const key = `${interfaceId}\n${party}`;
    const previous = this.reading.get(key) ?? Promise.resolve();
    const next = previous
      .catch(() => undefined)
      .then(() => this.readNow(key, party, interfaceId, offset));
    this.reading.set(key, next);
    void next
      .finally(() => {
        if (this.reading.get(key) === next) this.reading.delete(key);
      })
      .catch(() => undefined);
    return next;
  }

  private async readNow(
    key: string,
    party: string,
    interfaceId: string,
    offset: Offset,
  ): Promise<CreatedEvent[]> {
    const kept = this.sets.get(key);
    const plan = planActiveSetRead(kept, offset);
    let set: ActiveSet | null = null;
    if (plan.kind === 'kept' && kept !== undefined) set = kept;
    if (plan.kind === 'catch-up' && kept !== undefined) {
      set = await this.caughtUp(kept, party, interfaceId, plan.beginExclusive, offset);
    }
    if (set === null) {
      const listed = listedActiveSet(await this.reads.list(party, interfaceId, offset), offset);
      if (plan.kind === 'list' && !plan.keep) return [...listed.contracts.values()];
      set = listed;
    }
    keepRecent(this.sets, key, set, ACTIVE_SETS_KEPT);
    return [...set.contracts.values()];
  }

  /** The set caught up to `offset`, or null when the participant cannot answer the range. */
  private async caughtUp(
    kept: ActiveSet,
    party: string,
    interfaceId: string,
    beginExclusive: Offset,
    offset: Offset,
  ): Promise<ActiveSet | null> {
    try {
      const changes = await this.reads.changes(party, interfaceId, beginExclusive, offset);
      return caughtUpActiveSet(kept, changes, offset, interfaceId);
    } catch {
      // Pruned, too many changes, or the read failed: the whole list answers (or says why not).
      return null;
    }
  }
}
