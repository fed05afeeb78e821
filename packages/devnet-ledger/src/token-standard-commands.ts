/**
 * Token Standard commands as the local ledger's submissions: an `ExerciseCommand` of
 * `TransferFactory_Transfer` on a transfer factory, or of `TransferInstruction_Accept`,
 * `_Reject` or `_Withdraw` on a pending instruction (whose contract id is the offer id); and, for
 * a submission (not a prepared one), the `CreateCommand` of a pre-approval proposal
 * (create-commands.ts).
 *
 * Decisions:
 * - one command per submission (what the Token Standard flows send); more is INVALID_ARGUMENT;
 * - the template may be named by the interface or by the devnet template, by package id or
 *   `#name`: only the qualified name is compared;
 * - `inputHoldingCids`, when not empty, are exactly the holdings the transfer archives (the
 *   Token Standard's "MUST archive all of these holdings"); empty, the ledger picks them;
 * - a transfer whose receiver is its sender is a self-transfer (the wallet SDK's merge): run, as
 *   Splice runs it, rather than refused;
 * - the acting party of an instruction choice is the first `actAs` party.
 *
 * Deduplication as Canton does it: a command id that committed within the deduplication period
 * is refused with DUPLICATE_COMMAND naming the completion offset, and one still being submitted
 * with SUBMISSION_ALREADY_IN_FLIGHT. (The local ledger itself would return the first outcome
 * again; a participant does not.)
 */
import type { Amount } from '@poolparty/core';
import {
  type CommandResult,
  DEFAULT_DEDUPLICATION_PERIOD_MS,
  INPUT_HOLDINGS_MAX,
  LedgerError,
  type LocalLedger,
  type Meta,
  type TransferOffer,
} from '@poolparty/ledger';
import { type AllocationLedgerCommand, runAllocationCommand } from './allocation-commands.js';
import { CantonApiError, invalidArgument, permissionDenied } from './canton-errors.js';
import {
  checkProposal,
  createNotPrepared,
  type PreapprovalProposal,
  parseCreateCommand,
} from './create-commands.js';
import { DEVNET_PACKAGE_NAMES } from './package-routes.js';
import {
  arrayAt,
  type Json,
  objectAt,
  offsetAt,
  optionalObjectAt,
  stringAt,
} from './request-body.js';
import { amuletOf } from './scan-proxy.js';
import { validatorUserInfo } from './validator-user.js';
import {
  parseDamlDecimal,
  parseDamlTime,
  qualifiedName,
  TEMPLATE_IDS,
  TRANSFER_FACTORY_INTERFACE_ID,
  TRANSFER_FACTORY_TRANSFER_CHOICE,
  TRANSFER_INSTRUCTION_CHOICES,
  TRANSFER_INSTRUCTION_INTERFACE_ID,
  transferFactoryContractId,
} from './wire.js';

export type LedgerCommand =
  // The transfer's terms are the offer's it makes when the receiver pre-approved nothing.
  | (Omit<TransferOffer, 'offerId'> & {
      readonly kind: 'transfer';
      readonly factoryId: string;
      /** `inputHoldingCids`: the holdings to archive; empty, the ledger picks. */
      readonly inputHoldingIds: readonly string[];
    })
  | { readonly kind: 'accept' | 'reject' | 'withdraw'; readonly offerId: string };

/** A `TransferFactory_Transfer` as the ledger command it stands for. */
export type TransferCommand = Extract<LedgerCommand, { kind: 'transfer' }>;

/** What a submission (not a prepared one) may run: the Token Standard's exercises, and creates. */
export type SubmittedCommand = LedgerCommand | PreapprovalProposal;

/** A transfer offer's choice → what it does: the ledger's choices read backwards. */
const INSTRUCTION_CHOICES: ReadonlyMap<string, keyof typeof TRANSFER_INSTRUCTION_CHOICES> = new Map(
  (['accept', 'reject', 'withdraw'] as const).map((action) => [
    TRANSFER_INSTRUCTION_CHOICES[action],
    action,
  ]),
);

const FACTORY_NAMES = new Set(
  [TRANSFER_FACTORY_INTERFACE_ID, TEMPLATE_IDS.transferFactory].map(qualifiedName),
);
const INSTRUCTION_NAMES = new Set(
  [TRANSFER_INSTRUCTION_INTERFACE_ID, TEMPLATE_IDS.transferInstruction].map(qualifiedName),
);

