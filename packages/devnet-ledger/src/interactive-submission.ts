/**
 * Interactive submission for external parties (`/v2/interactive-submission/prepare` and
 * `/execute`, `/executeAndWait`, `/executeAndWaitForTransaction`): the party's own Ed25519 key
 * authorizes the command, not the user's rights.
 *
 * Devnet hashing scheme (a real participant hashes the Daml transaction per its scheme V2; the
 * devnet has no Daml transaction to hash):
 * - `preparedTransaction` is base64 of a JSON document naming the format
 *   (`poolparty-devnet-prepared/1`), command id, acting parties, user, the commands as sent and
 *   the ledger time of preparation;
 * - `preparedTransactionHash` is base64 of SHA-256 over exactly those decoded bytes, so any change
 *   to the prepared transaction changes its hash;
 * - execution needs, for every acting party, an Ed25519 signature of the 32 hash bytes by one of
 *   the party's registered signing keys, with `signedBy` the key's fingerprint (core
 *   `fingerprint`), `signingAlgorithmSpec` `SIGNING_ALGORITHM_SPEC_ED25519` and format
 *   `SIGNATURE_FORMAT_CONCAT` or `SIGNATURE_FORMAT_RAW`.
 * A missing or wrong signature is INVALID_ARGUMENT naming the party; nothing is submitted.
 * `execute` runs the command before answering (a participant answers first and reports the
 * outcome as a completion), so its refusals come back on the call itself.
 */
import { createHash } from 'node:crypto';
import { decodeBase64, fingerprint, verifyEd25519 } from '@poolparty/core';
import type { CommandResult } from '@poolparty/ledger';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { invalidArgument } from './canton-errors.js';
import { parseTransactionFormat, submittedTransaction } from './command-routes.js';
import { actingUser, type ServerContext, userOf } from './context.js';
import { registerRoutes, routeOf } from './http/route-table.js';
import { arrayAt, type Json, objectAt, optionalStringAt, stringAt } from './request-body.js';
import { actAsOf, parseDeduplication, parseLedgerCommand } from './token-standard-commands.js';

export const PREPARED_FORMAT = 'poolparty-devnet-prepared/1';
export const HASHING_SCHEME_VERSION = 'HASHING_SCHEME_VERSION_V2';
export const ED25519_SPEC = 'SIGNING_ALGORITHM_SPEC_ED25519';
const SIGNATURE_FORMATS = new Set(['SIGNATURE_FORMAT_CONCAT', 'SIGNATURE_FORMAT_RAW']);

interface Prepared {
  readonly format: string;
  readonly commandId: string;
  readonly actAs: readonly string[];
  readonly userId: string;
  readonly commands: readonly unknown[];
  readonly preparedAt: string;
}

export function preparedHash(bytes: Uint8Array): Uint8Array {
  return new Uint8Array(createHash('sha256').update(bytes).digest());
}

function decodePrepared(text: unknown): { prepared: Prepared; hash: Uint8Array } {
  const bytes = decodeBase64(stringAt(text, 'preparedTransaction'));
  let prepared: Prepared | undefined;
  try {
    prepared =
      bytes === null ? undefined : (JSON.parse(Buffer.from(bytes).toString('utf8')) as Prepared);
  } catch {
    prepared = undefined;
  }
  if (bytes === null || prepared?.format !== PREPARED_FORMAT) {
    throw invalidArgument('preparedTransaction is not one this participant prepared');
  }
  return { prepared, hash: preparedHash(bytes) };
}

