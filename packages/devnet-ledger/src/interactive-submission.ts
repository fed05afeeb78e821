/**
 * Interactive submission for external parties (`/v2/interactive-submission/prepare` and
 * `/execute`, `/executeAndWait`, `/executeAndWaitForTransaction`): the parties' own Ed25519 keys
 * authorize the commands, not the user's rights.
 *
 * `prepare` takes one or more commands (legs) and one or more acting parties and answers Canton's
 * protobuf `PreparedTransaction` (see `prepared-transaction`) and its hash by hashing scheme V2
 * (see `transaction-hash`). `execute` trusts nothing it is sent: it decodes the prepared
 * transaction, recomputes the hash, needs one valid signature of it per external acting party
 * (see `party-signatures`), checks every leg can commit (see `prepared-execution`) and only then
 * runs them. A changed byte changes the hash, so no signature verifies; a missing, invalid or
 * foreign signature is INVALID_ARGUMENT naming the parties, and nothing is submitted. `execute`
 * runs the commands before answering (a participant answers first and reports the outcome as a
 * completion), so its refusals come back on the call itself.
 */

import { PreparedTransaction } from '@canton-network/core-ledger-proto';
import type { CommandResult } from '@poolparty/ledger';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { parseAllocationCommand } from './allocation-commands.js';
import { CantonApiError, invalidArgument } from './canton-errors.js';
import { parseTransactionFormat, submittedTransaction } from './command-routes.js';
import { actingUser, type ServerContext, userOf } from './context.js';
import { createNotPrepared } from './create-commands.js';
import { checkDisclosedHoldings, parseDisclosures } from './disclosed-contracts.js';
import { registerRoutes, routeOf } from './http/route-table.js';
import { parsePartySignatures, signatureRefusal, signatureVerdict } from './party-signatures.js';
import { executeAllocationCommand, planAllocationLegs } from './prepared-allocations.js';
import { commitLegs, type ExecutedLeg } from './prepared-execution.js';
import { type PreparedLeg, planLeg } from './prepared-legs.js';
import {
  commandsOfPreparedTransaction,
  inputContractIdsOf,
  PREPARED_LEGS_MAX,
  type Preparation,
  type PreparedCommand,
  prepareTransaction,
  receivePreparedTransaction,
} from './prepared-transaction.js';
import { arrayAt, type Json, objectAt, optionalStringAt, stringAt } from './request-body.js';
import {
  actAsOf,
  checkActors,
  parseDeduplication,
  parseLedgerCommand,
} from './token-standard-commands.js';
import { preparedTransactionHash } from './transaction-hash.js';

const HASHING_SCHEME_VERSION = 'HASHING_SCHEME_VERSION_V2' as const;

const submissionRoute = routeOf<ServerContext>();

/** The exercise commands of a prepare request, one per leg, within the legs' limit. */
function exercisesOf(commands: unknown): Json[] {
  const list = arrayAt(commands, 'commands');
  if (list.length === 0 || list.length > PREPARED_LEGS_MAX) {
    throw invalidArgument(`commands must hold 1 to ${PREPARED_LEGS_MAX} commands`);
  }
  return list.map((entry, index) => {
    const wrapper = objectAt(entry, `commands[${index}]`);
    // A creation is run for internal parties only: say so rather than ask for an exercise.
    if (wrapper.CreateCommand !== undefined) {
      throw createNotPrepared((wrapper.CreateCommand as { templateId?: unknown }).templateId);
    }
    return objectAt(wrapper.ExerciseCommand, `commands[${index}].ExerciseCommand`);
  });
}

/** Refuses a choice whose controllers are not all among the submitting parties. */
function requireActing(controllers: readonly string[], actAs: readonly string[]): void {
  const missing = controllers.filter((party) => !actAs.includes(party));
  if (missing.length === 0) return;
  throw new CantonApiError(
    'DAML_AUTHORIZATION_ERROR',
    'InvalidIndependentOfSystemState',
    `the choice's controllers ${missing.join(', ')} are not among the submitting parties`,
  );
}

