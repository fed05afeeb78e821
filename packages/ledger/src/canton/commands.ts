/**
 * The commands the adapter submits, built as pure data: `TransferFactory_Transfer` with its
 * inputs, the transfer instruction's accept / reject / withdraw, and the `JsCommands` envelope;
 * and what a committed transaction says about the outcome.
 */
import { Amount, chooseFreeHoldings, type Instrument, sameInstrument } from '@poolparty/core';
import {
  type Holding,
  LedgerError,
  type LedgerUpdate,
  type Meta,
  type TransferOutcome,
} from '../port.js';
import {
  type ChoiceContext,
  disclosedContractsOf,
  type InstructionChoice,
  type TransferFactoryWithChoiceContext,
} from './registry.js';
import {
  type Command,
  type DisclosedContract,
  damlDecimal,
  damlTime,
  type JsCommands,
  TRANSFER_FACTORY_INTERFACE_ID,
  TRANSFER_FACTORY_TRANSFER_CHOICE,
  TRANSFER_INSTRUCTION_CHOICES,
  TRANSFER_INSTRUCTION_INTERFACE_ID,
} from './wire/index.js';

/** Most holdings one transfer spends; a wallet with more merges over several transfers. */
export const INPUT_HOLDINGS_MAX = 100;

/** Token Standard `Metadata` and `ChoiceContext` are records of one text map, `values`. */
const EMPTY_VALUES = { values: {} } as const;

/**
 * The inputs of a transfer: the sender's unlocked holdings of the instrument, largest first, up
 * to `INPUT_HOLDINGS_MAX`. All of them, not just enough for the amount: an instrument may charge
 * fees on top (Amulet burns them from the inputs), and the registry returns the rest as change.
 * The caller compares `total` with the amount.
 */
export function selectInputHoldings(
  holdings: readonly Holding[],
  sender: string,
  instrument: Instrument,
): { readonly holdingIds: readonly string[]; readonly total: Amount } {
  const spendable = spendableOf(holdings, sender, instrument).slice(0, INPUT_HOLDINGS_MAX);
  const total = spendable.reduce((sum, h) => sum.add(h.amount), Amount.ZERO);
  return { holdingIds: spendable.map((h) => h.holdingId), total };
}

/** The sender's unlocked holdings of the instrument, largest first. */
function spendableOf(holdings: readonly Holding[], sender: string, instrument: Instrument) {
  return holdings
    .filter(
      (h) => h.owner === sender && h.lock === null && sameInstrument(h.instrument, instrument),
    )
    .sort((a, b) => b.amount.compare(a.amount));
}

/**
 * A transfer's inputs are chosen to cover this many times its amount: the sender pays the
 * instrument's fees from its inputs beyond the amount (Canton Coin burns a small fraction), and
 * the rest stay free for the sender's other transfers to name at the same time.
 */
export const INPUT_COVER_FACTOR = 2;

/**
 * The inputs of a transfer of `amount`: the sender's unlocked holdings of the instrument that no
 * other transfer of this process has named (`taken`), largest first, until they cover
 * `INPUT_COVER_FACTOR` times the amount (or all of them, up to `INPUT_HOLDINGS_MAX`): core's
 * `chooseFreeHoldings`, which with the command id picks one of several holdings that each cover
 * it alone, so transfers sent by other processes seldom name the same. Fewer inputs than all
 * leave holdings for a concurrent transfer of the same sender: transfers naming disjoint holdings
 * commit side by side. The caller compares `total` with the amount.
 */
export function selectTransferInputs(
  holdings: readonly Holding[],
  transfer: {
    readonly sender: string;
    readonly instrument: Instrument;
    readonly amount: Amount;
    /** Spreads transfers over the holdings that each cover them alone (its command id). */
    readonly commandId?: string;
  },
  taken: (holdingId: string) => boolean,
): { readonly holdingIds: readonly string[]; readonly total: Amount } {
  const { sender, instrument, amount } = transfer;
  const cover = amount.mulDiv(BigInt(INPUT_COVER_FACTOR), 1n, 'down');
  const spendable = spendableOf(holdings, sender, instrument);
  return chooseFreeHoldings(spendable, taken, cover, INPUT_HOLDINGS_MAX, transfer.commandId);
}

