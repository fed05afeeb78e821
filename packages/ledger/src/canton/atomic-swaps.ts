/**
 * Atomic swaps through a participant's interactive submission (docs/spec/atomic-swaps.md): one
 * prepared transaction of two `TransferFactory_Transfer` exercises — the trader's input to the
 * pool, the pool's output to the trader — acting as both parties. The trader's own key signs the
 * hash; the pool acts by the user's rights (or a key the service holds for it); the participant
 * commits both legs in one transaction or neither.
 *
 * Decisions:
 * - Both legs carry `expiresAt` as their `executeBefore`, inside the signed transaction: from then
 *   on the registry's factory refuses them, so no late execution can commit whatever the service
 *   does, and a command that has not committed by then never will.
 * - Each leg settles in the transaction: its receiver takes it by its transfer pre-approval. A
 *   leg the registry would make an offer (no pre-approval) is refused at prepare, `not_authorized`.
 * - Each leg names its inputs (`inputHoldingCids`): the caller's (a reservation of the pool's
 *   holdings), or the sender's largest unlocked holdings covering twice the amount.
 * - What can be refused before anything is sent is refused here, so it provably changed nothing:
 *   a deadline already passed, a key that is not the trader's, a signature that does not verify
 *   against the hash the participant reported at prepare.
 * - The participant's refusals of an execute: INVALID_ARGUMENT (a transaction changed after it
 *   was prepared, whose recomputed hash no signature signs) is `signature_invalid`; a contract
 *   gone since prepare (a spent input) is `invalid_inputs`, to prepare again, never to resubmit;
 *   an expired leg is `deadline_passed`. A duplicate is answered with the first commit.
 */
import { Amount, decodeBase64, fingerprint, verifyEd25519 } from '@poolparty/core';
import {
  type AtomicSwapLeg,
  type AtomicSwapSide,
  type CommandResult,
  type ExecuteAtomicSwapCommand,
  type Holding,
  LedgerError,
  type LedgerUpdate,
  type PrepareAtomicSwapCommand,
  type PreparedAtomicSwap,
} from '../port.js';
import { checkMeta } from '../rules.js';
import { factoryTransfer, selectTransferInputs, transferChoiceArgument } from './commands.js';
import { CantonRequestError, isCantonErrorBody, isDuplicateCommand } from './errors.js';
import { transactionFormat } from './filters.js';
import { joinUrl } from './http.js';
import {
  prepareRequest,
  SIGNATURE_FORMAT,
  SIGNING_ALGORITHM,
  signersOf,
} from './interactive-submission.js';
import type { ExternalSigner } from './options.js';
import type { ParticipantClient } from './participant.js';
import type { RegistryClient } from './registry.js';
import type {
  DisclosedContract,
  JsPrepareSubmissionResponse,
  JsTransaction,
} from './wire/index.js';

/** Executions answered from memory; older ones from the participant, as after a restart. */
const OUTCOMES_KEPT = 10_000;
const ED25519_SIGNATURE_BYTES = 64;
const ED25519_KEY_BYTES = 32;

export interface AtomicSwapDeps {
  readonly participant: ParticipantClient;
  readonly registry: RegistryClient;
  readonly userId: string;
  readonly submitTimeoutMs: number;
  readonly externalSigners?: (partyId: string) => ExternalSigner | undefined;
  now(): Promise<Date>;
  getHoldings(partyId: string): Promise<readonly Holding[]>;
  requireParty(partyId: string): Promise<void>;
  isSigningKeyOf(partyId: string, rawPublicKey: Uint8Array): Promise<boolean>;
  decode(commandId: string, transaction: JsTransaction): Promise<LedgerUpdate>;
  firstTransaction(commandId: string, party: string): Promise<JsTransaction | null>;
}

function checkSide(side: AtomicSwapSide, name: string): void {
  if (!(side?.amount instanceof Amount) || !side.amount.isPositive()) {
    throw new LedgerError('invalid_amount', `the ${name} amount must be a positive Amount`);
  }
  const { admin, id } = side.instrument ?? {};
  if (typeof admin !== 'string' || admin === '' || typeof id !== 'string' || id === '') {
    throw new LedgerError('unknown_instrument', 'an instrument has a non-empty admin and id');
  }
}

function checkExpiry(expiresAt: unknown): Date {
  if (!(expiresAt instanceof Date) || Number.isNaN(expiresAt.getTime())) {
    throw new TypeError('expiresAt must be a valid Date');
  }
  return expiresAt;
}

/** The refusal a participant's answer to an execute stands for (see the module's note). */
function executeRefusal(error: CantonRequestError): LedgerError | null {
  const { failure } = error;
  if (failure.kind !== 'status' || !isCantonErrorBody(failure.body)) return null;
  const { code } = failure.body;
  if (code === 'INVALID_ARGUMENT') return new LedgerError('signature_invalid', error.message);
  if (code === 'CONTRACT_NOT_FOUND') return new LedgerError('invalid_inputs', error.message);
  if (error.code === 'offer_expired') return new LedgerError('deadline_passed', error.message);
  return null;
}

