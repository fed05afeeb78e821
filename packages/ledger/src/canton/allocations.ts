/**
 * Token Standard allocations through a participant: `AllocationFactory_Allocate` on the
 * instrument admin's factory (from its registry, with the choice's context), and
 * `Allocation_ExecuteTransfer`, `_Cancel` and `_Withdraw` on allocations, each with the context
 * its registry issues for that choice on that allocation.
 *
 * Decisions:
 * - A settlement is one submission of one `Allocation_ExecuteTransfer` per leg, acting as the
 *   settlement's executor and every leg's sender and receiver (the choice's controllers): the
 *   transaction moves every leg or, refused, none. The user acts for the local ones by its
 *   rights; every external one whose key the service holds signs the same prepared transaction
 *   (interactive submission with one signature per external party), so a settlement between
 *   external parties is still one transaction.
 * - What the rules can refuse before anything is submitted (allocation-rules.ts: deadlines,
 *   amounts, allocations that are not one settlement, missing controllers) is refused here, from
 *   the allocations as the acting parties see them, so it provably changed nothing.
 * - A command this process committed is answered again from memory; one a participant refuses as
 *   a duplicate is answered from its first transaction.
 */
import {
  allocationControllers,
  checkRelease,
  checkSettlement,
  planAllocation,
} from '../allocation-rules.js';
import {
  type AllocateCommand,
  type AllocateOutcome,
  type Allocation,
  type AllocationCommand,
  type CommandResult,
  type Holding,
  LedgerError,
  type LedgerUpdate,
  type Offset,
  type SettlementCommand,
} from '../port.js';
import { selectInputHoldings } from './commands.js';
import { CantonRequestError, isDuplicateCommand } from './errors.js';
import { transactionFormat } from './filters.js';
import { signersOf } from './interactive-submission.js';
import type { ExternalSigner } from './options.js';
import type { ParticipantClient } from './participant.js';
import {
  type AllocationAction,
  type ChoiceContext,
  disclosedContractsOf,
  type RegistryClient,
} from './registry.js';
import {
  ALLOCATION_CANCEL_CHOICE,
  ALLOCATION_EXECUTE_TRANSFER_CHOICE,
  ALLOCATION_FACTORY_ALLOCATE_CHOICE,
  ALLOCATION_FACTORY_INTERFACE_ID,
  ALLOCATION_INTERFACE_ID,
  ALLOCATION_RESULT_COMPLETED,
  ALLOCATION_WITHDRAW_CHOICE,
  allocationSpecification,
  type Command,
  type DisclosedContract,
  damlTime,
  decodeAllocation,
  type JsTransaction,
} from './wire/index.js';

/** Commands answered from memory; older ones from the participant, as after a restart. */
const OUTCOMES_KEPT = 10_000;
const EMPTY_VALUES = { values: {} } as const;

export interface AllocationDeps {
  readonly participant: ParticipantClient;
  readonly registry: RegistryClient;
  readonly userId: string;
  readonly submitTimeoutMs: number;
  readonly externalSigners?: (partyId: string) => ExternalSigner | undefined;
  now(): Promise<Date>;
  ledgerEnd(): Promise<Offset>;
  getHoldings(partyId: string): Promise<readonly Holding[]>;
  requireParty(partyId: string): Promise<void>;
  /** The committed transaction as the port's update (its time noted). */
  decode(commandId: string, transaction: JsTransaction): Promise<LedgerUpdate>;
  /** The transaction an earlier submission of the command committed, as `party` sees it. */
  firstTransaction(commandId: string, party: string): Promise<JsTransaction | null>;
}

/** `AllocationFactory_Allocate`'s argument in the JSON API's Daml encoding. */
export function allocateChoiceArgument(
  command: AllocateCommand,
  requestedAt: Date,
  inputHoldingIds: readonly string[],
): Record<string, unknown> {
  return {
    expectedAdmin: command.leg.instrument.admin,
    allocation: allocationSpecification(command),
    requestedAt: damlTime(requestedAt),
    inputHoldingCids: [...inputHoldingIds],
    extraArgs: { context: EMPTY_VALUES, meta: EMPTY_VALUES },
  };
}

function exercise(templateId: string, contractId: string, choice: string, argument: unknown) {
  return { ExerciseCommand: { templateId, contractId, choice, choiceArgument: argument } };
}

const ACTION_CHOICES: Readonly<Record<AllocationAction, string>> = {
  'execute-transfer': ALLOCATION_EXECUTE_TRANSFER_CHOICE,
  withdraw: ALLOCATION_WITHDRAW_CHOICE,
  cancel: ALLOCATION_CANCEL_CHOICE,
};