export function metaOf(value: unknown, path: string): Meta {
  const meta = optionalObjectAt(value, path);
  const values = optionalObjectAt(meta?.values, `${path}.values`) ?? {};
  const result: Record<string, string> = {};
  for (const [key, text] of Object.entries(values)) {
    // A metadata value is Daml `Text`, which may be empty (the SDK sends an empty reason).
    if (typeof text !== 'string') throw invalidArgument(`${path}.${key} must be text`);
    result[key] = text;
  }
  return result;
}

export function decimalAt(value: unknown, path: string): Amount {
  try {
    return parseDamlDecimal(stringAt(value, path));
  } catch {
    throw invalidArgument(`${path} must be a Daml decimal`, { field: path });
  }
}

export function timeAt(value: unknown, path: string): Date {
  try {
    return parseDamlTime(stringAt(value, path));
  } catch {
    throw invalidArgument(`${path} must be a timestamp`, { field: path });
  }
}

/** The one command of a `commands` list, still wrapped (`{ExerciseCommand: …}`, …). */
function onlyCommand(commands: unknown): Json {
  const list = arrayAt(commands, 'commands');
  if (list.length !== 1) {
    throw invalidArgument(`exactly one command per submission, not ${list.length}`);
  }
  const wrapper = objectAt(list[0], 'commands[0]');
  const kind = Object.keys(wrapper)[0];
  if (kind !== 'ExerciseCommand' && kind !== 'CreateCommand') {
    throw invalidArgument(
      `commands[0] is a ${kind ?? 'command of no kind'}: the devnet ledger runs ExerciseCommand and CreateCommand`,
    );
  }
  return wrapper;
}

/** The one command a submission runs: an ExerciseCommand, or a CreateCommand of a proposal. */
export function parseSubmittedCommand(commands: unknown): SubmittedCommand {
  const wrapper = onlyCommand(commands);
  if (wrapper.CreateCommand === undefined) return parseLedgerCommand(commands);
  return parseCreateCommand(wrapper.CreateCommand, DEVNET_PACKAGE_NAMES);
}

/** The one ExerciseCommand of a `commands` list, as the ledger command it stands for. */
export function parseLedgerCommand(commands: unknown): LedgerCommand {
  const wrapper = onlyCommand(commands);
  if (wrapper.CreateCommand !== undefined) {
    throw createNotPrepared((wrapper.CreateCommand as { templateId?: unknown }).templateId);
  }
  const exercise = objectAt(wrapper.ExerciseCommand, 'commands[0].ExerciseCommand');
  const templateId = stringAt(exercise.templateId, 'ExerciseCommand.templateId');
  const contractId = stringAt(exercise.contractId, 'ExerciseCommand.contractId');
  const choice = stringAt(exercise.choice, 'ExerciseCommand.choice');
  const argument = objectAt(exercise.choiceArgument, 'ExerciseCommand.choiceArgument');
  const entity = qualifiedName(templateId);
  if (choice === TRANSFER_FACTORY_TRANSFER_CHOICE && FACTORY_NAMES.has(entity)) {
    return transferCommand(contractId, argument);
  }
  const action = INSTRUCTION_CHOICES.get(choice);
  if (action !== undefined && INSTRUCTION_NAMES.has(entity)) {
    return { kind: action, offerId: contractId };
  }
  throw invalidArgument(`choice ${choice} of ${templateId} is not one this participant runs`, {
    template_id: templateId,
    choice,
  });
}

function transferCommand(factoryId: string, argument: Json): LedgerCommand {
  const transfer = objectAt(argument.transfer, 'choiceArgument.transfer');
  const instrumentId = objectAt(transfer.instrumentId, 'transfer.instrumentId');
  const instrument = {
    admin: stringAt(instrumentId.admin, 'transfer.instrumentId.admin'),
    id: stringAt(instrumentId.id, 'transfer.instrumentId.id'),
  };
  if (argument.expectedAdmin !== undefined && argument.expectedAdmin !== instrument.admin) {
    throw invalidArgument("expectedAdmin differs from the instrument's admin");
  }
  return {
    kind: 'transfer',
    factoryId,
    sender: stringAt(transfer.sender, 'transfer.sender'),
    receiver: stringAt(transfer.receiver, 'transfer.receiver'),
    instrument,
    amount: decimalAt(transfer.amount, 'transfer.amount'),
    meta: metaOf(transfer.meta, 'transfer.meta'),
    executeBefore: timeAt(transfer.executeBefore, 'transfer.executeBefore'),
    inputHoldingIds: holdingIdsAt(transfer.inputHoldingCids),
  };
}

