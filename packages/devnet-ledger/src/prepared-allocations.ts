/**
 * Allocation choices in a prepared transaction: what each reads and creates as the ledger's
 * state says at preparation, and their execution once every external controller has signed.
 *
 * - `AllocationFactory_Allocate` (the sender acting) reads the admin's factory and the holdings
 *   the ledger will spend (its own selection, as a plain submission's: `planAllocation`); it
 *   creates the sender's holding of the amount locked for the allocation, the change, and the
 *   allocation, whose `holdingCids` stay empty until the locked holding has its id at commit.
 * - `Allocation_ExecuteTransfer` (one root per leg; executor, sender and receiver acting) reads
 *   the allocation and its locked holding and creates the receiver's holding;
 *   `Allocation_Cancel` (the same three) and `Allocation_Withdraw` (the sender) create the
 *   sender's holding back.
 *
 * Execution runs the allocation command as a plain submission would, as every acting party: the
 * local ledger runs a settlement of several legs as one command, every leg or none, so a prepared
 * settlement commits as one transaction. Before it runs, the contracts the command reads now must
 * be those the signed transaction lists, as for transfers.
 */
import {
  type Allocation,
  allocationLock,
  type CommandResult,
  planAllocation,
} from '@poolparty/ledger';
import { allocationSpecification } from '@poolparty/ledger/canton/wire';
import type { AllocationLedgerCommand } from './allocation-commands.js';
import { CantonApiError } from './canton-errors.js';
import type { ServerContext } from './context.js';
import {
  type AllocationLeg,
  createdAtOf,
  holdingContract,
  type InputContract,
  inputHolding,
} from './prepared-legs.js';
import type { Json } from './request-body.js';
import { genesisTime } from './scan-proxy.js';
import type { Deduplication } from './token-standard-commands.js';
import { TEMPLATE_IDS } from './wire.js';

const allocationNotFound = (allocationId: string) =>
  new CantonApiError(
    'CONTRACT_NOT_FOUND',
    'InvalidGivenCurrentSystemStateResourceMissing',
    `no pending allocation ${allocationId}`,
    { contract_id: allocationId },
  );

function allocationParties(allocation: Pick<Allocation, 'leg' | 'settlement'>) {
  const { leg, settlement } = allocation;
  const signatories = [leg.instrument.admin, leg.sender];
  return { signatories, stakeholders: [...signatories, settlement.executor, leg.receiver] };
}

/** The allocation contract as the ledger renders it; `holdingIds` once it is created. */
function allocationContract(allocation: Allocation) {
  return {
    kind: 'allocation',
    templateId: TEMPLATE_IDS.allocation,
    argument: {
      admin: allocation.leg.instrument.admin,
      allocation: allocationSpecification(allocation),
      holdingCids: [...allocation.holdingIds],
      meta: { values: {} },
    },
    ...allocationParties(allocation),
  } as const;
}

type Allocate = Extract<AllocationLedgerCommand, { kind: 'allocate' }>;

/** What allocating reads and creates (see the module's note). */
async function allocateLeg(ctx: ServerContext, exercise: Json, command: Allocate) {
  const { settlement, transferLegId, leg } = command;
  const end = await ctx.ledger.ledgerEnd();
  const active = ctx.history.activeAt(end).holdings;
  const plan = planAllocation(
    { atMs: (await ctx.ledger.now()).getTime(), settlement, transferLegId, leg },
    active.map(({ contract }) => contract),
  );
  const spent = plan.inputs.flatMap((holding) => {
    const found = active.find(({ contract }) => contract.holdingId === holding.holdingId);
    return found === undefined ? [] : [inputHolding(ctx, found)];
  });
  const admin = leg.instrument.admin;
  const factory: InputContract = {
    kind: 'transferFactory',
    contractId: command.factoryId,
    templateId: TEMPLATE_IDS.transferFactory,
    argument: { admin },
    signatories: [admin],
    stakeholders: [admin],
    createdAt: await genesisTime(ctx.ledger),
  };
  const allocation: Allocation = {
    allocationId: '',
    settlement,
    transferLegId,
    leg,
    holdingIds: [],
  };
  const lock = allocationLock('', settlement, transferLegId);
  const owner = leg.sender;
  const { instrument, amount } = leg;
  const change = plan.change.isPositive()
    ? [holdingContract({ owner, instrument, amount: plan.change, lock: null })]
    : [];
  return {
    exercise,
    actingParties: [leg.sender],
    contract: { signatories: [admin], stakeholders: [admin] },
    consuming: false,
    inputs: [factory, ...spent],
    creates: [
      holdingContract({ owner, instrument, amount, lock }),
      ...change,
      allocationContract(allocation),
    ],
  };
}

