/**
 * Command submission (`/v2/commands/submit-and-wait[-for-transaction]`) for the parties the
 * user may act as, and the completions of committed commands (`/v2/commands/completions`).
 */
import type { CommandResult, LedgerEvent, LedgerUpdate, Offset } from '@poolparty/ledger';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { parseAllocationCommand } from './allocation-commands.js';
import { invalidArgument } from './canton-errors.js';
import { actingUser, type ServerContext, userOf } from './context.js';
import { offsetAfterLedgerEnd } from './contracts.js';
import { type EventFilter, parseEventFormat } from './event-filter.js';
import { registerRoutes, routeOf } from './http/route-table.js';
import { boundedList, listCap } from './http-lists.js';
import { SYNCHRONIZER_ID } from './identity.js';
import {
  objectAt,
  optionalObjectAt,
  optionalOffsetAt,
  optionalStringAt,
  stringAt,
  stringsAt,
} from './request-body.js';
import { actAsOf, parseDeduplication, parseSubmittedCommand } from './token-standard-commands.js';
import {
  parseTransactionShape,
  shapeTransaction,
  type TransactionShape,
  transactionAt,
} from './transactions.js';
import type { JsTransaction } from './wire.js';
import { streamOffsets, streamRoute } from './ws-streams.js';

/** Every contract of these parties: what the submitting parties see without a format. */
export function wildcardFilter(actAs: readonly string[]): EventFilter {
  const wildcard = {
    wildcard: true,
    interfaces: new Map(),
    templates: new Set<string>(),
    blobs: false,
  };
  return { byParty: new Map(actAs.map((party) => [party, wildcard])), anyParty: null };
}

/** How a submission's transaction is to be shown; null: Canton's default for the submitters. */
export interface TransactionView {
  readonly filter: EventFilter;
  readonly shape: TransactionShape;
}

/**
 * A request's `transactionFormat`, read before anything is submitted: a malformed one must be
 * refused while nothing has happened yet.
 */
export function parseTransactionFormat(value: unknown): TransactionView | null {
  const format = optionalObjectAt(value, 'transactionFormat');
  if (format === undefined) return null;
  return {
    filter: parseEventFormat(format.eventFormat, 'transactionFormat.eventFormat'),
    shape: parseTransactionShape(format.transactionShape, 'transactionFormat.transactionShape'),
  };
}

/** The committed transaction of a submission, as its transaction format shows it. */
export function submittedTransaction(
  ctx: ServerContext,
  result: CommandResult,
  view: TransactionView | null,
  actAs: readonly string[],
): JsTransaction {
  const transaction = transactionAt(ctx.ledger, ctx.history, result.offset);
  if (transaction === undefined) throw new Error(`no transaction at offset ${result.offset}`);
  // Without a format Canton answers the ACS delta the submitting parties see.
  const { filter, shape } = view ?? { filter: wildcardFilter(actAs), shape: 'acs-delta' as const };
  return shapeTransaction(ctx.history, transaction, filter, shape, ctx.hosting);
}

/** The party whose command an update's first event records (who exercised the choice). */
function actingParty(event: LedgerEvent): string {
  switch (event.kind) {
    case 'mint':
    case 'burn':
      return event.owner;
    case 'transfer':
      return event.offerId === null ? event.sender : event.receiver;
    case 'offer_rejected':
      return event.receiver;
    // A settlement's executor executes it (and cancels it with the others' consent).
    case 'allocation_executed':
    case 'allocation_cancelled':
      return event.allocation.settlement.executor;
    default:
      return event.sender;
  }
}

/**
 * The party whose command the update at `offset` committed: its first event's; for a transfer to
 * oneself (which has no event) the owner's; for another update without events (a pre-approval)
 * the submitter's first party; null for an update of no command.
 */
function submittingParty(ctx: ServerContext, offset: Offset): string | null {
  const { ledger } = ctx;
  const update = ledger.updateAt(offset);
  const first = update?.events[0];
  if (first !== undefined) return actingParty(first);
  const owner = ledger.holdingChangesAt(offset)?.selfTransfer?.owner;
  if (owner !== undefined) return owner;
  const commandId = update?.commandId;
  return (commandId == null ? undefined : ctx.commands.originOf(commandId)?.party) ?? null;
}

function completionOf(
  update: LedgerUpdate,
  party: string,
  userId: string,
  submissionId: string | undefined,
) {
  return {
    completionResponse: {
      Completion: {
        value: {
          commandId: update.commandId as string,
          status: { code: 0, message: '' },
          updateId: update.updateId,
          userId,
          ...(submissionId !== undefined && { submissionId }),
          actAs: [party],
          offset: update.offset,
          synchronizerTime: {
            synchronizerId: SYNCHRONIZER_ID,
            recordTime: update.recordTime.toISOString(),
          },
        },
      },
    },
  };
}