/** `transfer.inputHoldingCids`: contract ids, at most as many as one transfer may archive. */
function holdingIdsAt(value: unknown): string[] {
  const path = 'transfer.inputHoldingCids';
  const ids = arrayAt(value ?? [], path).map((id, i) => stringAt(id, `${path}[${i}]`));
  if (ids.length > INPUT_HOLDINGS_MAX) {
    throw invalidArgument(`${path} names ${ids.length} holdings, at most ${INPUT_HOLDINGS_MAX}`, {
      field: path,
    });
  }
  return ids;
}

/** Checks that do not need the ledger's state: who may act, and on which factory. */
export function checkActors(command: SubmittedCommand, actAs: readonly string[]): void {
  if (actAs.length === 0) throw invalidArgument('actAs names no party');
  if (command.kind === 'preapprove' && !actAs.includes(command.receiver)) {
    throw new CantonApiError(
      'DAML_AUTHORIZATION_ERROR',
      'InvalidIndependentOfSystemState',
      `the proposal's receiver ${command.receiver} is not among the submitting parties`,
    );
  }
  if (command.kind !== 'transfer') return;
  if (!actAs.includes(command.sender)) {
    throw new CantonApiError(
      'DAML_AUTHORIZATION_ERROR',
      'InvalidIndependentOfSystemState',
      `the transfer's sender ${command.sender} is not among the submitting parties`,
    );
  }
  if (command.factoryId !== transferFactoryContractId(command.instrument.admin)) {
    throw new CantonApiError(
      'CONTRACT_NOT_FOUND',
      'InvalidGivenCurrentSystemStateResourceMissing',
      `no transfer factory ${command.factoryId} for instruments of ${command.instrument.admin}`,
      { contract_id: command.factoryId },
    );
  }
}

/** The deduplication period a submission asks for (ms), or an offset after which to look. */
export type Deduplication = { readonly ms: number } | { readonly afterOffset: number };

export function parseDeduplication(value: unknown): Deduplication {
  const period = optionalObjectAt(value, 'deduplicationPeriod');
  if (period?.DeduplicationDuration !== undefined) {
    const duration = objectAt(
      objectAt(period.DeduplicationDuration, 'DeduplicationDuration').value,
      'DeduplicationDuration.value',
    );
    const seconds = offsetAt(duration.seconds ?? 0, 'DeduplicationDuration.value.seconds');
    const nanos = offsetAt(duration.nanos ?? 0, 'DeduplicationDuration.value.nanos');
    return { ms: seconds * 1000 + Math.floor(nanos / 1_000_000) };
  }
  if (period?.DeduplicationOffset !== undefined) {
    const offset = objectAt(period.DeduplicationOffset, 'DeduplicationOffset').value;
    return { afterOffset: offsetAt(offset, 'DeduplicationOffset.value') };
  }
  return { ms: DEFAULT_DEDUPLICATION_PERIOD_MS };
}

export interface Submission {
  readonly commandId: string;
  readonly actAs: readonly string[];
  /** A transfer, an instruction choice or a creation, or an allocation choice (allocation-commands.ts). */
  readonly command: SubmittedCommand | AllocationLedgerCommand;
  readonly deduplication: Deduplication;
  /** The user submitting: completions are reported to it. */
  readonly userId: string;
  /** Canton's submission id, reported in the completion. */
  readonly submissionId?: string;
}

/** Who submitted a committed command, for its completion. */
export interface CommandOrigin {
  readonly userId: string;
  readonly submissionId: string | undefined;
  /** The first submitting party: whose completion it is when the update names no one. */
  readonly party: string | undefined;
}

/** Runs submissions one command id at a time and refuses duplicates the way Canton does. */
export class CommandRunner {
  private readonly inFlight = new Set<string>();
  /** Kept for the life of the server; commands from elsewhere (the devnet routes) have none. */
  private readonly origins = new Map<string, CommandOrigin>();

  constructor(private readonly ledger: LocalLedger) {}

  originOf(commandId: string): CommandOrigin | undefined {
    return this.origins.get(commandId);
  }

  submit(submission: Submission): Promise<CommandResult> {
    return this.once(submission, () => this.run(submission));
  }

  /**
   * Transfers committed together as one update (a prepared transaction of several transfer legs):
   * deduplicated and reported as one command, under the transaction's command id.
   */
  submitTransfers(
    submission: Omit<Submission, 'command'> & { readonly transfers: readonly TransferCommand[] },
  ): Promise<CommandResult> {
    const { commandId, transfers } = submission;
    const command = transfers[0];
    if (command === undefined)
      throw invalidArgument('a transaction of transfers holds one or more');
    for (const transfer of transfers) checkActors(transfer, submission.actAs);
    return this.once({ ...submission, command }, () =>
      this.ledger.submitTransfers({
        commandId,
        transfers: transfers.map((transfer) => ({
          sender: transfer.sender,
          receiver: transfer.receiver,
          instrument: transfer.instrument,
          amount: transfer.amount,
          meta: transfer.meta,
          executeBefore: transfer.executeBefore,
          inputHoldingIds: transfer.inputHoldingIds,
        })),
      }),
    );
  }