export interface TransferRequest {
  readonly sender: string;
  readonly receiver: string;
  readonly instrument: Instrument;
  readonly amount: Amount;
  readonly meta: Meta;
  readonly requestedAt: Date;
  readonly executeBefore: Date;
  readonly inputHoldingIds: readonly string[];
}

/**
 * `TransferFactory_Transfer`'s argument in the JSON API's Daml encoding (numerics as strings,
 * times as ISO text, text maps as objects). Sent to the registry with an empty context first;
 * the registry's context then goes into `extraArgs.context` (`withChoiceContext`).
 */
export function transferChoiceArgument(request: TransferRequest): Record<string, unknown> {
  const { instrument } = request;
  return {
    expectedAdmin: instrument.admin,
    transfer: {
      sender: request.sender,
      receiver: request.receiver,
      amount: damlDecimal(request.amount),
      instrumentId: { admin: instrument.admin, id: instrument.id },
      requestedAt: damlTime(request.requestedAt),
      executeBefore: damlTime(request.executeBefore),
      inputHoldingCids: [...request.inputHoldingIds],
      meta: { values: { ...request.meta } },
    },
    extraArgs: { context: EMPTY_VALUES, meta: EMPTY_VALUES },
  };
}

export function withChoiceContext(
  choiceArgument: Readonly<Record<string, unknown>>,
  context: ChoiceContext,
): Record<string, unknown> {
  return {
    ...choiceArgument,
    extraArgs: { context: context.choiceContextData, meta: EMPTY_VALUES },
  };
}

/**
 * The `TransferFactory_Transfer` exercise on the factory the registry answered, with its choice
 * context, and the contracts the registry disclosed for it.
 */
export function factoryTransfer(
  factory: TransferFactoryWithChoiceContext,
  choiceArgument: Readonly<Record<string, unknown>>,
): { readonly command: Command; readonly disclosedContracts: DisclosedContract[] } {
  return {
    command: transferCommand(
      factory.factoryId,
      withChoiceContext(choiceArgument, factory.choiceContext),
    ),
    disclosedContracts: disclosedContractsOf(factory.choiceContext),
  };
}

function exerciseCommand(
  interfaceId: string,
  contractId: string,
  choice: string,
  choiceArgument: unknown,
): Command {
  return { ExerciseCommand: { templateId: interfaceId, contractId, choice, choiceArgument } };
}

export function transferCommand(factoryId: string, choiceArgument: unknown): Command {
  return exerciseCommand(
    TRANSFER_FACTORY_INTERFACE_ID,
    factoryId,
    TRANSFER_FACTORY_TRANSFER_CHOICE,
    choiceArgument,
  );
}

export function instructionCommand(
  offerId: string,
  choice: InstructionChoice,
  context: ChoiceContext,
): Command {
  return exerciseCommand(
    TRANSFER_INSTRUCTION_INTERFACE_ID,
    offerId,
    TRANSFER_INSTRUCTION_CHOICES[choice],
    {
      extraArgs: { context: context.choiceContextData, meta: EMPTY_VALUES },
    },
  );
}

export function jsCommands(input: {
  readonly command: Command;
  readonly commandId: string;
  readonly actAs: string;
  readonly userId: string;
  readonly disclosedContracts: readonly DisclosedContract[];
}): JsCommands {
  return {
    commands: [input.command],
    commandId: input.commandId,
    actAs: [input.actAs],
    userId: input.userId,
    disclosedContracts: [...input.disclosedContracts],
  };
}

/**
 * How a committed `TransferFactory_Transfer` settled: an offer when it created a transfer
 * instruction (its contract id is the offer id), else directly.
 */
export function transferOutcomeOf(update: LedgerUpdate): TransferOutcome {
  const { updateId, offset } = update;
  for (const event of update.events) {
    if (event.kind === 'offer_created') {
      return { kind: 'offer', updateId, offset, offerId: event.offerId };
    }
  }
  if (update.events.some((event) => event.kind === 'transfer')) {
    return { kind: 'direct', updateId, offset };
  }
  throw new LedgerError(
    'timeout',
    `update ${updateId} at offset ${offset} shows neither a transfer nor an offer; see lookupCommand`,
  );
}
