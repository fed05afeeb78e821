/**
 * Which contracts and events the adapter asks Canton for: the Token Standard's Holding and
 * TransferInstruction interfaces (with their views, which is all the decoder reads), for the
 * parties a request concerns, or for every party the user may read as.
 */
import {
  type CumulativeFilter,
  type EventFormat,
  type GetActiveContractsRequest,
  type GetUpdatesRequest,
  HOLDING_INTERFACE_ID,
  type ListUserRightsResponse,
  TRANSFER_INSTRUCTION_INTERFACE_ID,
  type TransactionFormat,
} from './wire/index.js';

/** Whose contracts and events a request covers. */
export type PartyScope =
  | { readonly kind: 'parties'; readonly parties: readonly string[] }
  /** Every party on the participant (needs `CanReadAsAnyParty`). */
  | { readonly kind: 'any' };

export function interfaceFilter(interfaceId: string): CumulativeFilter {
  return {
    identifierFilter: {
      InterfaceFilter: {
        value: { interfaceId, includeInterfaceView: true, includeCreatedEventBlob: false },
      },
    },
  };
}

/** Holdings and transfer instructions: everything the port reads. */
const TOKEN_STANDARD_FILTERS: readonly CumulativeFilter[] = [
  interfaceFilter(HOLDING_INTERFACE_ID),
  interfaceFilter(TRANSFER_INSTRUCTION_INTERFACE_ID),
];

export function eventFormat(
  scope: PartyScope,
  filters: readonly CumulativeFilter[] = TOKEN_STANDARD_FILTERS,
): EventFormat {
  const cumulative = [...filters];
  if (scope.kind === 'any') return { filtersForAnyParty: { cumulative }, verbose: false };
  const filtersByParty = Object.fromEntries(scope.parties.map((party) => [party, { cumulative }]));
  return { filtersByParty, verbose: false };
}

/**
 * Ledger effects, not ACS deltas: the exercised nodes (TransferFactory_Transfer and the
 * instruction choices, with their results and metadata) are what tell a transfer from an
 * offer and an accept from a withdrawal.
 */
export function transactionFormat(scope: PartyScope): TransactionFormat {
  return { eventFormat: eventFormat(scope), transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS' };
}

export function updatesRequest(
  beginExclusive: number,
  scope: PartyScope,
  endInclusive?: number,
): GetUpdatesRequest {
  return {
    beginExclusive,
    ...(endInclusive !== undefined && { endInclusive }),
    updateFormat: { includeTransactions: transactionFormat(scope) },
  };
}

/**
 * The creates and archives of `interfaceId` contracts of `party` in `(beginExclusive,
 * endInclusive]`: what turns the active set at one offset into the set at a later one.
 */
export function activeSetChangesRequest(
  beginExclusive: number,
  endInclusive: number,
  party: string,
  interfaceId: string,
): GetUpdatesRequest {
  const scope: PartyScope = { kind: 'parties', parties: [party] };
  return {
    beginExclusive,
    endInclusive,
    updateFormat: {
      includeTransactions: {
        eventFormat: eventFormat(scope, [interfaceFilter(interfaceId)]),
        transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA',
      },
    },
  };
}

export function activeContractsRequest(
  activeAtOffset: number,
  scope: PartyScope,
  interfaceId: string,
): GetActiveContractsRequest {
  return { activeAtOffset, eventFormat: eventFormat(scope, [interfaceFilter(interfaceId)]) };
}

/** What a user's rights let it see: every party, or the parties it may act or read as. */
export function readScopeOfRights(rights: ListUserRightsResponse): PartyScope {
  const parties = new Set<string>();
  for (const right of rights.rights ?? []) {
    const kind = (right.kind ?? {}) as Record<string, { value?: { party?: string } } | undefined>;
    if ('CanReadAsAnyParty' in kind) return { kind: 'any' };
    const party = (kind.CanActAs ?? kind.CanReadAs)?.value?.party;
    if (typeof party === 'string') parties.add(party);
  }
  return { kind: 'parties', parties: [...parties].sort() };
}

/** The parties a user's rights let it submit commands as: its `CanActAs` parties. */
export function actAsPartiesOfRights(rights: ListUserRightsResponse): ReadonlySet<string> {
  const parties = new Set<string>();
  for (const right of rights.rights ?? []) {
    const kind = (right.kind ?? {}) as Record<string, { value?: { party?: string } } | undefined>;
    const party = kind.CanActAs?.value?.party;
    if (typeof party === 'string') parties.add(party);
  }
  return parties;
}
