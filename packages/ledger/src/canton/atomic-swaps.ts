/**
 * Atomic swaps through interactive submission (docs/spec/atomic-swaps.md): one prepared
 * transaction of two `TransferFactory_Transfer` exercises — the trader's input to the pool, the
 * pool's output to the trader — acting as both parties. The trader's own key signs the hash; the
 * pool acts by the user's rights (or a key the service holds for it); the participant commits
 * both legs in one transaction or neither.
 *
 * The flow is one, whoever prepares and executes the transaction (`SwapParticipant`): a Canton
 * participant over its JSON Ledger API (the `canton` adapter, `atomic-swap-participant.ts`), or
 * the devnet ledger's own interactive submission run in process on the embedded ledger
 * (`@poolparty/devnet-ledger`'s `embeddedAtomicSwaps`). Both answer the same prepared transaction
 * and refuse in Canton's terms, so the port's codes are the same on both.
 *
 * Decisions:
 * - Both legs carry `expiresAt` as their `executeBefore`, inside the signed transaction: from then
 *   on the registry's factory refuses them, so no late execution can commit whatever the service
 *   does, and a command that has not committed by then never will.
 * - Each leg settles in the transaction: its receiver takes it by its transfer pre-approval. A
 *   leg the registry would make an offer (no pre-approval) is refused at prepare, `not_authorized`.
 * - Each leg names its inputs (`inputHoldingCids`): the caller's (a reservation of the pool's
 *   holdings), or the sender's largest unlocked holdings covering twice the amount.
 * - A sender hosted on another participant has holdings this participant cannot read: the
 *   caller passes them as disclosed contracts, which the leg names and the prepare discloses
 *   beside the registry's (one per contract id). Only the participant can read a disclosed
 *   contract's blob, so a named holding the reads do not show is left for it to check: it
 *   refuses one it cannot find, gone or undisclosed (`unknown_contract`; a pool's holding is
 *   the pool's `invalid_inputs`, spent since it was read), a disclosure that is not the contract
 *   its id names, or one it cannot read as the contract it says it is (`invalid_disclosure`), and
 *   inputs that do not cover the amount (`insufficient_holdings`).
 * - What can be refused before anything is sent is refused here, so it provably changed nothing:
 *   a deadline already passed, a key that is not the trader's, a signature that does not verify
 *   against the hash the participant reported at prepare.
 * - The participant's refusals of an execute: INVALID_ARGUMENT (a transaction changed after it
 *   was prepared, whose recomputed hash no signature signs) is `signature_invalid`; a contract
 *   gone since prepare (a spent input) is `invalid_inputs`, to prepare again, never to resubmit;
 *   an expired leg is `deadline_passed`. A duplicate is answered with the first commit.
 */
import {
  Amount,
  type DisclosedHolding,
  decodeBase64,
  fingerprint,
  keepRecent,
} from '@poolparty/core';
import { verifyEd25519Signature } from '../ed25519.js';
import {
  type AtomicSwapLeg,
  type AtomicSwapSide,
  type CommandResult,
  type ExecuteAtomicSwapCommand,
  type Holding,
  LedgerError,
  type PrepareAtomicSwapCommand,
  type PreparedAtomicSwap,
} from '../port.js';
import { checkMeta } from '../rules.js';
import { factoryTransfer, selectTransferInputs, transferChoiceArgument } from './commands.js';
import { CantonRequestError, isCantonErrorBody, isDuplicateCommand } from './errors.js';
import {
  prepareRequest,
  SIGNATURE_FORMAT,
  SIGNING_ALGORITHM,
  signersOf,
} from './interactive-submission.js';
import type { ExternalSigner } from './options.js';
import type { TransferFactoryWithChoiceContext } from './registry.js';
import type {
  DisclosedContract,
  JsPrepareSubmissionRequest,
  JsPrepareSubmissionResponse,
} from './wire/index.js';

