/**
 * Token Standard allocation commands as the local ledger's submissions: `AllocationFactory_Allocate`
 * on an admin's allocation factory, and `Allocation_ExecuteTransfer`, `Allocation_Cancel` or
 * `Allocation_Withdraw` on an allocation (whose contract id is the allocation id).
 *
 * Decisions:
 * - a settlement is executed by submitting one `Allocation_ExecuteTransfer` per leg in one
 *   submission (what a settlement app's choice does on a participant, in one transaction); the
 *   ledger runs them as one settlement, every leg or none. Every other allocation choice is one
 *   command per submission, and allocation choices are never mixed with other commands;
 * - the template may be named by the interface or by the devnet template, by package id or
 *   `#name`: only the qualified name is compared;
 * - each choice's `extraArgs.context` must be the one the registry issued for it
 *   (allocation-contexts.ts);
 * - `inputHoldingCids` of an allocation are not honoured: the ledger picks the sender's holdings.
 */
import type { Instrument } from '@poolparty/core';
import {
  type CommandResult,
  type LocalLedger,
  SETTLEMENT_LEGS_MAX,
  type SettlementInfo,
  type TransferLeg,
} from '@poolparty/ledger';
import { checkChoiceContext } from './allocation-contexts.js';
import { CantonApiError, invalidArgument } from './canton-errors.js';
import { arrayAt, type Json, objectAt, optionalObjectAt, stringAt } from './request-body.js';
import { decimalAt, metaOf, timeAt } from './token-standard-commands.js';
import {
  ALLOCATION_CANCEL_CHOICE,
  ALLOCATION_EXECUTE_TRANSFER_CHOICE,
  ALLOCATION_FACTORY_ALLOCATE_CHOICE,
  ALLOCATION_FACTORY_INTERFACE_ID,
  ALLOCATION_INTERFACE_ID,
  ALLOCATION_WITHDRAW_CHOICE,
  qualifiedName,
  TEMPLATE_IDS,
  transferFactoryContractId,
} from './wire.js';

export type AllocationLedgerCommand =
  | {
      readonly kind: 'allocate';
      readonly factoryId: string;
      readonly settlement: SettlementInfo;
      readonly transferLegId: string;
      readonly leg: TransferLeg;
    }
  | { readonly kind: 'executeSettlement'; readonly allocationIds: readonly string[] }
  | { readonly kind: 'cancelAllocation' | 'withdrawAllocation'; readonly allocationId: string };

const ALLOCATION_CHOICES: ReadonlySet<string> = new Set([
  ALLOCATION_FACTORY_ALLOCATE_CHOICE,
  ALLOCATION_EXECUTE_TRANSFER_CHOICE,
  ALLOCATION_CANCEL_CHOICE,
  ALLOCATION_WITHDRAW_CHOICE,
]);
const FACTORY_NAMES = new Set(
  [ALLOCATION_FACTORY_INTERFACE_ID, TEMPLATE_IDS.transferFactory].map(qualifiedName),
);
const ALLOCATION_NAMES = new Set(
  [ALLOCATION_INTERFACE_ID, TEMPLATE_IDS.allocation].map(qualifiedName),
);

interface Exercise {
  readonly templateId: string;
  readonly contractId: string;
  readonly choice: string;
  readonly argument: Json;
}

/** The command's exercise when it is one of an allocation choice; null for any other command. */
function allocationExercise(command: unknown, index: number): Exercise | null {
  const wrapper = optionalObjectAt(command, `commands[${index}]`);
  const exercise = optionalObjectAt(wrapper?.ExerciseCommand, `commands[${index}].ExerciseCommand`);
  if (exercise === undefined || !ALLOCATION_CHOICES.has(exercise.choice as string)) return null;
  const path = `commands[${index}].ExerciseCommand`;
  return {
    templateId: stringAt(exercise.templateId, `${path}.templateId`),
    contractId: stringAt(exercise.contractId, `${path}.contractId`),
    choice: exercise.choice as string,
    argument: objectAt(exercise.choiceArgument, `${path}.choiceArgument`),
  };
}

function requireTemplate(exercise: Exercise, names: ReadonlySet<string | null>): void {
  if (names.has(qualifiedName(exercise.templateId))) return;
  throw invalidArgument(
    `choice ${exercise.choice} of ${exercise.templateId} is not one this participant runs`,
    {
      template_id: exercise.templateId,
      choice: exercise.choice,
    },
  );
}

/**
 * The allocation command a `commands` list stands for; null when it holds no allocation choice
 * (then it is another kind of command, or none this participant runs).
 */