/** The parties whose valid signature of the hash the request carries. */
async function signingParties(
  ctx: ServerContext,
  partySignatures: unknown,
  hash: Uint8Array,
): Promise<Set<string>> {
  const signed = new Set<string>();
  const list = arrayAt(objectAt(partySignatures, 'partySignatures').signatures, 'signatures');
  for (const [index, entry] of list.entries()) {
    const single = objectAt(entry, `signatures[${index}]`);
    const party = stringAt(single.party, `signatures[${index}].party`);
    const keys = await ctx.ledger.signingKeysOf(party);
    for (const [at, value] of arrayAt(
      single.signatures,
      `signatures[${index}].signatures`,
    ).entries()) {
      const path = `signatures[${index}].signatures[${at}]`;
      const signature = objectAt(value, path);
      if (signature.signingAlgorithmSpec !== ED25519_SPEC) {
        throw invalidArgument(`${path}.signingAlgorithmSpec must be ${ED25519_SPEC}`);
      }
      if (!SIGNATURE_FORMATS.has(stringAt(signature.format, `${path}.format`))) {
        throw invalidArgument(`${path}.format must be SIGNATURE_FORMAT_CONCAT or _RAW`);
      }
      const signedBy = stringAt(signature.signedBy, `${path}.signedBy`);
      const bytes = decodeBase64(stringAt(signature.signature, `${path}.signature`));
      const key = keys.find((candidate) => fingerprint(candidate) === signedBy);
      if (bytes !== null && key !== undefined && verifyEd25519(hash, bytes, key)) signed.add(party);
    }
  }
  return signed;
}

const submissionRoute = routeOf<ServerContext>();

const prepareSubmission = submissionRoute({
  method: 'POST',
  url: '/v2/interactive-submission/prepare',
  handler: async (ctx, request) => {
    const body = objectAt(request.body, 'body');
    const user = actingUser(ctx, userOf(request), optionalStringAt(body.userId, 'userId'));
    const commandId = stringAt(body.commandId, 'commandId');
    const actAs = actAsOf(body.actAs);
    parseLedgerCommand(body.commands);
    await ctx.users.requireReadAs(user, actAs);
    for (const party of actAs) {
      if ((await ctx.ledger.getParty(party)) === null) {
        throw invalidArgument(`unknown party ${party} in actAs`, { party });
      }
    }
    const prepared: Prepared = {
      format: PREPARED_FORMAT,
      commandId,
      actAs,
      userId: user,
      commands: arrayAt(body.commands, 'commands'),
      preparedAt: (await ctx.ledger.now()).toISOString(),
    };
    const bytes = Buffer.from(JSON.stringify(prepared), 'utf8');
    return {
      preparedTransaction: bytes.toString('base64'),
      preparedTransactionHash: Buffer.from(preparedHash(bytes)).toString('base64'),
      hashingSchemeVersion: HASHING_SCHEME_VERSION,
    };
  },
});

/**
 * Executes a prepared transaction: prepared for this user, by this participant, and signed by
 * every acting party; its command runs before the answer.
 */
async function execute(
  ctx: ServerContext,
  request: FastifyRequest,
  body: Json,
): Promise<CommandResult & { actAs: readonly string[] }> {
  stringAt(body.submissionId, 'submissionId');
  if (body.hashingSchemeVersion !== HASHING_SCHEME_VERSION) {
    throw invalidArgument(`hashingSchemeVersion must be ${HASHING_SCHEME_VERSION}`);
  }
  const { prepared, hash } = decodePrepared(body.preparedTransaction);
  const user = actingUser(ctx, userOf(request), optionalStringAt(body.userId, 'userId'));
  if (prepared.userId !== user) {
    throw invalidArgument(`the transaction was prepared for user ${prepared.userId}, not ${user}`);
  }
  await ctx.users.requireExecuteAs(user, prepared.actAs);
  const signed = await signingParties(ctx, body.partySignatures, hash);
  const unsigned = prepared.actAs.filter((party) => !signed.has(party));
  if (unsigned.length > 0) {
    throw invalidArgument(
      `no valid signature of the prepared transaction hash by ${unsigned.join(', ')}`,
      { parties: unsigned.join(',') },
    );
  }
  const result = await ctx.commands.submit({
    commandId: prepared.commandId,
    actAs: prepared.actAs,
    command: parseLedgerCommand(prepared.commands),
    deduplication: parseDeduplication(body.deduplicationPeriod),
    userId: user,
    submissionId: stringAt(body.submissionId, 'submissionId'),
  });
  return { ...result, actAs: prepared.actAs };
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
