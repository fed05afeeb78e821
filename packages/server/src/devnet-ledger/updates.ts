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
 * Devnet choices: the HTTP form answers up to the ledger end when `endInclusive` is absent or
 * later (a participant would wait for the idle timeout); `limit` caps the number of items.
 * Reassignments and topology events never happen on a one-synchronizer devnet.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Offset } from '@poolparty/ledger';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
import { asCantonError, CantonApiError, invalidArgument } from './canton-errors.js';
import { type ServerContext, userOf } from './context.js';
import { offsetAfterLedgerEnd, requestFilter, requireRead } from './contracts.js';
import type { EventFilter } from './event-filter.js';
import { SYNCHRONIZER_ID } from './identity.js';
import {
  type Json,
  objectAt,
  offsetAt,
  optionalObjectAt,
  optionalOffsetAt,
} from './request-body.js';
import { visibleTransactionAt } from './transactions.js';
import { encodeCheckpoint } from './wire.js';

export interface UpdatesRequest {
  readonly beginExclusive: Offset;
  readonly endInclusive: Offset | undefined;
  /** null: the request asks for no transactions (only checkpoints). */
  readonly filter: EventFilter | null;
}

export function parseUpdatesRequest(value: unknown): UpdatesRequest {
  const body = objectAt(value, 'GetUpdatesRequest');
  const beginExclusive = offsetAt(body.beginExclusive ?? 0, 'beginExclusive');
  const endInclusive = optionalOffsetAt(body.endInclusive, 'endInclusive');
  if (endInclusive !== undefined && endInclusive < beginExclusive) {
    throw invalidArgument(
      `endInclusive ${endInclusive} is before beginExclusive ${beginExclusive}`,
    );
  }
  const format = optionalObjectAt(body.updateFormat, 'updateFormat');
  let filter: EventFilter | null;
  if (format === undefined) {
    filter = requestFilter(body as Json, 'GetUpdatesRequest');
  } else {
    const transactions = optionalObjectAt(
      format.includeTransactions,
      'updateFormat.includeTransactions',
    );
    filter = transactions === undefined ? null : requestFilter(transactions, 'includeTransactions');
  }
  return { beginExclusive, endInclusive, filter };
}

function transactionItem(ctx: ServerContext, offset: Offset, filter: EventFilter | null) {
  if (filter === null) return null;
  const transaction = visibleTransactionAt(ctx.ledger, ctx.history, offset, filter);
  return transaction === null ? null : { update: { Transaction: { value: transaction } } };
}

async function checkedRequest(ctx: ServerContext, user: string, value: unknown) {
  const request = parseUpdatesRequest(value);
  if (request.filter !== null) await requireRead(ctx, user, request.filter);
  const end = await ctx.ledger.ledgerEnd();
  if (request.beginExclusive > end) throw offsetAfterLedgerEnd(request.beginExclusive, end);
  return request;
}

export async function updateRoutes(app: FastifyInstance, ctx: ServerContext): Promise<void> {
  const { ledger } = ctx;

  app.post<{ Querystring: { limit?: string } }>('/v2/updates', async (request) => {
    const updates = await checkedRequest(ctx, userOf(request), request.body);
    const limit = optionalOffsetAt(request.query.limit, 'limit');
    const end = await ledger.ledgerEnd();
    const last = Math.min(updates.endInclusive ?? end, end);
    const items: unknown[] = [];
    for (let offset = updates.beginExclusive + 1; offset <= last; offset += 1) {
      if (limit !== undefined && items.length >= limit) return items;
      const item = transactionItem(ctx, offset, updates.filter);
      if (item !== null) items.push(item);
    }
    if (limit === undefined || items.length < limit) {
      items.push(encodeCheckpoint(last, await ledger.now(), SYNCHRONIZER_ID));
    }
    return items;
  });

  app.get('/v2/updates', { websocket: true }, (socket: WebSocket, request: FastifyRequest) => {
    const user = userOf(request);
    socket.once('message', (data) => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(data.toString());
      } catch {
        return failStream(
          socket,
          invalidArgument('the first message is not a JSON GetUpdatesRequest'),
        );
      }
      checkedRequest(ctx, user, parsed).then(
        (updates) => streamUpdates(ctx, socket, updates),
        (error: unknown) => failStream(socket, error),
      );
    });
  });
}

/** Sends the error as Canton does on a stream (one JsCantonError message), then closes. */
function failStream(socket: WebSocket, error: unknown): void {
  const canton =
    asCantonError(error) ??
    new CantonApiError('INTERNAL_ERROR', 'SystemInternalAssumptionViolated', 'the stream failed');
  if (socket.readyState === socket.OPEN) {
    socket.send(JSON.stringify(canton.body()), () => socket.close(1011, canton.code));
  }
}

function send(socket: WebSocket, item: unknown): Promise<void> {
  return new Promise((resolve, reject) =>
    socket.send(JSON.stringify(item), (error) => (error ? reject(error) : resolve())),
  );
}

async function streamUpdates(
  ctx: ServerContext,
  socket: WebSocket,
  updates: UpdatesRequest,
): Promise<void> {
  const { ledger } = ctx;
  const stop = new AbortController();
  socket.once('close', () => stop.abort());
  let next = updates.beginExclusive + 1;
  let checkpointedAt: Offset | null = null;
  try {
    while (!stop.signal.aborted) {
      if (ledger.isClosed()) {
        throw new CantonApiError(
          'SERVICE_NOT_RUNNING',
          'TransientServerFailure',
          'the ledger closed',
        );
      }
      if (updates.endInclusive !== undefined && next > updates.endInclusive) {
        socket.close(1000);
        return;
      }
      if (ledger.updateAt(next) !== undefined) {
        const item = transactionItem(ctx, next, updates.filter);
        if (item !== null) await send(socket, item);
        next += 1;
        continue;
      }
      // Caught up: say so at once, then every interval while nothing commits.
      if (checkpointedAt !== next - 1) {
        await send(socket, encodeCheckpoint(next - 1, await ledger.now(), SYNCHRONIZER_ID));
        checkpointedAt = next - 1;
      }
      const wait = new AbortController();
      const abortWait = () => wait.abort();
      stop.signal.addEventListener('abort', abortWait, { once: true });
      const committed = ledger.nextChange(wait.signal).then(() => 'change' as const);
      const idle = sleep(ctx.checkpointIntervalMs, 'idle' as const, { signal: wait.signal }).catch(
        () => 'aborted' as const,
      );
      const woke = await Promise.race([committed, idle]);
      wait.abort();
      stop.signal.removeEventListener('abort', abortWait);
      if (woke === 'idle') checkpointedAt = null;
    }
  } catch (error) {
    if (!stop.signal.aborted) failStream(socket, error);
  }
}
