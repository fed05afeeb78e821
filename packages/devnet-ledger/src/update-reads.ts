/**
 * Reading one update back: by update id or by offset (`/v2/updates/update-by-id`,
 * `/update-by-offset`), and the deprecated transaction forms the 0.x wallet SDK still calls
 * (`/v2/updates/transaction-by-id`, `/transaction-by-offset`), which Canton 3.4 still serves.
 *
 * An update the request's parties do not see is not found, as on a participant: a reader learns
 * nothing of transactions it has no part in. The devnet's update ids name their offset, so a
 * lookup needs no index: the id is checked against the update committed at that offset.
 */
import type { Offset } from '@poolparty/ledger';
import type { FastifyInstance } from 'fastify';
import { CantonApiError, invalidArgument } from './canton-errors.js';
import { parseTransactionFormat, type TransactionView, wildcardFilter } from './command-routes.js';
import { type ServerContext, userOf } from './context.js';
import { requireRead } from './contracts.js';
import { registerRoutes, routeOf } from './http/route-table.js';
import {
  type Json,
  objectAt,
  offsetAt,
  optionalObjectAt,
  stringAt,
  stringsAt,
} from './request-body.js';
import { visibleTransactionAt } from './transactions.js';

const updateNotFound = (what: string, context: Record<string, string>) =>
  new CantonApiError(
    'UPDATE_NOT_FOUND',
    'InvalidGivenCurrentSystemStateResourceMissing',
    `Update not found, or not visible: ${what}`,
    context,
  );

/** The offset an update id names, if the update committed there has that id. */
function offsetOfUpdateId(ctx: ServerContext, updateId: string): Offset {
  const named = /^update-(\d{1,15})-[0-9a-f]+$/.exec(updateId);
  const offset = named === null ? 0 : Number(named[1]);
  if (offset === 0 || ctx.ledger.updateAt(offset)?.updateId !== updateId) {
    throw updateNotFound(updateId, { update_id: updateId });
  }
  return offset;
}

/** An UpdateFormat's transactions: the only updates a one-synchronizer devnet has. */
function viewOfUpdateFormat(value: unknown): TransactionView {
  const format = objectAt(value, 'updateFormat');
  const view = parseTransactionFormat(
    optionalObjectAt(format.includeTransactions, 'updateFormat.includeTransactions'),
  );
  if (view === null) {
    throw invalidArgument('updateFormat asks for no transactions, the only updates served here');
  }
  return view;
}

/**
 * The deprecated requests' format: `transactionFormat`, or else `requestingParties` with every
 * contract of theirs in the ACS delta shape, as the API's defaults say.
 */
function viewOfTransactionRequest(body: Json): TransactionView {
  const view = parseTransactionFormat(body.transactionFormat);
  if (view !== null) return view;
  const parties = stringsAt(body.requestingParties ?? [], 'requestingParties');
  if (parties.length === 0) throw invalidArgument('name requestingParties or a transactionFormat');
  return { filter: wildcardFilter(parties), shape: 'acs-delta' };
}

async function visibleAt(ctx: ServerContext, user: string, offset: Offset, view: TransactionView) {
  await requireRead(ctx, user, view.filter);
  const shown = visibleTransactionAt(
    ctx.ledger,
    ctx.history,
    offset,
    view.filter,
    view.shape,
    ctx.hosting,
  );
  if (shown === null) throw updateNotFound(`offset ${offset}`, { offset: String(offset) });
  return shown;
}

const readRoute = routeOf<ServerContext>();

/** The update at the offset the request's body names, in the update format it asks for. */
async function updateAt(
  ctx: ServerContext,
  request: Parameters<typeof userOf>[0] & { readonly body: unknown },
  offsetOf: (body: Json) => Offset,
) {
  const body = objectAt(request.body, 'body');
  const view = viewOfUpdateFormat(body.updateFormat);
  const transaction = await visibleAt(ctx, userOf(request), offsetOf(body), view);
  return { update: { Transaction: { value: transaction } } };
}

const UPDATE_READ_ROUTES = [
  readRoute({
    method: 'POST',
    url: '/v2/updates/update-by-id',
    handler: (ctx, request) =>
      updateAt(ctx, request, (body) => offsetOfUpdateId(ctx, stringAt(body.updateId, 'updateId'))),
  }),
  readRoute({
    method: 'POST',
    url: '/v2/updates/update-by-offset',
    handler: (ctx, request) => updateAt(ctx, request, (body) => offsetAt(body.offset, 'offset')),
  }),
  readRoute({
    method: 'POST',
    url: '/v2/updates/transaction-by-id',
    handler: async (ctx, request) => {
      const body = objectAt(request.body, 'body');
      const offset = offsetOfUpdateId(ctx, stringAt(body.updateId, 'updateId'));
      return {
        transaction: await visibleAt(ctx, userOf(request), offset, viewOfTransactionRequest(body)),
      };
    },
  }),
  readRoute({
    method: 'POST',
    url: '/v2/updates/transaction-by-offset',
    handler: async (ctx, request) => {
      const body = objectAt(request.body, 'body');
      const offset = offsetAt(body.offset, 'offset');
      return {
        transaction: await visibleAt(ctx, userOf(request), offset, viewOfTransactionRequest(body)),
      };
    },
  }),
];

export async function updateReadRoutes(app: FastifyInstance, ctx: ServerContext): Promise<void> {
  registerRoutes(app, ctx, UPDATE_READ_ROUTES);
}