/** The preparation of a prepare request: each leg checked as far as it can be before running. */
async function preparationOf(ctx: ServerContext, body: Json): Promise<Preparation> {
  const commandId = stringAt(body.commandId, 'commandId');
  const actAs = actAsOf(body.actAs);
  for (const party of actAs) {
    if ((await ctx.ledger.getParty(party)) === null) {
      throw invalidArgument(`unknown party ${party} in actAs`, { party });
    }
  }
  const exercises = exercisesOf(body.commands);
  const disclosures = parseDisclosures(body.disclosedContracts);
  checkDisclosedHoldings(ctx, disclosures, await ctx.ledger.ledgerEnd());
  const allocation = parseAllocationCommand(body.commands);
  if (allocation !== null) {
    const legs = await planAllocationLegs(ctx, exercises, allocation);
    for (const leg of legs) requireActing(leg.actingParties, actAs);
    return { commandId, actAs, legs, preparedAt: await ctx.ledger.now() };
  }
  const legs: PreparedLeg[] = [];
  for (const exercise of exercises) {
    const command = parseLedgerCommand([{ ExerciseCommand: exercise }]);
    checkActors(command, actAs);
    const leg = await planLeg(ctx, exercise, command, disclosures);
    if (!actAs.includes(leg.actor)) {
      throw new CantonApiError(
        'DAML_AUTHORIZATION_ERROR',
        'InvalidIndependentOfSystemState',
        `the party exercising ${command.kind} on ${leg.exercise.contractId}, ${leg.actor}, is not among the submitting parties`,
      );
    }
    legs.push(leg);
  }
  return { commandId, actAs, legs, preparedAt: await ctx.ledger.now() };
}

/**
 * The answer to a prepare request: the prepared transaction, its hash and hashing scheme. The
 * caller has checked the user's rights; the embedded ledger's atomic swaps call it in process.
 */
export async function preparedSubmission(ctx: ServerContext, body: Json) {
  const prepared = prepareTransaction(await preparationOf(ctx, body));
  const preparedTransaction = Buffer.from(PreparedTransaction.toBinary(prepared)).toString(
    'base64',
  );
  const hash = preparedTransactionHash(prepared);
  ctx.preparedHashes.remember(preparedTransaction, hash);
  return {
    preparedTransaction,
    preparedTransactionHash: Buffer.from(hash).toString('base64'),
    hashingSchemeVersion: HASHING_SCHEME_VERSION,
  };
}

const prepareSubmission = submissionRoute({
  method: 'POST',
  url: '/v2/interactive-submission/prepare',
  handler: async (ctx, request) => {
    const body = objectAt(request.body, 'body');
    const user = actingUser(ctx, userOf(request), optionalStringAt(body.userId, 'userId'));
    await ctx.users.requireReadAs(user, actAsOf(body.actAs));
    return preparedSubmission(ctx, body);
  },
});

/** The legs a prepared transaction's commands stand for, each exercised by one acting party. */
function executedLegs(legs: readonly PreparedCommand[], actAs: readonly string[]): ExecutedLeg[] {
  return legs.map(({ command, actingParties }, index) => {
    const [actor] = actingParties;
    if (actor === undefined || actingParties.length !== 1 || !actAs.includes(actor)) {
      throw invalidArgument(`leg ${index} is not exercised by one of the submitting parties`);
    }
    const exercise = objectAt(command.ExerciseCommand, 'ExerciseCommand');
    return { command: parseLedgerCommand([command]), actor, exercise };
  });
}

/** Who executes a prepared transaction: the user, and the check of its rights for the parties. */
export interface Executor {
  readonly user: string;
  authorize(actAs: readonly string[]): Promise<void>;
}

