/**
 * The update stream, `/v2/updates`: over HTTP (`POST`, a bounded list) and over WebSocket (the
 * client sends one GetUpdatesRequest, the server streams `JsGetUpdatesResponse` items: the
 * history after `beginExclusive`, then live updates as they commit, until `endInclusive` or
 * until either side closes).
 *
 * Offset checkpoints: the WebSocket sends one whenever it has caught up with the ledger and then
 * every `checkpointIntervalMs` while nothing commits, carrying the ledger time — how a reader
 * learns that time moved and that offsets it did not see were not for it. The HTTP answer ends
 * with one checkpoint at the last offset it covers.
 *
 * Fault injection (`/devnet/faults`) reaches both forms through the ledger's delivery faults:
 * each delivered transaction may be delayed, sent twice, or be the last before the stream breaks
 * (the WebSocket sends a transient JsCantonError and closes; the HTTP answer is a 503).
 *
 * Devnet choices: the HTTP form answers up to the ledger end when `endInclusive` is absent or
 * later (a participant would wait for the idle timeout); its length is bounded as http-lists.ts says.
 * Reassignments and topology events never happen on a one-synchronizer devnet.
 */
import type { Offset } from '@poolparty/ledger';
import type { FastifyInstance } from 'fastify';
import { invalidArgument } from './canton-errors.js';
import { type ServerContext, userOf } from './context.js';
import { offsetAfterLedgerEnd, requestFilter, requireRead } from './contracts.js';
import type { EventFilter } from './event-filter.js';
import { registerRoutes, routeOf } from './http/route-table.js';
import { boundedList, listCap } from './http-lists.js';
import { SYNCHRONIZER_ID } from './identity.js';
import {
  type Json,
  objectAt,
  offsetAt,
  optionalObjectAt,
  optionalOffsetAt,
} from './request-body.js';
import {
  parseTransactionShape,
  type TransactionShape,
  visibleTransactionAt,
} from './transactions.js';
import { encodeCheckpoint } from './wire.js';
import { droppedStream, streamOffsets, streamRoute } from './ws-streams.js';

export interface UpdatesRequest {
  readonly beginExclusive: Offset;
  readonly endInclusive: Offset | undefined;
  /** null: the request asks for no transactions (only checkpoints). */
  readonly filter: EventFilter | null;
  readonly shape: TransactionShape;
}

function parseUpdatesRequest(value: unknown): UpdatesRequest {
  const body = objectAt(value, 'GetUpdatesRequest');
  const beginExclusive = offsetAt(body.beginExclusive ?? 0, 'beginExclusive');
  const endInclusive = optionalOffsetAt(body.endInclusive, 'endInclusive');
  if (endInclusive !== undefined && endInclusive < beginExclusive) {
    throw invalidArgument(
      `endInclusive ${endInclusive} is before beginExclusive ${beginExclusive}`,
    );
  }
  const format = optionalObjectAt(body.updateFormat, 'updateFormat');
  if (format === undefined) {
    // The deprecated `filter` asks for flat transactions: the ACS delta.
    const filter = requestFilter(body as Json, 'GetUpdatesRequest');
    return { beginExclusive, endInclusive, filter, shape: 'acs-delta' };
  }
  const transactions = optionalObjectAt(
    format.includeTransactions,
    'updateFormat.includeTransactions',
  );
  if (transactions === undefined) {
    return { beginExclusive, endInclusive, filter: null, shape: 'ledger-effects' };
  }
  return {
    beginExclusive,
    endInclusive,
    filter: requestFilter(transactions, 'includeTransactions'),
    shape: parseTransactionShape(
      transactions.transactionShape,
      'includeTransactions.transactionShape',
    ),
  };
}

function transactionItem(ctx: ServerContext, offset: Offset, updates: UpdatesRequest) {
  const { filter, shape } = updates;
  if (filter === null) return null;
  const transaction = visibleTransactionAt(
    ctx.ledger,
    ctx.history,
    offset,
    filter,
    shape,
    ctx.hosting,
  );
  return transaction === null ? null : { update: { Transaction: { value: transaction } } };
}

async function checkedRequest(ctx: ServerContext, user: string, value: unknown) {
  const request = parseUpdatesRequest(value);
  if (request.filter !== null) await requireRead(ctx, user, request.filter);
  const end = await ctx.ledger.ledgerEnd();
  if (request.beginExclusive > end) throw offsetAfterLedgerEnd(request.beginExclusive, end);
  return request;
}

/** The updates of a GetUpdatesRequest as one bounded list, delivery faults included. */
const listUpdates = routeOf<ServerContext>()<{ Querystring: { limit?: string } }>({
  method: 'POST',
  url: '/v2/updates',
  handler: async (ctx, request) => {
    const { ledger } = ctx;
    const updates = await checkedRequest(ctx, userOf(request), request.body);
    const limit = optionalOffsetAt(request.query.limit, 'limit');
    const end = await ledger.ledgerEnd();
    const last = Math.min(updates.endInclusive ?? end, end);
    const cap = listCap(limit);
    const faults = ledger.deliveryFaults();
    const items: unknown[] = [];
    let offset = updates.beginExclusive + 1;
    for (; offset <= last && items.length < cap; offset += 1) {
      const item = transactionItem(ctx, offset, updates);
      if (item === null) continue;
      await faults.delay();
      items.push(item);
      if (faults.duplicatesDelivery() && items.length < cap) items.push(item);
      if (faults.dropsStream()) throw droppedStream(offset);
    }
    // A list that reached the end says so with a checkpoint there, as the stream would.
    if (offset > last) items.push(encodeCheckpoint(last, await ledger.now(), SYNCHRONIZER_ID));
    return boundedList(items, limit);
  },
});

/** The deprecated flat-transaction list, which the 0.x wallet SDK still reads its holdings by. */
const listFlatUpdates = { ...listUpdates, url: '/v2/updates/flats' };

export async function updateRoutes(app: FastifyInstance, ctx: ServerContext): Promise<void> {
  registerRoutes(app, ctx, [listUpdates, listFlatUpdates]);
  streamRoute(
    app,
    '/v2/updates',
    'GetUpdatesRequest',
    (user, message) => checkedRequest(ctx, user, message),
    (socket, updates) =>
      streamOffsets(ctx, socket, {
        beginExclusive: updates.beginExclusive,
        endInclusive: updates.endInclusive,
        itemAt: (offset) => transactionItem(ctx, offset, updates),
        faults: ctx.ledger.deliveryFaults(),
        checkpoint: (offset, recordTime) => encodeCheckpoint(offset, recordTime, SYNCHRONIZER_ID),
      }),
  );
}