export function allocationChoiceCommand(
  allocationId: string,
  action: AllocationAction,
  context: ChoiceContext,
): Command {
  return exercise(ALLOCATION_INTERFACE_ID, allocationId, ACTION_CHOICES[action], {
    extraArgs: { context: context.choiceContextData, meta: EMPTY_VALUES },
  });
}

/** The allocation a committed `AllocationFactory_Allocate` created (its result names it). */
export function allocationIdOf(transaction: JsTransaction): string {
  for (const event of transaction.events) {
    if (!('ExercisedEvent' in event)) continue;
    const exercised = event.ExercisedEvent;
    if (exercised.choice !== ALLOCATION_FACTORY_ALLOCATE_CHOICE) continue;
    const output = (exercised.exerciseResult as { output?: { tag?: unknown; value?: unknown } })
      ?.output;
    const cid = (output?.value as { allocationCid?: unknown } | undefined)?.allocationCid;
    if (output?.tag === ALLOCATION_RESULT_COMPLETED && typeof cid === 'string') return cid;
  }
  // Committed, but not as an allocation the port can name (a pending allocation instruction).
  throw new LedgerError(
    'timeout',
    `${transaction.updateId} shows no completed allocation; see lookupCommand`,
  );
}

function uniqueDisclosed(contexts: readonly ChoiceContext[]): DisclosedContract[] {
  const byId = new Map<string, DisclosedContract>();
  for (const context of contexts) {
    for (const disclosed of disclosedContractsOf(context)) {
      byId.set(disclosed.contractId ?? disclosed.createdEventBlob, disclosed);
    }
  }
  return [...byId.values()];
}

export class CantonAllocations {
  private readonly outcomes = new Map<string, AllocateOutcome | CommandResult>();

  constructor(private readonly deps: AllocationDeps) {}

  /** The pending allocations the party is executor, sender or receiver of. */
  async getAllocations(partyId: string): Promise<readonly Allocation[]> {
    const end = await this.deps.ledgerEnd();
    const scope = { kind: 'parties' as const, parties: [partyId] };
    const events = await this.deps.participant.activeContracts(end, scope, ALLOCATION_INTERFACE_ID);
    return events.flatMap((event) => {
      const allocation = decodeAllocation(event);
      if (allocation === null) return [];
      return allocationControllers(allocation).includes(partyId) ? [allocation] : [];
    });
  }

  async allocate(command: AllocateCommand): Promise<AllocateOutcome> {
    const prior = this.outcomes.get(command.commandId);
    if (prior !== undefined) return prior as AllocateOutcome;
    const { settlement, leg, transferLegId } = command;
    for (const party of [settlement.executor, leg.sender, leg.receiver]) {
      await this.deps.requireParty(party);
    }
    const [now, holdings] = await Promise.all([this.deps.now(), this.deps.getHoldings(leg.sender)]);
    // The rules refuse what cannot be funded; the inputs are all unlocked holdings, as for a
    // transfer: an instrument may charge fees on top, and the registry returns the rest as change.
    planAllocation({ atMs: now.getTime(), settlement, transferLegId, leg }, holdings);
    const inputs = selectInputHoldings(holdings, leg.sender, leg.instrument);
    const argument = allocateChoiceArgument(command, now, inputs.holdingIds);
    const factory = await this.deps.registry.allocationFactory(leg.instrument.admin, argument);
    const withContext = {
      ...argument,
      extraArgs: { context: factory.choiceContext.choiceContextData, meta: EMPTY_VALUES },
    };
    const { transaction, update } = await this.submit(command.commandId, [leg.sender], {
      commands: [
        exercise(
          ALLOCATION_FACTORY_INTERFACE_ID,
          factory.factoryId,
          ALLOCATION_FACTORY_ALLOCATE_CHOICE,
          withContext,
        ),
      ],
      disclosed: disclosedContractsOf(factory.choiceContext),
    });
    const outcome = { ...resultOf(update), allocationId: allocationIdOf(transaction) };
    return this.remember(command.commandId, outcome);
  }

