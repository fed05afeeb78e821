/**
 * Interactive submission for external parties (`/v2/interactive-submission/prepare` and
 * `/execute`, `/executeAndWait`, `/executeAndWaitForTransaction`): the party's own Ed25519 key
 * authorizes the command, not the user's rights.
 *
 * `prepare` answers Canton's protobuf `PreparedTransaction` (see `prepared-transaction`) and its
 * hash by hashing scheme V2 (see `transaction-hash`). `execute` trusts nothing it is sent: it
 * decodes the prepared transaction, recomputes the hash, needs for every acting party an Ed25519
 * signature of that hash by one of the party's keys (`signedBy` the key's fingerprint), and runs
 * the command the transaction holds. A changed byte changes the hash, so the signature no longer
 * verifies; a missing or wrong signature is INVALID_ARGUMENT naming the party, and nothing is
 * submitted. `execute` runs the command before answering (a participant answers first and
 * reports the outcome as a completion), so its refusals come back on the call itself.
 */

import { PreparedTransaction } from '@canton-network/core-ledger-proto';
import { decodeBase64, fingerprint } from '@poolparty/core';
import type { CommandResult } from '@poolparty/ledger';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { CantonApiError, invalidArgument } from './canton-errors.js';
import { parseTransactionFormat, submittedTransaction } from './command-routes.js';
import { actingUser, type ServerContext, userOf } from './context.js';
import { verifyEd25519Signature } from './ed25519.js';
import { registerRoutes, routeOf } from './http/route-table.js';
import {
  commandOfPreparedTransaction,
  type Preparation,
  prepareTransaction,
  receivePreparedTransaction,
} from './prepared-transaction.js';
import { arrayAt, type Json, objectAt, optionalStringAt, stringAt } from './request-body.js';
import {
  actAsOf,
  checkActors,
  type LedgerCommand,
  parseDeduplication,
  parseLedgerCommand,
} from './token-standard-commands.js';
import { preparedTransactionHash } from './transaction-hash.js';

const HASHING_SCHEME_VERSION = 'HASHING_SCHEME_VERSION_V2';
const ED25519_SPEC = 'SIGNING_ALGORITHM_SPEC_ED25519';
const SIGNATURE_FORMATS = new Set(['SIGNATURE_FORMAT_CONCAT', 'SIGNATURE_FORMAT_RAW']);
/** How many parties, and signatures per party, one execution may carry. */
const SIGNATURES_MAX = 100;

/** The signatures of one party in `partySignatures`, each checked for its declared shape. */
function signaturesOf(entry: unknown, index: number) {
  const single = objectAt(entry, `signatures[${index}]`);
  const party = stringAt(single.party, `signatures[${index}].party`);
  const list = arrayAt(single.signatures, `signatures[${index}].signatures`);
  if (list.length > SIGNATURES_MAX)
    throw invalidArgument(`over ${SIGNATURES_MAX} signatures of ${party}`);
  const signatures = list.map((value, at) => {
    const path = `signatures[${index}].signatures[${at}]`;
    const signature = objectAt(value, path);
    if (signature.signingAlgorithmSpec !== ED25519_SPEC) {
      throw invalidArgument(`${path}.signingAlgorithmSpec must be ${ED25519_SPEC}`);
    }
    if (!SIGNATURE_FORMATS.has(stringAt(signature.format, `${path}.format`))) {
      throw invalidArgument(`${path}.format must be SIGNATURE_FORMAT_CONCAT or _RAW`);
    }
    return {
      signedBy: stringAt(signature.signedBy, `${path}.signedBy`),
      bytes: decodeBase64(stringAt(signature.signature, `${path}.signature`)),
    };
  });
  return { party, signatures };
}