/** Executions answered from memory; older ones from the participant, as after a restart. */
const OUTCOMES_KEPT = 10_000;
const ED25519_SIGNATURE_BYTES = 64;
const ED25519_KEY_BYTES = 32;

/** One party's signatures of a prepared transaction's hash, as an execute request carries them. */
export interface PartySignatureEntry {
  readonly party: string;
  readonly signatures: readonly {
    readonly format: string;
    readonly signature: string;
    readonly signedBy: string;
    readonly signingAlgorithmSpec: string;
  }[];
}

/** An execute request of a prepared transaction (`/v2/interactive-submission/execute…`). */
export interface AtomicSwapExecution {
  readonly preparedTransaction: string;
  readonly partySignatures: { readonly signatures: readonly PartySignatureEntry[] };
  readonly submissionId: string;
  readonly userId: string;
  readonly hashingSchemeVersion: string;
}

/**
 * What prepares and executes an atomic swap's transaction. Its refusals are the participant's
 * answers as `CantonRequestError`s (their Canton error bodies say why), read here into the port's
 * codes.
 */
export interface SwapParticipant {
  /** The instrument admin's transfer factory for a transfer (its choice argument), and its context. */
  transferFactory(
    admin: string,
    choiceArgument: Readonly<Record<string, unknown>>,
  ): Promise<TransferFactoryWithChoiceContext>;
  prepare(request: JsPrepareSubmissionRequest): Promise<JsPrepareSubmissionResponse>;
  /** Executes, and answers the commit; `parties` are the acting parties (whose view to read). */
  execute(request: AtomicSwapExecution, parties: readonly string[]): Promise<CommandResult>;
  /** The first commit of a command id, as `party` sees it; null when none committed. */
  committed(commandId: string, party: string): Promise<CommandResult | null>;
}

