/**
 * The legs of a prepared transaction, one per command: what each reads and what it creates, as
 * the ledger's state says at preparation, so a wallet sees what it signs.
 *
 * - A transfer reads the admin's transfer factory and the sender's holdings the ledger will
 *   spend (its own selection: unlocked holdings of the instrument, largest first, until they
 *   cover the amount); it creates the receiver's holding (a receiver that pre-approves the
 *   instrument) or the sender's holding locked for the offer and the transfer instruction, then
 *   the sender's change.
 * - A choice on an instruction reads the instruction and its locked holding; it creates the
 *   receiver's holding (accept) or the sender's unlocked holding back (reject, withdraw).
 *
 * Input contracts carry their ledger contract ids and creation times. A created contract gets
 * its id from the ledger when the transaction commits (as a participant suffixes its ids at
 * commit): the prepared transaction names it by a discriminator, `00` and a digest of the
 * transaction's UUID and the node.
 */
import { createHash } from 'node:crypto';
import { Amount, type Instrument } from '@poolparty/core';
import type { Holding, Offset, TransferOffer } from '@poolparty/ledger';
import { CantonApiError } from './canton-errors.js';
import type { ServerContext } from './context.js';
import { type Disclosures, namedInputHolding } from './disclosed-contracts.js';
import { SYNCHRONIZER_ID } from './identity.js';
import type { Json } from './request-body.js';
import { genesisTime } from './scan-proxy.js';
import type { LedgerCommand } from './token-standard-commands.js';
import { encodeHoldingCreated, encodeTransferInstructionCreated, TEMPLATE_IDS } from './wire.js';

/** A contract as a prepared transaction shows it: the devnet template and its argument's JSON. */
export interface LegContract {
  readonly kind: 'holding' | 'transferInstruction' | 'transferFactory' | 'allocation';
  readonly contractId: string;
  readonly templateId: string;
  readonly argument: unknown;
  readonly signatories: readonly string[];
  readonly stakeholders: readonly string[];
}

export interface InputContract extends LegContract {
  readonly createdAt: Date;
}

/** One command of a prepared transaction, with what it reads and creates. */
export interface PreparedLeg {
  /** The `ExerciseCommand` as the client sent it. */
  readonly exercise: Json;
  readonly command: LedgerCommand;
  /** The party exercising the choice: the sender, or the instruction's receiver or sender. */
  readonly actor: string;
  /** The pending instruction a choice on an instruction exercises. */
  readonly instruction: TransferOffer | null;
  readonly inputs: readonly InputContract[];
  /** What the leg creates, contract ids not yet given (see `createdContractId`). */
  readonly creates: readonly Omit<LegContract, 'contractId'>[];
}

/**
 * A leg of an allocation choice (prepared-allocations.ts): its root node is described here
 * rather than derived from a transfer or instruction command.
 */
export interface AllocationLeg {
  readonly exercise: Json;
  /** The choice's controllers, every one an acting party of the transaction. */
  readonly actingParties: readonly string[];
  /** Who signs and who sees the contract the choice is exercised on. */
  readonly contract: Pick<LegContract, 'signatories' | 'stakeholders'>;
  /** An allocation is consumed by its choices; the factory stays. */
  readonly consuming: boolean;
  readonly inputs: readonly InputContract[];
  readonly creates: readonly Omit<LegContract, 'contractId'>[];
}

/** How many holdings one leg may list as spent; the ledger's selection spends the fewest. */
const LEG_INPUT_HOLDINGS_MAX = 1000;

/** The id a prepared transaction names a contract it creates by, before the ledger gives one. */
export function createdContractId(transactionUuid: string, nodeId: string): string {
  const digest = createHash('sha256').update(`${transactionUuid}/${nodeId}`).digest('hex');
  return `00${digest}`;
}

export function holdingContract(holding: Omit<Holding, 'holdingId'>, contractId = ''): LegContract {
  const event = encodeHoldingCreated({ ...holding, holdingId: contractId }, 0, SYNCHRONIZER_ID);
  const parties = [holding.instrument.admin, holding.owner];
  return {
    kind: 'holding',
    contractId,
    templateId: TEMPLATE_IDS.holding,
    argument: event.createArgument,
    signatories: parties,
    stakeholders: parties,
  };
}

