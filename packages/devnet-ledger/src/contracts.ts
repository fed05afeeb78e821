/**
 * `POST /v2/state/active-contracts`: the Holding, TransferInstruction and Allocation contracts active at an
 * offset, as the event format shows them: one JSON list over HTTP (bounded as http-lists.ts says),
 * a stream over WebSocket.
 */
import type { Holding } from '@poolparty/ledger';
import type { FastifyInstance } from 'fastify';
import { CantonApiError } from './canton-errors.js';
import { type ServerContext, userOf } from './context.js';
import type { ContractRecord } from './contract-history.js';
import {
  allocationStakeholders,
  type EventFilter,
  holdingStakeholders,
  instructionStakeholders,
  parseEventFormat,
  partiesOf,
  readsAnyOf,
  shapeCreated,
  witnessedByFilter,
} from './event-filter.js';
import { registerRoutes, routeOf } from './http/route-table.js';
import { boundedList, listCap } from './http-lists.js';
import { SYNCHRONIZER_ID } from './identity.js';
import { objectAt, offsetAt, optionalOffsetAt, stringAt, stringsAt } from './request-body.js';
import { archivedEventOf, transactionAt } from './transactions.js';
import {
  type CreatedEvent,
  encodeAllocationCreated,
  encodeHoldingCreated,
  encodeTransferInstructionCreated,
} from './wire.js';
import { streamList, streamRoute } from './ws-streams.js';

export function offsetAfterLedgerEnd(offset: number, end: number): CantonApiError {
  return new CantonApiError(
    'OFFSET_AFTER_LEDGER_END',
    'InvalidGivenCurrentSystemStateSeekAfterEnd',
    `Offset ${offset} is after the ledger end ${end}`,
    { offset: String(offset), ledger_end: String(end) },
  );
}

/** The event format of a request: `eventFormat`, or the deprecated `filter` + `verbose`. */
export function requestFilter(body: Record<string, unknown>, path: string): EventFilter {
  if (body.eventFormat !== undefined)
    return parseEventFormat(body.eventFormat, `${path}.eventFormat`);
  return parseEventFormat(body.filter, `${path}.filter`);
}

export async function requireRead(ctx: ServerContext, user: string, filter: EventFilter) {
  await ctx.users.requireReadAs(user, partiesOf(filter));
  if (filter.anyParty !== null) await ctx.users.requireReadAsAnyParty(user);
}

const contractEventsNotFound = (contractId: string) =>
  new CantonApiError(
    'CONTRACT_EVENTS_NOT_FOUND',
    'InvalidGivenCurrentSystemStateResourceMissing',
    'Contract events not found, or not visible.',
    { contract_id: contractId },
  );

/** The created event of a contract the ledger created, as on the update that created it. */
function createdEventOf(ctx: ServerContext, record: ContractRecord, lockedHoldingIds: string[]) {
  const createdAt = ctx.ledger.updateAt(record.createdAt)?.recordTime;
  const options = createdAt === undefined ? {} : { createdAt };
  switch (record.kind) {
    case 'holding':
      return encodeHoldingCreated(record.contract, record.createdAt, SYNCHRONIZER_ID, options);
    case 'instruction':
      return encodeTransferInstructionCreated(record.contract, record.createdAt, SYNCHRONIZER_ID, {
        ...options,
        lockedHoldingIds,
      });
    case 'allocation':
      return encodeAllocationCreated(record.contract, record.createdAt, options);
  }
}

/** The archive of a contract: the consuming exercise on it in the transaction that archived it. */
function archiveOf(ctx: ServerContext, contractId: string, offset: number) {
  const transaction = transactionAt(ctx.ledger, ctx.history, offset);
  for (const event of transaction?.events ?? []) {
    if (!('ExercisedEvent' in event)) continue;
    const exercised = event.ExercisedEvent;
    if (exercised.contractId !== contractId || !exercised.consuming) continue;
    return archivedEventOf(exercised);
  }
  return undefined;
}

const hostedHere = (ctx: ServerContext, party: string) => ctx.hosting.isHostedHere(party);

/** Whether this participant stores the contract: not a holding of a party hosted elsewhere. */
function storedHere(ctx: ServerContext, record: ContractRecord): boolean {
  return record.kind !== 'holding' || hostedHere(ctx, record.contract.owner);
}

const contractRoute = routeOf<ServerContext>();

/** A contract's created event (and its archive, once archived) as the event format shows it. */
const eventsByContractId = contractRoute({
  method: 'POST',
  url: '/v2/events/events-by-contract-id',
  handler: async (ctx, request) => {
    const body = objectAt(request.body, 'body');
    const contractId = stringAt(body.contractId, 'contractId');
    const filter = requestFilter(body, 'body');
    await requireRead(ctx, userOf(request), filter);
    const found = ctx.history.contractUpTo(contractId, await ctx.ledger.ledgerEnd());
    if (found === undefined || !storedHere(ctx, found.record)) {
      throw contractEventsNotFound(contractId);
    }
    const shaped = shapeCreated(
      filter,
      createdEventOf(ctx, found.record, ctx.history.lockedHoldingsOf(contractId)),
    );
    if (shaped === null) throw contractEventsNotFound(contractId);
    const archived =
      found.archivedAt === null ? undefined : archiveOf(ctx, contractId, found.archivedAt);
    return {
      created: { createdEvent: witnessedByFilter(filter, shaped), synchronizerId: SYNCHRONIZER_ID },
      ...(archived !== undefined && {
        archived: { archivedEvent: archived, synchronizerId: SYNCHRONIZER_ID },
      }),
    };
  },
});

/**
 * A contract's created event, as `contract-by-id` answers it: without offset, node id, blob or
 * views, its witnesses the querying parties among its stakeholders.
 */