export class CantonAtomicSwaps {
  private readonly outcomes = new Map<string, CommandResult>();

  constructor(private readonly deps: AtomicSwapDeps) {}

  async prepare(command: PrepareAtomicSwapCommand): Promise<PreparedAtomicSwap> {
    const { commandId, trader, pool } = command;
    checkSide(command.input, 'input');
    checkSide(command.output, 'output');
    const expiresAt = checkExpiry(command.expiresAt);
    const meta = Object.fromEntries(
      Object.entries(command.meta ?? {}).map(([key, value]) => [key, String(value)]),
    );
    checkMeta(meta);
    await this.deps.requireParty(trader);
    await this.deps.requireParty(pool);
    if (trader === pool) throw new LedgerError('not_authorized', 'a pool cannot swap with itself');
    const now = await this.deps.now();
    if (expiresAt.getTime() <= now.getTime()) {
      throw new LedgerError('deadline_passed', `expiresAt ${expiresAt.toISOString()} has passed`);
    }
    const [input, output] = await Promise.all([
      this.leg(trader, pool, command.input),
      this.leg(pool, trader, command.output),
    ]);
    const legs = await Promise.all(
      [input, output].map(async (leg) => {
        const argument = transferChoiceArgument({
          ...leg,
          meta,
          requestedAt: now,
          executeBefore: expiresAt,
          inputHoldingIds: leg.holdingIds,
        });
        const factory = await this.deps.registry.transferFactory(leg.instrument.admin, argument);
        if (factory.transferKind !== 'direct') {
          // An offer leg would leave the amount locked in an instruction the receiver may never
          // accept: the swap would not settle in its own transaction.
          throw new LedgerError(
            'not_authorized',
            `${leg.receiver} does not pre-approve ${leg.instrument.id}: the leg would be an offer, not part of the swap`,
          );
        }
        const { command, disclosedContracts } = factoryTransfer(factory, argument);
        return { command, disclosed: disclosedContracts };
      }),
    );
    const prepared = await this.deps.participant.http.post<JsPrepareSubmissionResponse>(
      joinUrl(this.deps.participant.ledgerApiUrl, '/v2/interactive-submission/prepare'),
      prepareRequest({
        userId: this.deps.userId,
        commandId,
        commands: legs.map((leg) => leg.command),
        actAs: [trader, pool],
        disclosedContracts: uniqueDisclosed(legs.flatMap((leg) => leg.disclosed)),
      }),
      // Preparing changes nothing on the ledger: its failures are refusals (a lost answer too).
      { kind: 'read', timeoutMs: this.deps.submitTimeoutMs },
    );
    return {
      commandId,
      trader,
      pool,
      input,
      output,
      expiresAt,
      preparedTransaction: prepared.preparedTransaction,
      preparedTransactionHash: prepared.preparedTransactionHash,
      hashingSchemeVersion: prepared.hashingSchemeVersion,
    };
  }

  /** One leg with its inputs: those named, checked to cover it, or the sender's pick. */
  private async leg(
    sender: string,
    receiver: string,
    side: AtomicSwapSide,
  ): Promise<AtomicSwapLeg> {
    const { instrument, amount } = side;
    const holdings = await this.deps.getHoldings(sender);
    const named = side.holdingIds;
    const inputs =
      named === undefined || named.length === 0
        ? selectTransferInputs(holdings, { sender, instrument, amount }, () => false)
        : namedInputs(holdings, sender, side, named);
    if (inputs.total.lt(amount)) {
      throw new LedgerError(
        'insufficient_holdings',
        `${sender} holds ${inputs.total} unlocked ${instrument.id}${named?.length ? ' in the holdings named' : ''}, needs ${amount}`,
      );
    }
    return { sender, receiver, instrument, amount, holdingIds: inputs.holdingIds };
  }