/** A transfer instruction; `createdAt` is its transfer's `requestedAt`, as the ledger renders it. */
function instructionContract(
  offer: TransferOffer,
  lockedHoldingIds: readonly string[],
  createdAt: Date,
) {
  const { createArgument } = encodeTransferInstructionCreated(offer, 0, SYNCHRONIZER_ID, {
    lockedHoldingIds: [...lockedHoldingIds],
    createdAt,
  });
  const signatories = [offer.instrument.admin, offer.sender];
  return {
    kind: 'transferInstruction',
    contractId: offer.offerId,
    templateId: TEMPLATE_IDS.transferInstruction,
    argument: createArgument,
    signatories,
    stakeholders: [...signatories, offer.receiver],
  } as const;
}

function sameInstrument(a: Instrument, b: Instrument): boolean {
  return a.admin === b.admin && a.id === b.id;
}

/** The time the update at `offset` was recorded at: when a contract it created was created. */
export function createdAtOf(ctx: ServerContext, offset: Offset): Date {
  return ctx.ledger.updateAt(offset)?.recordTime ?? new Date(0);
}

/** A transfer that names its inputs. */
interface NamedTransfer {
  readonly sender: string;
  readonly instrument: Instrument;
  readonly amount: Amount;
  readonly inputHoldingIds: readonly string[];
}

/** A transfer's named inputs at preparation: each found (or refused), together covering it. */
function preparedNamedHoldings(
  ctx: ServerContext,
  end: Offset,
  transfer: NamedTransfer,
  disclosures: Disclosures,
) {
  const named = [...new Set(transfer.inputHoldingIds)].map((id) =>
    namedInputHolding(ctx, id, disclosures, end),
  );
  const unfit = named.find(
    ({ contract }) =>
      contract.owner !== transfer.sender ||
      contract.lock !== null ||
      !sameInstrument(contract.instrument, transfer.instrument),
  );
  if (unfit !== undefined) {
    // The factory's own check, at interpretation: each input is an unlocked holding of the
    // sender, of the instrument transferred.
    throw new CantonApiError(
      'DAML_FAILURE',
      'InvalidGivenCurrentSystemStateOther',
      `holding ${unfit.contract.holdingId} is not an unlocked ${transfer.instrument.id} of ${transfer.sender}`,
      { error_id: 'invalid_inputs' },
    );
  }
  const covered = Amount.sum(named.map(({ contract }) => contract.amount));
  if (covered.compare(transfer.amount) < 0) {
    // The factory's own check, at interpretation: the inputs must cover the amount.
    throw new CantonApiError(
      'DAML_FAILURE',
      'InvalidGivenCurrentSystemStateOther',
      `insufficient funds: the holdings named hold ${covered}, the transfer moves ${transfer.amount}`,
      { error_id: 'insufficient_holdings' },
    );
  }
  return {
    spent: named,
    change: covered.compare(transfer.amount) > 0 ? covered.sub(transfer.amount) : null,
  };
}

/**
 * The sender's holdings a transfer of `amount` spends, as the ledger selects them: exactly those
 * the transfer names (`inputHoldingCids`), or else the largest unlocked ones until they cover it.
 * At preparation (`disclosures` given) a named holding must be found, disclosed where its owner
 * is hosted elsewhere, and cover the amount; a party hosted elsewhere has none selected for it.
 * Otherwise (an execution's check of what it signed) named holdings unfit to spend are listed
 * all the same: the ledger refuses them at execution.
 */
function spentHoldings(
  ctx: ServerContext,
  end: Offset,
  transfer: NamedTransfer,
  disclosures?: Disclosures,
) {
  const { sender, instrument, amount, inputHoldingIds } = transfer;
  if (inputHoldingIds.length > 0 && disclosures !== undefined) {
    return preparedNamedHoldings(ctx, end, transfer, disclosures);
  }
  const hidden = disclosures !== undefined && !ctx.hosting.isHostedHere(sender);
  const active = hidden ? [] : ctx.history.activeAt(end).holdings;
  if (inputHoldingIds.length > 0) {
    const named = inputHoldingIds.flatMap((id) => {
      const found = active.find(({ contract }) => contract.holdingId === id);
      return found === undefined ? [] : [found];
    });
    const covered = Amount.sum(named.map(({ contract }) => contract.amount));
    return { spent: named, change: covered.compare(amount) > 0 ? covered.sub(amount) : null };
  }
  const spendable = active
    .filter(
      ({ contract }) =>
        contract.owner === sender &&
        contract.lock === null &&
        sameInstrument(contract.instrument, instrument),
    )
    .sort((a, b) => b.contract.amount.compare(a.contract.amount));
  const spent: typeof spendable = [];
  let covered = Amount.ZERO;
  for (const active of spendable.slice(0, LEG_INPUT_HOLDINGS_MAX)) {
    if (covered.compare(amount) >= 0) break;
    spent.push(active);
    covered = covered.add(active.contract.amount);
  }
  return { spent, change: covered.compare(amount) > 0 ? covered.sub(amount) : null };
}