/** Submits a request's `commands` for the parties the user may act as. */
async function submitCommands(ctx: ServerContext, request: FastifyRequest, commandsValue: unknown) {
  const commands = objectAt(commandsValue, 'commands');
  const commandId = stringAt(commands.commandId, 'commands.commandId');
  const actAs = actAsOf(commands.actAs);
  const user = actingUser(
    ctx,
    userOf(request),
    optionalStringAt(commands.userId, 'commands.userId'),
  );
  const command =
    parseAllocationCommand(commands.commands) ?? parseSubmittedCommand(commands.commands);
  await ctx.users.requireActAs(user, actAs);
  const submissionId = optionalStringAt(commands.submissionId, 'commands.submissionId');
  const result = await ctx.commands.submit({
    commandId,
    actAs,
    command,
    deduplication: parseDeduplication(commands.deduplicationPeriod),
    userId: user,
    ...(submissionId !== undefined && { submissionId }),
  });
  return { result, actAs };
}

const commandRoute = routeOf<ServerContext>();

const submitAndWaitForTransaction = commandRoute({
  method: 'POST',
  url: '/v2/commands/submit-and-wait-for-transaction',
  handler: async (ctx, request) => {
    const body = objectAt(request.body, 'body');
    const view = parseTransactionFormat(body.transactionFormat);
    const { result, actAs } = await submitCommands(ctx, request, body.commands);
    return { transaction: submittedTransaction(ctx, result, view, actAs) };
  },
});

const submitAndWait = commandRoute({
  method: 'POST',
  url: '/v2/commands/submit-and-wait',
  handler: async (ctx, request) => {
    const { result } = await submitCommands(ctx, request, request.body);
    return { updateId: result.updateId, completionOffset: result.offset };
  },
});

/**
 * The asynchronous submission a participant answers before the command runs. The devnet runs it
 * first, so a refusal comes back on the call rather than as a failed completion; a committed
 * command's completion is on the completion stream, as after `submit-and-wait`.
 */
const submitAsync = commandRoute({
  method: 'POST',
  url: '/v2/commands/async/submit',
  handler: async (ctx, request) => {
    await submitCommands(ctx, request, request.body);
    return {};
  },
});

const listCompletions = commandRoute<{ Querystring: { limit?: string } }>({
  method: 'POST',
  url: '/v2/commands/completions',
  handler: async (ctx, request) => {
    const completions = await completionsRequest(ctx, userOf(request), request.body);
    const limit = optionalOffsetAt(request.query.limit, 'limit');
    const end = await ctx.ledger.ledgerEnd();
    const cap = listCap(limit);
    const items: unknown[] = [];
    for (
      let offset = completions.beginExclusive + 1;
      offset <= end && items.length < cap;
      offset += 1
    ) {
      const item = completions.itemAt(offset);
      if (item !== null) items.push(item);
    }
    return boundedList(items, limit);
  },
});

export async function commandRoutes(app: FastifyInstance, ctx: ServerContext): Promise<void> {
  registerRoutes(app, ctx, [
    submitAndWaitForTransaction,
    submitAndWait,
    submitAsync,
    listCompletions,
  ]);
  streamRoute(
    app,
    '/v2/commands/completions',
    'CompletionStreamRequest',
    (user, message) => completionsRequest(ctx, user, message),
    (socket, completions) =>
      streamOffsets(ctx, socket, { ...completions, endInclusive: undefined }),
  );
}

/** A CompletionStreamRequest, checked, as the completion items it selects. */
async function completionsRequest(ctx: ServerContext, authenticated: string, value: unknown) {
  const { ledger, users } = ctx;
  const body = objectAt(value, 'CompletionStreamRequest');
  const named = optionalStringAt(body.userId, 'userId');
  const user = actingUser(ctx, authenticated, named);
  const parties = stringsAt(body.parties, 'parties');
  if (parties.length === 0) throw invalidArgument('parties names no party');
  await users.requireReadAs(user, parties);
  const beginExclusive = optionalOffsetAt(body.beginExclusive, 'beginExclusive') ?? 0;
  const end = await ledger.ledgerEnd();
  if (beginExclusive > end) throw offsetAfterLedgerEnd(beginExclusive, end);
  const itemAt = (offset: Offset) => {
    const update = ledger.updateAt(offset);
    const party = submittingParty(ctx, offset);
    if (update === undefined || update.commandId === null || party === null) return null;
    // Commands that did not come through this server count as the administrator's.
    const origin = ctx.commands.originOf(update.commandId);
    const submitter = origin?.userId ?? users.defaultUser;
    if (!parties.includes(party) || submitter !== (named ?? user)) return null;
    return completionOf(update, party, submitter, origin?.submissionId);
  };
  const checkpoint = (offset: Offset, recordTime: Date) => ({
    completionResponse: {
      OffsetCheckpoint: {
        value: {
          offset,
          synchronizerTimes: [
            { synchronizerId: SYNCHRONIZER_ID, recordTime: recordTime.toISOString() },
          ],
        },
      },
    },
  });
  return { beginExclusive, itemAt, checkpoint };
}
