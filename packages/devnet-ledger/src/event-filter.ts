/**
 * Canton's event formats (`filtersByParty`, `filtersForAnyParty`, and the older `filter`) and
 * what they select among the devnet's contracts and transactions.
 *
 * A contract is shown when one of its witnesses has a filter that matches it: a wildcard, a
 * template filter naming its template, or an interface filter naming an interface it implements
 * (Holding for holdings, TransferInstruction for instructions, Allocation for allocations). Interface views are included only
 * for interface filters that ask for them, created-event blobs only when a matching filter asks.
 *
 * Devnet choice: a transaction is shown whole when one of its contracts is shown (every devnet
 * transaction is between the parties it names, who witness all of it).
 */
import type { Allocation, Holding, LedgerEvent, TransferOffer } from '@poolparty/ledger';
import { invalidArgument } from './canton-errors.js';
import { arrayAt, type Json, objectAt, optionalObjectAt, stringAt } from './request-body.js';
import {
  ALLOCATION_INTERFACE_ID,
  allocationParties,
  type CreatedEvent,
  HOLDING_INTERFACE_ID,
  qualifiedName,
  TEMPLATE_IDS,
  TRANSFER_INSTRUCTION_INTERFACE_ID,
} from './wire.js';

interface PartyFilter {
  readonly wildcard: boolean;
  /** Qualified interface name → whether its view is wanted. */
  readonly interfaces: ReadonlyMap<string, boolean>;
  readonly templates: ReadonlySet<string>;
  readonly blobs: boolean;
}

export interface EventFilter {
  /** Per-party filters; a null entry (`filtersForAnyParty`) applies to every party. */
  readonly byParty: ReadonlyMap<string, PartyFilter>;
  readonly anyParty: PartyFilter | null;
}

type ContractKind = 'holding' | 'instruction' | 'allocation';

const INTERFACE_OF: Readonly<Record<ContractKind, string | null>> = {
  holding: qualifiedName(HOLDING_INTERFACE_ID),
  instruction: qualifiedName(TRANSFER_INSTRUCTION_INTERFACE_ID),
  allocation: qualifiedName(ALLOCATION_INTERFACE_ID),
};
const TEMPLATE_OF: Readonly<Record<ContractKind, string | null>> = {
  holding: qualifiedName(TEMPLATE_IDS.holding),
  instruction: qualifiedName(TEMPLATE_IDS.transferInstruction),
  allocation: qualifiedName(TEMPLATE_IDS.allocation),
};

function parseFilters(value: unknown, path: string): PartyFilter {
  const filters = optionalObjectAt(value, path) ?? {};
  const cumulative = filters.cumulative === undefined ? [] : arrayAt(filters.cumulative, path);
  const interfaces = new Map<string, boolean>();
  const templates = new Set<string>();
  let wildcard = cumulative.length === 0;
  let blobs = false;
  for (const [index, entry] of cumulative.entries()) {
    const at = `${path}.cumulative[${index}].identifierFilter`;
    const identifier = objectAt(
      objectAt(entry, `${path}.cumulative[${index}]`).identifierFilter,
      at,
    );
    const [kind, body] = Object.entries(identifier)[0] ?? [];
    const value = optionalObjectAt((body as Json | undefined)?.value, `${at}.${kind}.value`) ?? {};
    if (value.includeCreatedEventBlob === true) blobs = true;
    if (kind === 'InterfaceFilter') {
      const name = qualifiedName(stringAt(value.interfaceId, `${at}.InterfaceFilter.interfaceId`));
      if (name === null)
        throw invalidArgument(`${at}: interfaceId is not <package>:<module>:<name>`);
      interfaces.set(name, value.includeInterfaceView === true || interfaces.get(name) === true);
    } else if (kind === 'TemplateFilter') {
      const name = qualifiedName(stringAt(value.templateId, `${at}.TemplateFilter.templateId`));
      if (name === null)
        throw invalidArgument(`${at}: templateId is not <package>:<module>:<name>`);
      templates.add(name);
    } else if (kind === 'WildcardFilter' || kind === 'Empty') {
      wildcard = true;
    } else {
      throw invalidArgument(`${at} must be one of InterfaceFilter, TemplateFilter, WildcardFilter`);
    }
  }
  return { wildcard, interfaces, templates, blobs };
}

/** An `EventFormat` (or the deprecated `TransactionFilter` plus `verbose`). */
export function parseEventFormat(value: unknown, path: string): EventFilter {
  const format = objectAt(value, path);
  const byParty = new Map<string, PartyFilter>();
  const parties = optionalObjectAt(format.filtersByParty, `${path}.filtersByParty`) ?? {};
  for (const [party, filters] of Object.entries(parties)) {
    byParty.set(party, parseFilters(filters, `${path}.filtersByParty.${party}`));
  }
  const anyParty =
    format.filtersForAnyParty === undefined || format.filtersForAnyParty === null
      ? null
      : parseFilters(format.filtersForAnyParty, `${path}.filtersForAnyParty`);
  if (byParty.size === 0 && anyParty === null) {
    throw invalidArgument(`${path} names no party and no filtersForAnyParty`);
  }
  return { byParty, anyParty };
}