export function parseAllocationCommand(commands: unknown): AllocationLedgerCommand | null {
  const list = arrayAt(commands, 'commands');
  const exercises = list.map(allocationExercise);
  const [first] = exercises;
  if (!exercises.some((e) => e !== null)) return null;
  if (first == null || exercises.some((e) => e === null || e.choice !== first.choice)) {
    throw invalidArgument('allocation choices go one kind per submission, with no other commands');
  }
  const executes = first.choice === ALLOCATION_EXECUTE_TRANSFER_CHOICE;
  if (list.length > (executes ? SETTLEMENT_LEGS_MAX : 1)) {
    throw invalidArgument(
      `${first.choice} takes ${executes ? `at most ${SETTLEMENT_LEGS_MAX} commands` : 'one command'} per submission, not ${list.length}`,
    );
  }
  const all = exercises as Exercise[];
  if (first.choice === ALLOCATION_FACTORY_ALLOCATE_CHOICE) {
    requireTemplate(first, FACTORY_NAMES);
    checkChoiceContext(first.argument.extraArgs, first.choice, null);
    return allocateCommand(first);
  }
  for (const exercise of all) {
    requireTemplate(exercise, ALLOCATION_NAMES);
    checkChoiceContext(exercise.argument.extraArgs, exercise.choice, exercise.contractId);
  }
  if (executes) {
    return { kind: 'executeSettlement', allocationIds: all.map((e) => e.contractId) };
  }
  const kind =
    first.choice === ALLOCATION_CANCEL_CHOICE ? 'cancelAllocation' : 'withdrawAllocation';
  return { kind, allocationId: first.contractId };
}

function instrumentAt(value: unknown, path: string): Instrument {
  const instrumentId = objectAt(value, path);
  return {
    admin: stringAt(instrumentId.admin, `${path}.admin`),
    id: stringAt(instrumentId.id, `${path}.id`),
  };
}

function allocateCommand({ contractId, argument }: Exercise): AllocationLedgerCommand {
  const specification = objectAt(argument.allocation, 'choiceArgument.allocation');
  const settlement = objectAt(specification.settlement, 'allocation.settlement');
  const ref = objectAt(settlement.settlementRef, 'settlement.settlementRef');
  const leg = objectAt(specification.transferLeg, 'allocation.transferLeg');
  const instrument = instrumentAt(leg.instrumentId, 'transferLeg.instrumentId');
  if (stringAt(argument.expectedAdmin, 'choiceArgument.expectedAdmin') !== instrument.admin) {
    throw invalidArgument("expectedAdmin differs from the instrument's admin");
  }
  return {
    kind: 'allocate',
    factoryId: contractId,
    settlement: {
      executor: stringAt(settlement.executor, 'settlement.executor'),
      settlementRef: stringAt(ref.id, 'settlement.settlementRef.id'),
      requestedAt: timeAt(settlement.requestedAt, 'settlement.requestedAt'),
      allocateBefore: timeAt(settlement.allocateBefore, 'settlement.allocateBefore'),
      settleBefore: timeAt(settlement.settleBefore, 'settlement.settleBefore'),
      meta: metaOf(settlement.meta, 'settlement.meta'),
    },
    transferLegId: stringAt(specification.transferLegId, 'allocation.transferLegId'),
    leg: {
      sender: stringAt(leg.sender, 'transferLeg.sender'),
      receiver: stringAt(leg.receiver, 'transferLeg.receiver'),
      instrument,
      amount: decimalAt(leg.amount, 'transferLeg.amount'),
      meta: metaOf(leg.meta, 'transferLeg.meta'),
    },
  };
}

/** Runs the command as `actAs`; the ledger checks each choice's controllers among them. */
export function runAllocationCommand(
  ledger: LocalLedger,
  commandId: string,
  actAs: readonly string[],
  command: AllocationLedgerCommand,
): Promise<CommandResult> {
  switch (command.kind) {
    case 'allocate': {
      const { leg, factoryId } = command;
      if (!actAs.includes(leg.sender)) {
        throw new CantonApiError(
          'DAML_AUTHORIZATION_ERROR',
          'InvalidIndependentOfSystemState',
          `the leg's sender ${leg.sender} is not among the submitting parties`,
        );
      }
      if (factoryId !== transferFactoryContractId(leg.instrument.admin)) {
        throw new CantonApiError(
          'CONTRACT_NOT_FOUND',
          'InvalidGivenCurrentSystemStateResourceMissing',
          `no allocation factory ${factoryId} for instruments of ${leg.instrument.admin}`,
          { contract_id: factoryId },
        );
      }
      const { settlement, transferLegId } = command;
      return ledger.allocate({ commandId, settlement, transferLegId, leg });
    }
    case 'executeSettlement':
      return ledger.executeSettlement({ commandId, allocationIds: command.allocationIds, actAs });
    case 'cancelAllocation':
      return ledger.cancelAllocation({ commandId, allocationId: command.allocationId, actAs });
    case 'withdrawAllocation':
      return ledger.withdrawAllocation({ commandId, allocationId: command.allocationId, actAs });
  }
}