const contractById = contractRoute({
  method: 'POST',
  url: '/v2/contracts/contract-by-id',
  handler: async (ctx, request) => {
    const body = objectAt(request.body, 'body');
    const contractId = stringAt(body.contractId, 'contractId');
    const querying = stringsAt(body.queryingParties ?? [], 'queryingParties');
    const user = userOf(request);
    if (querying.length === 0) await ctx.users.requireReadAsAnyParty(user);
    else await ctx.users.requireReadAs(user, querying);
    const found = ctx.history.contractUpTo(contractId, await ctx.ledger.ledgerEnd());
    if (found === undefined || !storedHere(ctx, found.record)) throw contractNotFound(contractId);
    const {
      interfaceViews: _views,
      createdEventBlob: _blob,
      ...event
    } = createdEventOf(
      ctx,
      found.record,
      ctx.history.lockedHoldingsOf(contractId),
    ) as CreatedEvent & { interfaceViews?: unknown; createdEventBlob?: unknown };
    const stakeholders = event.witnessParties;
    const witnesses =
      querying.length === 0 ? stakeholders : stakeholders.filter((p) => querying.includes(p));
    if (witnesses.length === 0) throw contractNotFound(contractId);
    return { createdEvent: { ...event, offset: 0, nodeId: 0, witnessParties: witnesses } };
  },
});

const contractNotFound = (contractId: string) =>
  new CantonApiError(
    'CONTRACT_NOT_FOUND',
    'InvalidGivenCurrentSystemStateResourceMissing',
    'Contract not found, or not visible to the querying parties.',
    { contract_id: contractId },
  );

const listActiveContracts = contractRoute<{ Querystring: { limit?: string } }>({
  method: 'POST',
  url: '/v2/state/active-contracts',
  handler: async (ctx, request) => {
    const limit = optionalOffsetAt(request.query.limit, 'limit');
    return boundedList(
      await activeContracts(ctx, userOf(request), request.body, listCap(limit)),
      limit,
    );
  },
});

export async function contractRoutes(app: FastifyInstance, ctx: ServerContext): Promise<void> {
  registerRoutes(app, ctx, [eventsByContractId, contractById, listActiveContracts]);
  streamRoute(
    app,
    '/v2/state/active-contracts',
    'GetActiveContractsRequest',
    (user, message) => activeContracts(ctx, user, message, Number.POSITIVE_INFINITY),
    (socket, items) => streamList(socket, items),
  );
}

/** The active holdings locked for each offer, by the offer's id. */
function lockedHoldingsByOffer(holdings: readonly { readonly contract: Holding }[]) {
  const lockedByOffer = new Map<string, string[]>();
  for (const { contract } of holdings) {
    const offerId = contract.lock?.offerId;
    if (offerId == null) continue;
    lockedByOffer.set(offerId, [...(lockedByOffer.get(offerId) ?? []), contract.holdingId]);
  }
  return lockedByOffer;
}

/** The answer to a GetActiveContractsRequest: the contracts the filter shows, by creation. */
async function activeContracts(
  ctx: ServerContext,
  user: string,
  value: unknown,
  /** How many to collect at most. */
  cap: number,
): Promise<unknown[]> {
  const body = objectAt(value, 'GetActiveContractsRequest');
  const filter = requestFilter(body, 'GetActiveContractsRequest');
  await requireRead(ctx, user, filter);
  const end = await ctx.ledger.ledgerEnd();
  const offset = offsetAt(body.activeAtOffset, 'activeAtOffset');
  if (offset > end) throw offsetAfterLedgerEnd(offset, end);
  const active = ctx.history.activeAt(offset);
  const createdAt = (at: number) => ({ createdAt: ctx.ledger.updateAt(at)?.recordTime });
  // Only what the filter's parties see is rendered: the rest of the ledger costs a lookup each.
  const seen = (stakeholders: string[]) => readsAnyOf(filter, stakeholders);
  const lockedByOffer = lockedHoldingsByOffer(active.holdings);
  const events = [
    ...active.holdings
      // A holding of a party hosted elsewhere is not stored here (party-hosting.ts).
      .filter((h) => seen(holdingStakeholders(h.contract)) && hostedHere(ctx, h.contract.owner))
      .map((h) => ({
        at: h.createdAt,
        event: encodeHoldingCreated(
          h.contract,
          h.createdAt,
          SYNCHRONIZER_ID,
          createdAt(h.createdAt),
        ),
      })),
    ...active.allocations
      .filter((a) => seen(allocationStakeholders(a.contract)))
      .map((a) => ({
        at: a.createdAt,
        event: encodeAllocationCreated(a.contract, a.createdAt, createdAt(a.createdAt)),
      })),
    ...active.instructions
      .filter((i) => seen(instructionStakeholders(i.contract)))
      .map((i) => ({
        at: i.createdAt,
        event: encodeTransferInstructionCreated(i.contract, i.createdAt, SYNCHRONIZER_ID, {
          ...createdAt(i.createdAt),
          lockedHoldingIds: lockedByOffer.get(i.contract.offerId) ?? [],
        }),
      })),
  ]
    .sort((a, b) => a.at - b.at)
    .map(({ event }) => event);
  const answers = [];
  for (const event of events) {
    const shaped = shapeCreated(filter, event);
    if (shaped === null) continue;
    answers.push({
      workflowId: '',
      contractEntry: {
        JsActiveContract: {
          createdEvent: witnessedByFilter(filter, shaped),
          synchronizerId: SYNCHRONIZER_ID,
          reassignmentCounter: 0,
        },
      },
    });
    if (answers.length >= cap) break;
  }
  return answers;
}