  async execute(command: ExecuteAtomicSwapCommand): Promise<CommandResult> {
    const { prepared, traderSignature } = command;
    const { commandId, trader, pool } = prepared;
    const prior = this.outcomes.get(commandId);
    if (prior !== undefined) return prior;
    const hash = decodeBase64(prepared.preparedTransactionHash);
    await this.checkSignature(trader, hash, traderSignature);
    const now = await this.deps.now();
    if (now.getTime() >= checkExpiry(prepared.expiresAt).getTime()) {
      // Expired, unless this very swap committed before (a lost answer, a restart).
      const first = await this.deps.firstTransaction(commandId, pool);
      if (first !== null) return this.remember(commandId, await this.deps.decode(commandId, first));
      throw new LedgerError(
        'deadline_passed',
        `atomic swap ${commandId} expired at ${prepared.expiresAt.toISOString()}`,
      );
    }
    const parties = [trader, pool];
    const held = signersOf([pool], this.deps.externalSigners);
    const signatures = [
      { party: trader, signature: traderSignature.signature, publicKey: traderSignature.publicKey },
      ...(await Promise.all(
        held.map(async ({ party, signer }) => ({
          party,
          signature: await signer.sign(hash as Uint8Array),
          publicKey: signer.publicKey,
        })),
      )),
    ];
    let transaction: JsTransaction;
    try {
      const answer = await this.deps.participant.http.post<{ transaction?: JsTransaction }>(
        joinUrl(
          this.deps.participant.ledgerApiUrl,
          '/v2/interactive-submission/executeAndWaitForTransaction',
        ),
        {
          preparedTransaction: prepared.preparedTransaction,
          partySignatures: { signatures: signatures.map(partySignature) },
          submissionId: commandId,
          userId: this.deps.userId,
          hashingSchemeVersion: prepared.hashingSchemeVersion,
          transactionFormat: transactionFormat({ kind: 'parties', parties }),
        },
        { kind: 'submit', timeoutMs: this.deps.submitTimeoutMs },
      );
      if (answer.transaction === undefined) {
        throw new LedgerError('timeout', `${commandId} executed without its transaction`);
      }
      transaction = answer.transaction;
    } catch (error) {
      transaction = await this.afterRefusal(commandId, pool, error);
    }
    return this.remember(commandId, await this.deps.decode(commandId, transaction));
  }

  /** A duplicate's first commit, or the refusal the participant's answer stands for. */
  private async afterRefusal(
    commandId: string,
    pool: string,
    error: unknown,
  ): Promise<JsTransaction> {
    if (!(error instanceof CantonRequestError)) throw error;
    if (isDuplicateCommand(error.failure)) {
      const first = await this.deps.firstTransaction(commandId, pool);
      if (first !== null) return first;
      throw new LedgerError(
        'timeout',
        `${commandId} is a duplicate, but its first commit is not readable yet`,
      );
    }
    throw executeRefusal(error) ?? error;
  }

  /** Refuses a signature that is not the trader's key's, of this hash (nothing sent yet). */
  private async checkSignature(
    trader: string,
    hash: Uint8Array | null,
    given: ExecuteAtomicSwapCommand['traderSignature'],
  ): Promise<void> {
    const { signature, publicKey } = given ?? {};
    const shaped =
      hash !== null &&
      hash.length > 0 &&
      signature instanceof Uint8Array &&
      signature.length === ED25519_SIGNATURE_BYTES &&
      publicKey instanceof Uint8Array &&
      publicKey.length === ED25519_KEY_BYTES;
    if (!shaped || !verifyEd25519(hash, signature, publicKey)) {
      throw new LedgerError(
        'signature_invalid',
        `no valid signature of the prepared transaction's hash`,
      );
    }
    if (!(await this.deps.isSigningKeyOf(trader, publicKey))) {
      throw new LedgerError('signature_invalid', `the signing key is not a key of ${trader}`);
    }
  }

  private remember(commandId: string, update: LedgerUpdate): CommandResult {
    if (this.outcomes.size >= OUTCOMES_KEPT) {
      const oldest = this.outcomes.keys().next().value;
      if (oldest !== undefined) this.outcomes.delete(oldest);
    }
    const result = { updateId: update.updateId, offset: update.offset };
    this.outcomes.set(commandId, result);
    return result;
  }
}

/** The named holdings, each the sender's unlocked one of the side's instrument. */
function namedInputs(
  holdings: readonly Holding[],
  sender: string,
  side: AtomicSwapSide,
  named: readonly string[],
) {
  const byId = new Map(holdings.map((h) => [h.holdingId, h]));
  let total = Amount.ZERO;
  for (const id of new Set(named)) {
    const holding = byId.get(id);
    const fits =
      holding !== undefined &&
      holding.owner === sender &&
      holding.lock === null &&
      holding.instrument.admin === side.instrument.admin &&
      holding.instrument.id === side.instrument.id;
    if (!fits) {
      throw new LedgerError(
        'invalid_inputs',
        `holding ${id} is not an unlocked ${side.instrument.id} of ${sender}`,
      );
    }
    total = total.add(holding.amount);
  }
  return { holdingIds: [...new Set(named)], total };
}

function partySignature(entry: {
  readonly party: string;
  readonly signature: Uint8Array;
  readonly publicKey: Uint8Array;
}) {
  return {
    party: entry.party,
    signatures: [
      {
        format: SIGNATURE_FORMAT,
        signature: Buffer.from(entry.signature).toString('base64'),
        signedBy: fingerprint(entry.publicKey),
        signingAlgorithmSpec: SIGNING_ALGORITHM,
      },
    ],
  };
}

function uniqueDisclosed(all: readonly DisclosedContract[]): DisclosedContract[] {
  const byId = new Map<string, DisclosedContract>();
  for (const disclosed of all)
    byId.set(disclosed.contractId ?? disclosed.createdEventBlob, disclosed);
  return [...byId.values()];
}
