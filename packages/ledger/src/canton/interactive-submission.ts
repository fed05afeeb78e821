/**
 * Submissions of external parties: the participant prepares the transaction, the party's own
 * Ed25519 key signs the prepared transaction's hash, and the participant executes it with that
 * signature (`/v2/interactive-submission/prepare` + `/executeAndWaitForTransaction`).
 *
 * The hash is signed as the participant reports it. Recomputing it from the prepared
 * transaction would protect against a participant that lies about what it prepared; the
 * adapter trusts its own participant (it is the operator's), so it does not.
 */
import { randomUUID } from 'node:crypto';
import { fingerprint } from '@poolparty/core';
import { LedgerError } from '../port.js';
import { CantonRequestError, codeOfCantonError, isCantonErrorBody } from './errors.js';
import { type JsonHttpClient, joinUrl } from './http.js';
import type { ExternalSigner } from './options.js';
import type {
  JsCommands,
  JsExecuteSubmissionAndWaitForTransactionRequest,
  JsPrepareSubmissionRequest,
  JsPrepareSubmissionResponse,
  JsTransaction,
  TransactionFormat,
} from './wire/index.js';

/** How Canton names a raw 64-byte Ed25519 signature and its algorithm. */
export const SIGNATURE_FORMAT = 'SIGNATURE_FORMAT_CONCAT';
export const SIGNING_ALGORITHM = 'SIGNING_ALGORITHM_SPEC_ED25519';

export function prepareRequest(commands: JsCommands): JsPrepareSubmissionRequest {
  return {
    ...(commands.userId !== undefined && { userId: commands.userId }),
    commandId: commands.commandId,
    commands: commands.commands,
    actAs: commands.actAs,
    disclosedContracts: commands.disclosedContracts ?? [],
    verboseHashing: false,
  };
}

/** An external acting party and the key the service holds for it. */
export interface PartySigner {
  readonly party: string;
  readonly signer: ExternalSigner;
}

/** The acting parties whose key the service holds, each with its key; the others act by rights. */
export function signersOf(
  parties: readonly string[],
  keyOf: ((partyId: string) => ExternalSigner | undefined) | undefined,
): PartySigner[] {
  return [...new Set(parties)].flatMap((party) => {
    const signer = keyOf?.(party);
    return signer === undefined ? [] : [{ party, signer }];
  });
}

/**
 * The execute request of a prepared transaction: one signature of its hash per external acting
 * party. Local acting parties sign nothing; the user's rights authorize them, as they do a
 * plain submission.
 */
export async function executeRequest(input: {
  readonly prepared: JsPrepareSubmissionResponse;
  readonly signers: readonly PartySigner[];
  readonly userId: string;
  readonly transactionFormat: TransactionFormat;
  readonly submissionId?: string;
}): Promise<JsExecuteSubmissionAndWaitForTransactionRequest> {
  const { prepared, signers } = input;
  const hash = Buffer.from(prepared.preparedTransactionHash, 'base64');
  if (hash.length === 0) {
    throw new LedgerError('rejected', 'the participant prepared a transaction without a hash');
  }
  if (signers.length === 0) {
    throw new LedgerError('not_authorized', 'an interactive submission needs an external signer');
  }
  const signatures = await Promise.all(
    signers.map(async ({ party, signer }) => ({
      party,
      signatures: [
        {
          format: SIGNATURE_FORMAT,
          signature: Buffer.from(await signer.sign(new Uint8Array(hash))).toString('base64'),
          signedBy: fingerprint(signer.publicKey),
          signingAlgorithmSpec: SIGNING_ALGORITHM,
        },
      ],
    })),
  );
  return {
    preparedTransaction: prepared.preparedTransaction,
    partySignatures: { signatures },
    submissionId: input.submissionId ?? randomUUID(),
    userId: input.userId,
    hashingSchemeVersion: prepared.hashingSchemeVersion,
    transactionFormat: input.transactionFormat,
  };
}

/** A prepare refused because the instruction's contract is gone means the offer is. */
function asOfferRefusal(error: unknown): unknown {
  if (!(error instanceof CantonRequestError) || error.failure.kind !== 'status') return error;
  const { body } = error.failure;
  if (isCantonErrorBody(body) && codeOfCantonError(body, 'offer') === 'offer_not_found') {
    return new LedgerError('offer_not_found', error.message);
  }
  return error;
}

/**
 * Prepares `commands`, signs their hash with the key of every external acting party in
 * `signers`, and executes them; the committed transaction.
 */
export async function submitExternally(
  http: JsonHttpClient,
  ledgerApiUrl: string,
  input: {
    readonly commands: JsCommands;
    readonly signers: readonly PartySigner[];
    readonly userId: string;
    readonly transactionFormat: TransactionFormat;
    readonly timeoutMs: number;
    readonly kind: 'submit' | 'offer';
  },
): Promise<JsTransaction> {
  // Preparing changes nothing on the ledger: its failures are refusals (a lost answer too).
  const prepared = await http
    .post<JsPrepareSubmissionResponse>(
      joinUrl(ledgerApiUrl, '/v2/interactive-submission/prepare'),
      prepareRequest(input.commands),
      { kind: 'read', timeoutMs: input.timeoutMs },
    )
    .catch((error: unknown) => {
      throw input.kind === 'offer' ? asOfferRefusal(error) : error;
    });
  const request = await executeRequest({ ...input, prepared });
  const answer = await http.post<{ transaction?: JsTransaction }>(
    joinUrl(ledgerApiUrl, '/v2/interactive-submission/executeAndWaitForTransaction'),
    request,
    { kind: input.kind, timeoutMs: input.timeoutMs },
  );
  if (answer.transaction === undefined) {
    throw new LedgerError('timeout', 'the participant executed without returning the transaction');
  }
  return answer.transaction;
}