export function inputHolding(
  ctx: ServerContext,
  active: { contract: Holding; createdAt: Offset },
): InputContract {
  const { contract } = active;
  return {
    ...holdingContract(contract, contract.holdingId),
    createdAt: createdAtOf(ctx, active.createdAt),
  };
}

type TransferCommand = Extract<LedgerCommand, { kind: 'transfer' }>;

/** What a transfer reads and creates (see the module's note). */
async function transferLeg(
  ctx: ServerContext,
  command: TransferCommand,
  end: Offset,
  disclosures?: Disclosures,
) {
  const { sender, receiver, instrument, amount, executeBefore, meta } = command;
  const factory: InputContract = {
    kind: 'transferFactory',
    contractId: command.factoryId,
    templateId: TEMPLATE_IDS.transferFactory,
    argument: { admin: instrument.admin },
    signatories: [instrument.admin],
    stakeholders: [instrument.admin],
    createdAt: await genesisTime(ctx.ledger),
  };
  const { spent, change } = spentHoldings(ctx, end, command, disclosures);
  const direct = sender !== receiver && (await ctx.ledger.preapproves(receiver, instrument));
  const offer = { offerId: '', sender, receiver, instrument, amount, meta, executeBefore };
  const lock = {
    offerId: null,
    expiresAt: executeBefore,
    context: `transfer offer to ${receiver}`,
  };
  const received = direct
    ? [holdingContract({ owner: receiver, instrument, amount, lock: null })]
    : [
        holdingContract({ owner: sender, instrument, amount, lock }),
        instructionContract(offer, [], await ctx.ledger.now()),
      ];
  const changed =
    change === null
      ? []
      : [holdingContract({ owner: sender, instrument, amount: change, lock: null })];
  return {
    inputs: [factory, ...spent.map((active) => inputHolding(ctx, active))],
    creates: [...received, ...changed],
  };
}

/** What a choice on a pending instruction reads and creates. */
function instructionLeg(
  ctx: ServerContext,
  command: LedgerCommand,
  offer: TransferOffer,
  end: Offset,
) {
  const instruction = ctx.history.contractUpTo(offer.offerId, end);
  const locked = ctx.history.lockedHoldingsOf(offer.offerId).flatMap((id) => {
    const found = ctx.history.contractUpTo(id, end);
    return found?.record.kind === 'holding' && found.archivedAt === null
      ? [inputHolding(ctx, found.record)]
      : [];
  });
  const createdAt = createdAtOf(ctx, instruction?.record.createdAt ?? 0);
  const owner = command.kind === 'accept' ? offer.receiver : offer.sender;
  const { instrument, amount } = offer;
  return {
    inputs: [
      {
        ...instructionContract(
          offer,
          locked.map((h) => h.contractId),
          createdAt,
        ),
        createdAt,
      },
      ...locked,
    ],
    creates: [holdingContract({ owner, instrument, amount, lock: null })],
  };
}

const instructionNotFound = (offerId: string) =>
  new CantonApiError(
    'CONTRACT_NOT_FOUND',
    'InvalidGivenCurrentSystemStateResourceMissing',
    `no pending transfer instruction ${offerId}`,
    { contract_id: offerId },
  );

/**
 * A command of a prepare request as the leg it prepares, as of the ledger end; `disclosures`
 * (the request's, at preparation) decide which named contracts the participant can read.
 */
export async function planLeg(
  ctx: ServerContext,
  exercise: Json,
  command: LedgerCommand,
  disclosures?: Disclosures,
): Promise<PreparedLeg> {
  const end = await ctx.ledger.ledgerEnd();
  if (command.kind === 'transfer') {
    const planned = await transferLeg(ctx, command, end, disclosures);
    return { exercise, command, actor: command.sender, instruction: null, ...planned };
  }
  const offer = ctx.history.pendingInstruction(command.offerId, end);
  if (offer === undefined) throw instructionNotFound(command.offerId);
  const actor = command.kind === 'withdraw' ? offer.sender : offer.receiver;
  return {
    exercise,
    command,
    actor,
    instruction: offer,
    ...instructionLeg(ctx, command, offer, end),
  };
}