/**
 * Executes a prepared transaction for `executor`: prepared by this participant, its hash
 * recomputed, signed by every external acting party, every leg able to commit; its legs run
 * before the answer. The embedded ledger's atomic swaps call it in process.
 */
export async function executePrepared(
  ctx: ServerContext,
  executor: Executor,
  body: Json,
): Promise<CommandResult & { actAs: readonly string[] }> {
  const submissionId = stringAt(body.submissionId, 'submissionId');
  if (body.hashingSchemeVersion !== HASHING_SCHEME_VERSION) {
    throw invalidArgument(`hashingSchemeVersion must be ${HASHING_SCHEME_VERSION}`);
  }
  const received = receivePreparedTransaction(body.preparedTransaction, ctx.preparedHashes);
  const { commandId, actAs, legs } = commandsOfPreparedTransaction(received);
  if (actAs.length === 0) throw invalidArgument('the prepared transaction names no acting party');
  await executor.authorize(actAs);
  const keysOf = new Map<string, readonly Uint8Array[]>();
  for (const party of actAs) keysOf.set(party, await ctx.ledger.signingKeysOf(party));
  const signatures = parsePartySignatures(body.partySignatures);
  const verdict = signatureVerdict({ actAs, keysOf, hash: received.hash, signatures });
  if (!verdict.accepted) throw signatureRefusal(verdict);
  const common = {
    commandId,
    inputContractIds: inputContractIdsOf(received),
    deduplication: parseDeduplication(body.deduplicationPeriod),
    userId: executor.user,
    submissionId,
  };
  const allocation = parseAllocationCommand(legs.map((leg) => leg.command));
  if (allocation !== null) {
    for (const leg of legs) requireActing(leg.actingParties, actAs);
    const exercises = legs.map((leg) => objectAt(leg.command.ExerciseCommand, 'ExerciseCommand'));
    const result = await executeAllocationCommand(ctx, {
      ...common,
      actAs,
      exercises,
      command: allocation,
    });
    return { ...result, actAs };
  }
  const result = await commitLegs(ctx, { ...common, legs: executedLegs(legs, actAs) });
  return { ...result, actAs };
}

/** Executes as the user the request authenticated as, within that user's rights. */
function execute(ctx: ServerContext, request: FastifyRequest, body: Json) {
  const user = actingUser(ctx, userOf(request), optionalStringAt(body.userId, 'userId'));
  return executePrepared(
    ctx,
    { user, authorize: (actAs) => ctx.users.requireExecuteAs(user, actAs) },
    body,
  );
}

const executeSubmission = submissionRoute({
  method: 'POST',
  url: '/v2/interactive-submission/execute',
  handler: async (ctx, request) => {
    await execute(ctx, request, objectAt(request.body, 'body'));
    return {};
  },
});

const executeSubmissionAndWait = submissionRoute({
  method: 'POST',
  url: '/v2/interactive-submission/executeAndWait',
  handler: async (ctx, request) => {
    const result = await execute(ctx, request, objectAt(request.body, 'body'));
    return { updateId: result.updateId, completionOffset: result.offset };
  },
});

const executeSubmissionAndWaitForTransaction = submissionRoute({
  method: 'POST',
  url: '/v2/interactive-submission/executeAndWaitForTransaction',
  handler: async (ctx, request) => {
    const body = objectAt(request.body, 'body');
    const view = parseTransactionFormat(body.transactionFormat);
    const result = await execute(ctx, request, body);
    return { transaction: submittedTransaction(ctx, result, view, result.actAs) };
  },
});

const INTERACTIVE_SUBMISSION_ROUTES = [
  prepareSubmission,
  executeSubmission,
  executeSubmissionAndWait,
  executeSubmissionAndWaitForTransaction,
];

export async function interactiveSubmissionRoutes(
  app: FastifyInstance,
  ctx: ServerContext,
): Promise<void> {
  registerRoutes(app, ctx, INTERACTIVE_SUBMISSION_ROUTES);
}