  async executeSettlement(command: SettlementCommand): Promise<CommandResult> {
    const prior = this.outcomes.get(command.commandId);
    if (prior !== undefined) return prior;
    const allocations = await this.pending(command.commandId, command.allocationIds, command.actAs);
    if (!Array.isArray(allocations)) return allocations;
    checkSettlement(allocations, command.actAs, (await this.deps.now()).getTime());
    const contexts = await Promise.all(
      allocations.map((a) =>
        this.deps.registry.allocationContext(
          a.leg.instrument.admin,
          a.allocationId,
          'execute-transfer',
        ),
      ),
    );
    const commands = allocations.map((a, i) =>
      allocationChoiceCommand(a.allocationId, 'execute-transfer', contexts[i] as ChoiceContext),
    );
    const { update } = await this.submit(command.commandId, command.actAs, {
      commands,
      disclosed: uniqueDisclosed(contexts),
    });
    return this.remember(command.commandId, resultOf(update));
  }

  cancelAllocation(command: AllocationCommand): Promise<CommandResult> {
    return this.release(command, 'cancel');
  }

  withdrawAllocation(command: AllocationCommand): Promise<CommandResult> {
    return this.release(command, 'withdraw');
  }

  private async release(command: AllocationCommand, action: 'cancel' | 'withdraw') {
    const prior = this.outcomes.get(command.commandId);
    if (prior !== undefined) return prior;
    const found = await this.pending(command.commandId, [command.allocationId], command.actAs);
    if (!Array.isArray(found)) return found;
    const [allocation] = found;
    if (allocation === undefined) throw new Error('pending answers every allocation asked');
    checkRelease(allocation, command.actAs, action);
    const admin = allocation.leg.instrument.admin;
    const context = await this.deps.registry.allocationContext(
      admin,
      allocation.allocationId,
      action,
    );
    const { update } = await this.submit(command.commandId, command.actAs, {
      commands: [allocationChoiceCommand(allocation.allocationId, action, context)],
      disclosed: disclosedContractsOf(context),
    });
    return this.remember(command.commandId, resultOf(update));
  }

  /**
   * The allocations as the acting parties see them, in the order asked; each must be pending,
   * unless this very command ended them in an earlier commit (before a restart): then its result.
   */
  private async pending(
    commandId: string,
    ids: readonly string[],
    actAs: readonly string[],
  ): Promise<Allocation[] | CommandResult> {
    const seen = new Map<string, Allocation>();
    for (const party of new Set(actAs)) {
      for (const allocation of await this.getAllocations(party)) {
        seen.set(allocation.allocationId, allocation);
      }
    }
    const missing = ids.find((id) => !seen.has(id));
    if (missing === undefined) return ids.map((id) => seen.get(id) as Allocation);
    const first =
      actAs[0] === undefined ? null : await this.deps.firstTransaction(commandId, actAs[0]);
    if (first !== null) {
      return this.remember(commandId, resultOf(await this.deps.decode(commandId, first)));
    }
    throw new LedgerError('allocation_not_found', `no pending allocation ${missing}`);
  }

  private async submit(
    commandId: string,
    actAs: readonly string[],
    body: { readonly commands: Command[]; readonly disclosed: DisclosedContract[] },
  ): Promise<{ transaction: JsTransaction; update: LedgerUpdate }> {
    const [first] = actAs;
    if (first === undefined) throw new LedgerError('not_authorized', 'actAs names no party');
    const parties = [...new Set(actAs)];
    let transaction: JsTransaction;
    try {
      transaction = await this.deps.participant.submitAndWaitForTransaction({
        commands: {
          commands: body.commands,
          commandId,
          actAs: parties,
          userId: this.deps.userId,
          disclosedContracts: body.disclosed,
        },
        transactionFormat: transactionFormat({ kind: 'parties', parties }),
        kind: 'submit',
        timeoutMs: this.deps.submitTimeoutMs,
        // Every external controller signs the one transaction; local ones act by the user's rights.
        externalSigners: signersOf(parties, this.deps.externalSigners),
      });
    } catch (error) {
      if (!(error instanceof CantonRequestError && isDuplicateCommand(error.failure))) throw error;
      const firstCommit = await this.deps.firstTransaction(commandId, first);
      if (firstCommit === null) {
        throw new LedgerError(
          'timeout',
          `${commandId} is a duplicate, but its first commit is not readable yet`,
        );
      }
      transaction = firstCommit;
    }
    return { transaction, update: await this.deps.decode(commandId, transaction) };
  }

  private remember<T extends AllocateOutcome | CommandResult>(commandId: string, outcome: T): T {
    if (this.outcomes.size >= OUTCOMES_KEPT) {
      const oldest = this.outcomes.keys().next().value;
      if (oldest !== undefined) this.outcomes.delete(oldest);
    }
    this.outcomes.set(commandId, outcome);
    return outcome;
  }
}

function resultOf(update: LedgerUpdate): CommandResult {
  return { updateId: update.updateId, offset: update.offset };
}