/** The parties whose valid signature of the hash the request carries. */
async function signingParties(
  ctx: ServerContext,
  partySignatures: unknown,
  hash: Uint8Array,
): Promise<Set<string>> {
  const signed = new Set<string>();
  const list = arrayAt(objectAt(partySignatures, 'partySignatures').signatures, 'signatures');
  if (list.length > SIGNATURES_MAX) throw invalidArgument(`over ${SIGNATURES_MAX} signing parties`);
  for (const [index, entry] of list.entries()) {
    const { party, signatures } = signaturesOf(entry, index);
    const keys = await ctx.ledger.signingKeysOf(party);
    for (const { signedBy, bytes } of signatures) {
      const key = keys.find((candidate) => fingerprint(candidate) === signedBy);
      if (bytes !== null && key !== undefined && verifyEd25519Signature(hash, bytes, key))
        signed.add(party);
    }
  }
  return signed;
}

/** The pending instruction a choice on an instruction needs, as of the ledger end. */
async function instructionOf(ctx: ServerContext, command: LedgerCommand) {
  if (command.kind === 'transfer') return null;
  const pending = ctx.history.pendingInstruction(command.offerId, await ctx.ledger.ledgerEnd());
  if (pending !== undefined) return pending;
  throw new CantonApiError(
    'CONTRACT_NOT_FOUND',
    'InvalidGivenCurrentSystemStateResourceMissing',
    `no pending transfer instruction ${command.offerId}`,
    { contract_id: command.offerId },
  );
}

const submissionRoute = routeOf<ServerContext>();

/** The preparation of a prepare request: its command checked as far as it can be before running. */
async function preparationOf(ctx: ServerContext, body: Json): Promise<Preparation> {
  const commandId = stringAt(body.commandId, 'commandId');
  const actAs = actAsOf(body.actAs);
  const command = parseLedgerCommand(body.commands);
  for (const party of actAs) {
    if ((await ctx.ledger.getParty(party)) === null) {
      throw invalidArgument(`unknown party ${party} in actAs`, { party });
    }
  }
  checkActors(command, actAs);
  const exercise = objectAt(
    objectAt(arrayAt(body.commands, 'commands')[0], 'commands[0]').ExerciseCommand,
    'commands[0].ExerciseCommand',
  );
  const instruction = await instructionOf(ctx, command);
  return { commandId, actAs, exercise, command, instruction, preparedAt: await ctx.ledger.now() };
}

const prepareSubmission = submissionRoute({
  method: 'POST',
  url: '/v2/interactive-submission/prepare',
  handler: async (ctx, request) => {
    const body = objectAt(request.body, 'body');
    const user = actingUser(ctx, userOf(request), optionalStringAt(body.userId, 'userId'));
    await ctx.users.requireReadAs(user, actAsOf(body.actAs));
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
  },
});

/**
 * Executes a prepared transaction: prepared by this participant, its hash recomputed, signed by
 * every acting party; its command runs before the answer.
 */
async function execute(
  ctx: ServerContext,
  request: FastifyRequest,
  body: Json,
): Promise<CommandResult & { actAs: readonly string[] }> {
  const submissionId = stringAt(body.submissionId, 'submissionId');
  if (body.hashingSchemeVersion !== HASHING_SCHEME_VERSION) {
    throw invalidArgument(`hashingSchemeVersion must be ${HASHING_SCHEME_VERSION}`);
  }
  const received = receivePreparedTransaction(body.preparedTransaction, ctx.preparedHashes);
  const { commandId, actAs, commands } = commandOfPreparedTransaction(received);
  const user = actingUser(ctx, userOf(request), optionalStringAt(body.userId, 'userId'));
  await ctx.users.requireExecuteAs(user, actAs);
  const signed = await signingParties(ctx, body.partySignatures, received.hash);
  const unsigned = actAs.filter((party) => !signed.has(party));
  if (unsigned.length > 0 || actAs.length === 0) {
    throw invalidArgument(
      `no valid signature of the prepared transaction hash by ${unsigned.join(', ') || 'any party'}`,
      { parties: unsigned.join(',') },
    );
  }
  const result = await ctx.commands.submit({
    commandId,
    actAs,
    command: parseLedgerCommand(commands),
    deduplication: parseDeduplication(body.deduplicationPeriod),
    userId: user,
    submissionId,
  });
  return { ...result, actAs };
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