/** The parties a filter reads as (none listed for `filtersForAnyParty`). */
export function partiesOf(filter: EventFilter): readonly string[] {
  return [...filter.byParty.keys()];
}

function matching(filter: PartyFilter, kind: ContractKind): boolean {
  const iface = INTERFACE_OF[kind];
  const template = TEMPLATE_OF[kind];
  return (
    filter.wildcard ||
    (iface !== null && filter.interfaces.has(iface)) ||
    (template !== null && filter.templates.has(template))
  );
}

function filtersFor(filter: EventFilter, stakeholders: readonly string[]): PartyFilter[] {
  const found: PartyFilter[] = [];
  if (filter.anyParty !== null) found.push(filter.anyParty);
  for (const party of stakeholders) {
    const own = filter.byParty.get(party);
    if (own !== undefined) found.push(own);
  }
  return found;
}

function kindOf(templateId: string): ContractKind | null {
  const name = qualifiedName(templateId);
  if (name === TEMPLATE_OF.holding) return 'holding';
  if (name === TEMPLATE_OF.instruction) return 'instruction';
  if (name === TEMPLATE_OF.allocation) return 'allocation';
  return null;
}

function matchingTemplate(filter: PartyFilter, templateId: string): boolean {
  const name = qualifiedName(templateId);
  return filter.wildcard || (name !== null && filter.templates.has(name));
}

/**
 * The created event as this filter shows it, or null when it does not show it: interface views
 * only where an interface filter asks for them, the blob only where a matching filter asks.
 */
export function shapeCreated(filter: EventFilter, event: CreatedEvent): CreatedEvent | null {
  const { interfaceViews, createdEventBlob, ...rest } = event as CreatedEvent & {
    interfaceViews?: unknown;
    createdEventBlob?: unknown;
  };
  const kind = kindOf(event.templateId);
  // Every witness whose filter asks sees the views, not only the stakeholders: the sender of a
  // transfer witnesses the receiver's new holding and reads it through the Holding interface.
  const applicable = filtersFor(filter, event.witnessParties).filter((f) =>
    kind === null ? matchingTemplate(f, event.templateId) : matching(f, kind),
  );
  if (applicable.length === 0) return null;
  const iface = kind === null ? null : INTERFACE_OF[kind];
  const wantsView = iface !== null && applicable.some((f) => f.interfaces.get(iface) === true);
  const wantsBlob = applicable.some((f) => f.blobs);
  return {
    ...rest,
    ...(wantsView && interfaceViews !== undefined && { interfaceViews }),
    ...(wantsBlob && { createdEventBlob: createdEventBlob || createdEventBlobOf(event) }),
  } as CreatedEvent;
}

/** A holding's stakeholders: its owner and its instrument's admin. */
export function holdingStakeholders(holding: Holding): string[] {
  return [holding.instrument.admin, holding.owner];
}

/** An instruction's stakeholders: sender and admin sign, the receiver observes. */
export function instructionStakeholders(offer: TransferOffer): string[] {
  return [offer.instrument.admin, offer.sender, offer.receiver];
}

/** An allocation's stakeholders: admin and sender sign, executor and receiver observe. */
export function allocationStakeholders(allocation: Allocation): string[] {
  const { signatories, observers } = allocationParties(allocation);
  return [...signatories, ...observers];
}

/**
 * An opaque created-event blob for a client to disclose the contract with: what a participant
 * would serialize, here the contract's identity and arguments (the devnet reads nothing back).
 */
export function createdEventBlobOf(event: CreatedEvent): string {
  const { templateId, contractId, createArgument } = event;
  return Buffer.from(JSON.stringify({ templateId, contractId, createArgument })).toString('base64');
}

/**
 * The created event with its witnesses narrowed to the filter's parties: a reader is told which
 * of the parties it asked for witness a contract, not who else does (`filtersForAnyParty` asks
 * for every party).
 */
export function witnessedByFilter(filter: EventFilter, event: CreatedEvent): CreatedEvent {
  if (filter.anyParty !== null) return event;
  return { ...event, witnessParties: event.witnessParties.filter((p) => filter.byParty.has(p)) };
}

/** Whether a filter reads any of these parties' transactions. */
export function readsAnyOf(filter: EventFilter, parties: readonly string[]): boolean {
  return filter.anyParty !== null || parties.some((party) => filter.byParty.has(party));
}

/**
 * The parties an update's events concern: senders, receivers, owners and instrument admins, and
 * the executors of allocations' settlements.
 */
export function eventParties(event: LedgerEvent): string[] {
  switch (event.kind) {
    case 'mint':
    case 'burn':
      return [event.owner, event.instrument.admin];
    case 'allocation_created':
    case 'allocation_executed':
    case 'allocation_cancelled':
    case 'allocation_withdrawn':
      return allocationStakeholders(event.allocation);
    default:
      return [event.sender, event.receiver, event.instrument.admin];
  }
}