  /** Runs a submission's command id once at a time, refusing one that already committed. */
  private async once(
    submission: Submission,
    run: () => Promise<CommandResult>,
  ): Promise<CommandResult> {
    const { commandId } = submission;
    if (this.inFlight.has(commandId)) {
      throw new CantonApiError(
        'SUBMISSION_ALREADY_IN_FLIGHT',
        'ContentionOnSharedResources',
        'The submission with the same command id is already being processed',
        { command_id: commandId },
      );
    }
    this.inFlight.add(commandId);
    try {
      await this.refuseDuplicate(submission);
      const result = await run().catch((error: unknown) => {
        // A timeout may hide a commit: its completion still belongs to this submission.
        if (error instanceof LedgerError && error.code === 'timeout') this.remember(submission);
        throw error;
      });
      this.remember(submission);
      return result;
    } finally {
      this.inFlight.delete(commandId);
    }
  }

  private remember({ commandId, userId, submissionId, actAs }: Submission): void {
    this.origins.set(commandId, { userId, submissionId, party: actAs[0] });
  }

  /**
   * Refuses a command id that committed within the deduplication period. Executing a prepared
   * transaction asks before its own checks, so a transaction sent again is refused as a duplicate.
   */
  async refuseDuplicate({
    commandId,
    deduplication,
  }: Pick<Submission, 'commandId' | 'deduplication'>): Promise<void> {
    const prior = await this.ledger.lookupCommand(commandId);
    if (prior === null) return;
    const duplicate =
      'ms' in deduplication
        ? (await this.ledger.now()).getTime() - prior.recordTime.getTime() < deduplication.ms
        : prior.offset > deduplication.afterOffset;
    if (!duplicate) return;
    throw new CantonApiError(
      'DUPLICATE_COMMAND',
      'InvalidGivenCurrentSystemStateResourceExists',
      'A command with the given command id has already been successfully processed',
      {
        command_id: commandId,
        completion_offset: String(prior.offset),
        existing_update_id: prior.updateId,
      },
      true,
    );
  }

  private run({ commandId, actAs, command }: Submission): Promise<CommandResult> {
    if (isAllocationCommand(command)) {
      return runAllocationCommand(this.ledger, commandId, actAs, command);
    }
    checkActors(command, actAs);
    const actor = actAs[0] as string;
    switch (command.kind) {
      case 'transfer':
        return this.ledger.submitTransfer({
          commandId,
          sender: command.sender,
          receiver: command.receiver,
          instrument: command.instrument,
          amount: command.amount,
          meta: command.meta,
          executeBefore: command.executeBefore,
          inputHoldingIds: command.inputHoldingIds,
        });
      case 'accept':
        return this.ledger.acceptOffer({ commandId, offerId: command.offerId, actor });
      case 'reject':
        return this.ledger.rejectOffer({ commandId, offerId: command.offerId, actor });
      case 'withdraw':
        return this.ledger.withdrawOffer({ commandId, offerId: command.offerId, actor });
      case 'preapprove':
        return this.preapprove(commandId, command);
    }
  }

  /** The proposal accepted at once by the devnet's validator: Amulet pre-approved. */
  private async preapprove(commandId: string, proposal: PreapprovalProposal) {
    const { party_id: operator } = await validatorUserInfo(this.ledger);
    const amulet = await amuletOf(this.ledger);
    if (amulet === null) {
      throw invalidArgument('the devnet has no Amulet yet: there is nothing to pre-approve');
    }
    checkProposal(proposal, operator, amulet.admin);
    return this.ledger.submitPreapproval({
      commandId,
      receiver: proposal.receiver,
      instrument: amulet,
    });
  }
}

const ALLOCATION_KINDS: ReadonlySet<string> = new Set<AllocationLedgerCommand['kind']>([
  'allocate',
  'executeSettlement',
  'cancelAllocation',
  'withdrawAllocation',
]);

function isAllocationCommand(
  command: SubmittedCommand | AllocationLedgerCommand,
): command is AllocationLedgerCommand {
  return ALLOCATION_KINDS.has(command.kind);
}

/** `actAs` of a request: at least one party. */
export function actAsOf(value: unknown): string[] {
  const actAs = arrayAt(value, 'actAs').map((p, i) => stringAt(p, `actAs[${i}]`));
  if (actAs.length === 0) throw permissionDenied('actAs names no party');
  return actAs;
}