export interface InteractiveAtomicSwapDeps {
  readonly participant: SwapParticipant;
  readonly userId: string;
  readonly externalSigners?: (partyId: string) => ExternalSigner | undefined;
  now(): Promise<Date>;
  getHoldings(partyId: string): Promise<readonly Holding[]>;
  requireParty(partyId: string): Promise<void>;
  isSigningKeyOf(partyId: string, rawPublicKey: Uint8Array): Promise<boolean>;
  /** Ends what was set aside for a swap's output leg (`setAsideForSwap`): spent, or free again. */
  endAside(holdingIds: readonly string[], spent: boolean): void;
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

/**
 * The refusal a participant's answer to a prepare stands for (see the module's note). A pool's
 * holding it cannot find was spent since it was read: `invalid_inputs` of the pool, never the
 * trader's unknown contract.
 */
function prepareRefusal(
  error: unknown,
  pool: { party: string; holdingIds: readonly string[] },
  pickedInputs: readonly string[],
) {
  if (!(error instanceof CantonRequestError)) return error;
  const { failure } = error;
  if (failure.kind !== 'status' || !isCantonErrorBody(failure.body)) return error;
  const { code, context } = failure.body;
  if (code === 'CONTRACT_NOT_FOUND') {
    const missing = context?.contract_id ?? '';
    if (pool.holdingIds.includes(missing)) {
      return new LedgerError('invalid_inputs', `${error.message} (a holding of ${pool.party})`);
    }
    if (pickedInputs.includes(missing)) return new PickedInputSpent(error.message);
    return new LedgerError('unknown_contract', error.message);
  }
  // A disclosed contract the participant cannot read as the one it says it is (a blob it cannot
  // decode, or one of another contract than the id beside it) is refused before interpretation.
  const unreadable = code === 'INVALID_ARGUMENT' && DISCLOSED_CONTRACT.test(failure.body.cause);
  if (code === 'DISCLOSED_CONTRACT_INVALID' || unreadable) {
    return new LedgerError('invalid_disclosure', error.message);
  }
  return error;
}

/** An input this adapter picked for the trader was gone at prepare: spent since it was read. */
class PickedInputSpent extends LedgerError {
  constructor(message: string) {
    super('invalid_inputs', `${message} (the trader's input, spent since it was read)`);
  }
}

/** Whether the caller named the side's inputs (by id or disclosed), rather than leaving the pick. */
function namedBy(side: AtomicSwapSide): boolean {
  return (side.holdingIds?.length ?? 0) > 0 || (side.disclosedHoldings?.length ?? 0) > 0;
}

/** How a participant's refusal names a disclosed contract (`DisclosedContract.…`). */
const DISCLOSED_CONTRACT = /disclosed ?contracts?/i;

/** A holding disclosed to the participant, as a prepare request carries it. */
function disclosedOf(holding: DisclosedHolding): DisclosedContract {
  return {
    contractId: holding.contractId,
    templateId: holding.templateId,
    createdEventBlob: holding.createdEventBlob,
    ...(holding.synchronizerId !== undefined && { synchronizerId: holding.synchronizerId }),
  };
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

/** The port's atomic swaps over a participant's interactive submission (see the module's note). */
export class InteractiveAtomicSwaps {
  private readonly outcomes = new Map<string, CommandResult>();

  constructor(private readonly deps: InteractiveAtomicSwapDeps) {}

  /** Prepares the swap; a refused one lets go at once of the holdings set aside for it. */
  async prepare(command: PrepareAtomicSwapCommand): Promise<PreparedAtomicSwap> {
    try {
      try {
        return await this.prepareNow(command);
      } catch (error) {
        // The trader's inputs this adapter picked were spent between its read and the prepare
        // (the trader's previous swap committing): picked again from a fresh read, once.
        if (!(error instanceof PickedInputSpent)) throw error;
        return await this.prepareNow(command);
      }
    } catch (error) {
      this.deps.endAside(command.output?.holdingIds ?? [], false);
      throw error;
    }
  }

  private async prepareNow(command: PrepareAtomicSwapCommand): Promise<PreparedAtomicSwap> {
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
      [input, output].map((leg) =>
        this.legCommand(leg, { meta, requestedAt: now, executeBefore: expiresAt }),
      ),
    );
    const disclosedHoldings = (command.input.disclosedHoldings ?? []).map(disclosedOf);
    const prepared = await this.deps.participant
      .prepare(
        prepareRequest({
          userId: this.deps.userId,
          commandId,
          commands: legs.map((leg) => leg.command),
          actAs: [trader, pool],
          disclosedContracts: uniqueDisclosed([
            ...disclosedHoldings,
            ...legs.flatMap((leg) => leg.disclosed),
          ]),
        }),
      )
      .catch((error: unknown) => {
        const picked = namedBy(command.input) ? [] : input.holdingIds;
        throw prepareRefusal(error, { party: pool, holdingIds: output.holdingIds }, picked);
      });
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

  /** A leg's `TransferFactory_Transfer` command, refused when its receiver would get an offer. */
  private async legCommand(
    leg: AtomicSwapLeg,
    terms: { readonly meta: Record<string, string>; requestedAt: Date; executeBefore: Date },
  ) {
    const argument = transferChoiceArgument({ ...leg, ...terms, inputHoldingIds: leg.holdingIds });
    const factory = await this.deps.participant.transferFactory(leg.instrument.admin, argument);
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
  }

  /**
   * One leg with its inputs: those named (and disclosed), checked to cover it as far as this
   * participant's reads show them, or the sender's pick.
   */
  private async leg(
    sender: string,
    receiver: string,
    side: AtomicSwapSide,
  ): Promise<AtomicSwapLeg> {
    const { instrument, amount } = side;
    const holdings = await this.deps.getHoldings(sender);
    const named = [
      ...new Set([
        ...(side.holdingIds ?? []),
        ...(side.disclosedHoldings ?? []).map((holding) => holding.contractId),
      ]),
    ];
    const inputs =
      named.length === 0
        ? selectTransferInputs(holdings, { sender, instrument, amount }, () => false)
        : namedInputs(holdings, sender, side, named);
    if (inputs.total?.lt(amount)) {
      throw new LedgerError(
        'insufficient_holdings',
        `${sender} holds ${inputs.total} unlocked ${instrument.id}${named.length > 0 ? ' in the holdings named' : ''}, needs ${amount}`,
      );
    }
    return { sender, receiver, instrument, amount, holdingIds: inputs.holdingIds };
  }

  /**
   * Executes the swap. Its output leg's holdings set aside are spent once it commits, and free
   * again once it is refused; an answer that leaves the outcome open keeps them aside.
   */
  async execute(command: ExecuteAtomicSwapCommand): Promise<CommandResult> {
    const held = command.prepared?.output?.holdingIds ?? [];
    try {
      const result = await this.executeNow(command);
      this.deps.endAside(held, true);
      return result;
    } catch (error) {
      if (!(error instanceof LedgerError && error.code === 'timeout'))
        this.deps.endAside(held, false);
      throw error;
    }
  }

  private async executeNow(command: ExecuteAtomicSwapCommand): Promise<CommandResult> {
    const { prepared, traderSignature } = command;
    const { commandId, trader, pool } = prepared;
    const prior = this.outcomes.get(commandId);
    if (prior !== undefined) return prior;
    const hash = decodeBase64(prepared.preparedTransactionHash);
    await this.checkSignature(trader, hash, traderSignature);
    const now = await this.deps.now();
    if (now.getTime() >= checkExpiry(prepared.expiresAt).getTime()) {
      // Expired, unless this very swap committed before (a lost answer, a restart).
      const first = await this.deps.participant.committed(commandId, pool);
      if (first !== null) return this.remember(commandId, first);
      throw new LedgerError(
        'deadline_passed',
        `atomic swap ${commandId} expired at ${prepared.expiresAt.toISOString()}`,
      );
    }
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
    const request = {
      preparedTransaction: prepared.preparedTransaction,
      partySignatures: { signatures: signatures.map(partySignature) },
      submissionId: commandId,
      userId: this.deps.userId,
      hashingSchemeVersion: prepared.hashingSchemeVersion,
    };
    let result: CommandResult;
    try {
      result = await this.deps.participant.execute(request, [trader, pool]);
    } catch (error) {
      result = await this.afterRefusal(commandId, pool, error);
    }
    return this.remember(commandId, result);
  }

  /** A duplicate's first commit, or the refusal the participant's answer stands for. */
  private async afterRefusal(
    commandId: string,
    pool: string,
    error: unknown,
  ): Promise<CommandResult> {
    if (!(error instanceof CantonRequestError)) throw error;
    if (isDuplicateCommand(error.failure)) {
      const first = await this.deps.participant.committed(commandId, pool);
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
    if (!shaped || !verifyEd25519Signature(hash, signature, publicKey)) {
      throw new LedgerError(
        'signature_invalid',
        `no valid signature of the prepared transaction's hash`,
      );
    }
    if (!(await this.deps.isSigningKeyOf(trader, publicKey))) {
      throw new LedgerError('signature_invalid', `the signing key is not a key of ${trader}`);
    }
  }

  private remember(commandId: string, result: CommandResult): CommandResult {
    const kept = { updateId: result.updateId, offset: result.offset };
    keepRecent(this.outcomes, commandId, kept, OUTCOMES_KEPT);
    return kept;
  }
}

/**
 * The named holdings, each the sender's unlocked one of the side's instrument where the reads
 * show it. One they do not show is the participant's to find (a disclosed one, or one it refuses):
 * then what the inputs hold is not known here (`total` null).
 */
function namedInputs(
  holdings: readonly Holding[],
  sender: string,
  side: AtomicSwapSide,
  named: readonly string[],
): { holdingIds: string[]; total: Amount | null } {
  const byId = new Map(holdings.map((h) => [h.holdingId, h]));
  let total: Amount | null = Amount.ZERO;
  for (const id of new Set(named)) {
    const holding = byId.get(id);
    if (holding === undefined) {
      total = null;
      continue;
    }
    const fits =
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
    total = total?.add(holding.amount) ?? null;
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
