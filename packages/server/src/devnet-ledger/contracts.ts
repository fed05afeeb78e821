/**
 * `POST /v2/state/active-contracts`: the Holding and TransferInstruction contracts active at an
 * offset, as the event format shows them. Answered as one JSON array (the HTTP form of the
 * stream); `limit` caps it.
 */
import type { FastifyInstance } from 'fastify';
import { CantonApiError } from './canton-errors.js';
import { type ServerContext, userOf } from './context.js';
import { type EventFilter, parseEventFormat, partiesOf, shapeCreated } from './event-filter.js';
import { SYNCHRONIZER_ID } from './identity.js';
import { objectAt, offsetAt, optionalOffsetAt } from './request-body.js';
import { encodeHoldingCreated, encodeTransferInstructionCreated } from './wire.js';

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

export async function contractRoutes(app: FastifyInstance, ctx: ServerContext): Promise<void> {
  app.post<{ Querystring: { limit?: string } }>('/v2/state/active-contracts', async (request) => {
    const body = objectAt(request.body, 'body');
    const filter = requestFilter(body, 'body');
    await requireRead(ctx, userOf(request), filter);
    const end = await ctx.ledger.ledgerEnd();
    const offset = offsetAt(body.activeAtOffset, 'activeAtOffset');
    if (offset > end) throw offsetAfterLedgerEnd(offset, end);
    const limit = optionalOffsetAt(request.query.limit, 'limit');
    const active = ctx.history.activeAt(offset);
    const createdAt = (at: number) => ({ createdAt: ctx.ledger.updateAt(at)?.recordTime });
    const lockedFor = (offerId: string) =>
      active.holdings
        .filter((h) => h.contract.lock?.offerId === offerId)
        .map((h) => h.contract.holdingId);
    const events = [
      ...active.holdings.map((h) => ({
        at: h.createdAt,
        event: encodeHoldingCreated(
          h.contract,
          h.createdAt,
          SYNCHRONIZER_ID,
          createdAt(h.createdAt),
        ),
      })),
      ...active.instructions.map((i) => ({
        at: i.createdAt,
        event: encodeTransferInstructionCreated(i.contract, i.createdAt, SYNCHRONIZER_ID, {
          ...createdAt(i.createdAt),
          lockedHoldingIds: lockedFor(i.contract.offerId),
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
            createdEvent: shaped,
            synchronizerId: SYNCHRONIZER_ID,
            reassignmentCounter: 0,
          },
        },
      });
      if (limit !== undefined && answers.length >= limit) break;
    }
    return answers;
  });
}