/** What a choice on a pending allocation reads and creates; `owner` gets the amount unlocked. */
async function releaseLeg(
  ctx: ServerContext,
  exercise: Json,
  allocationId: string,
  release: 'execute' | 'cancel' | 'withdraw',
): Promise<AllocationLeg> {
  const end = await ctx.ledger.ledgerEnd();
  const allocation = ctx.history.pendingAllocation(allocationId, end);
  const record = ctx.history.contractUpTo(allocationId, end)?.record;
  if (allocation === undefined || record === undefined) throw allocationNotFound(allocationId);
  const locked = allocation.holdingIds.flatMap((id) => {
    const found = ctx.history.contractUpTo(id, end);
    return found?.record.kind === 'holding' && found.archivedAt === null
      ? [inputHolding(ctx, found.record)]
      : [];
  });
  const { leg, settlement } = allocation;
  const owner = release === 'execute' ? leg.receiver : leg.sender;
  const controllers = [settlement.executor, leg.sender, leg.receiver];
  return {
    exercise,
    actingParties: release === 'withdraw' ? [leg.sender] : [...new Set(controllers)],
    contract: allocationParties(allocation),
    consuming: true,
    inputs: [
      {
        ...allocationContract(allocation),
        contractId: allocationId,
        createdAt: createdAtOf(ctx, record.createdAt),
      },
      ...locked,
    ],
    creates: [
      holdingContract({ owner, instrument: leg.instrument, amount: leg.amount, lock: null }),
    ],
  };
}

/** The legs of an allocation command, one per exercise it was read from, as of the ledger end. */
export async function planAllocationLegs(
  ctx: ServerContext,
  exercises: readonly Json[],
  command: AllocationLedgerCommand,
): Promise<AllocationLeg[]> {
  const [first] = exercises;
  if (first === undefined) return [];
  switch (command.kind) {
    case 'allocate':
      return [await allocateLeg(ctx, first, command)];
    case 'executeSettlement': {
      const legs: AllocationLeg[] = [];
      for (const [index, allocationId] of command.allocationIds.entries()) {
        legs.push(await releaseLeg(ctx, exercises[index] ?? first, allocationId, 'execute'));
      }
      return legs;
    }
    case 'cancelAllocation':
      return [await releaseLeg(ctx, first, command.allocationId, 'cancel')];
    case 'withdrawAllocation':
      return [await releaseLeg(ctx, first, command.allocationId, 'withdraw')];
  }
}

/**
 * Runs a signed allocation command as its acting parties, once the contracts it reads now are
 * those the signed transaction lists (else the party signed another state: prepare again).
 */
export async function executeAllocationCommand(
  ctx: ServerContext,
  input: {
    readonly commandId: string;
    readonly actAs: readonly string[];
    readonly exercises: readonly Json[];
    readonly command: AllocationLedgerCommand;
    readonly inputContractIds: readonly string[];
    readonly deduplication: Deduplication;
    readonly userId: string;
    readonly submissionId: string;
  },
): Promise<CommandResult> {
  await ctx.commands.refuseDuplicate(input);
  const legs = await planAllocationLegs(ctx, input.exercises, input.command);
  const now = new Set(legs.flatMap((leg) => leg.inputs.map((contract) => contract.contractId)));
  const signed = new Set(input.inputContractIds);
  const differs = now.size !== signed.size || [...now].some((id) => !signed.has(id));
  if (differs) {
    const gone = [...signed].find((id) => !now.has(id)) ?? [...now][0] ?? '';
    throw new CantonApiError(
      'CONTRACT_NOT_FOUND',
      'InvalidGivenCurrentSystemStateResourceMissing',
      "the prepared transaction's input contracts are no longer what its commands read; prepare it again",
      { contract_id: gone },
    );
  }
  const { commandId, actAs, command, deduplication, userId, submissionId } = input;
  return ctx.commands.submit({ commandId, actAs, command, deduplication, userId, submissionId });
}
