/** Token Standard commands as a Canton client sends them. */
import type { Instrument } from '@poolparty/core';
import {
  DEVNET_TRANSFER_FACTORY_TEMPLATE_ID,
  HOLDING_INTERFACE_ID,
  TRANSFER_FACTORY_INTERFACE_ID,
  TRANSFER_INSTRUCTION_INTERFACE_ID,
  transferFactoryContractId,
} from '@poolparty/ledger/canton/wire';
import type { World } from './server.js';

export interface Transfer {
  readonly sender: string;
  readonly receiver: string;
  readonly instrument: Instrument;
  readonly amount: string;
  readonly executeBefore?: Date;
  readonly meta?: Record<string, string>;
  readonly factoryId?: string;
  readonly inputHoldingCids?: string[];
}

export function transferCommand(transfer: Transfer) {
  return {
    ExerciseCommand: {
      templateId: TRANSFER_FACTORY_INTERFACE_ID,
      contractId: transfer.factoryId ?? transferFactoryContractId(transfer.instrument.admin),
      choice: 'TransferFactory_Transfer',
      choiceArgument: {
        expectedAdmin: transfer.instrument.admin,
        transfer: {
          sender: transfer.sender,
          receiver: transfer.receiver,
          amount: transfer.amount,
          instrumentId: transfer.instrument,
          requestedAt: new Date().toISOString(),
          executeBefore: (transfer.executeBefore ?? new Date(Date.now() + 3_600_000)).toISOString(),
          inputHoldingCids: transfer.inputHoldingCids ?? [],
          meta: { values: transfer.meta ?? {} },
        },
        extraArgs: { context: { values: {} }, meta: { values: {} } },
      },
    },
  };
}

export function instructionCommand(choice: 'Accept' | 'Reject' | 'Withdraw', offerId: string) {
  return {
    ExerciseCommand: {
      templateId: TRANSFER_INSTRUCTION_INTERFACE_ID,
      contractId: offerId,
      choice: `TransferInstruction_${choice}`,
      choiceArgument: { extraArgs: { context: { values: {} }, meta: { values: {} } } },
    },
  };
}

export const DEVNET_FACTORY_TEMPLATE = DEVNET_TRANSFER_FACTORY_TEMPLATE_ID;

/** The Token Standard interfaces with their views: what a token-standard reader asks for. */
export const TOKEN_STANDARD_FILTERS = {
  cumulative: [HOLDING_INTERFACE_ID, TRANSFER_INSTRUCTION_INTERFACE_ID].map((interfaceId) => ({
    identifierFilter: {
      InterfaceFilter: { value: { interfaceId, includeInterfaceView: true } },
    },
  })),
};

/** The Holding interface with its view (the codec reads holdings from their view). */
export const HOLDING_FILTER = {
  cumulative: [
    {
      identifierFilter: {
        InterfaceFilter: {
          value: { interfaceId: HOLDING_INTERFACE_ID, includeInterfaceView: true },
        },
      },
    },
  ],
};

/** A GetUpdatesRequest for one party's holdings, with ledger effects. */
export function holdingUpdatesRequest(
  party: string,
  beginExclusive: number,
  endInclusive?: number,
) {
  return {
    beginExclusive,
    ...(endInclusive !== undefined && { endInclusive }),
    updateFormat: {
      includeTransactions: {
        eventFormat: { filtersByParty: { [party]: HOLDING_FILTER } },
        transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS',
      },
    },
  };
}

/** Ledger effects for these parties: the shape the codec decodes. */
export function ledgerEffects(parties: readonly string[]) {
  return {
    eventFormat: {
      filtersByParty: Object.fromEntries(parties.map((p) => [p, TOKEN_STANDARD_FILTERS])),
    },
    transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS',
  };
}

export function submission(commandId: string, actAs: string[], command: unknown) {
  return {
    commands: { commands: [command], commandId, actAs, userId: 'poolparty' },
    transactionFormat: ledgerEffects(actAs),
  };
}

/** A transfer of `sender`'s to the world's pool: 1 Amulet unless `transfer` names otherwise. */
function poolTransferCommand(world: World, sender: string, transfer: Partial<Transfer>) {
  return transferCommand({
    sender,
    receiver: world.pool,
    instrument: world.amulet,
    amount: '1',
    ...transfer,
  });
}

/**
 * A submission of one transfer, acting as its sender: unless `transfer` names otherwise, the
 * world's most common one, 1 Amulet from the treasury to the pool.
 */
export function transferSubmission(
  world: World,
  commandId: string,
  transfer: Partial<Transfer> = {},
) {
  const sender = transfer.sender ?? world.treasury;
  return submission(commandId, [sender], poolTransferCommand(world, sender, transfer));
}

/**
 * A prepare request of the world's external wallet party: its transfer, to the pool of 1 Amulet
 * unless `transfer` names otherwise, as the service's user.
 */
export function walletTransferPrepare(
  world: World,
  commandId: string,
  transfer: Partial<Omit<Transfer, 'sender'>> = {},
) {
  const sender = world.wallet.partyId;
  return {
    userId: 'poolparty',
    commandId,
    commands: [poolTransferCommand(world, sender, transfer)],
    actAs: [sender],
  };
}

/** The offer id a `TransferFactory_Transfer` exercise result names when it made an offer. */
export function pendingInstructionOf(transaction: { events: unknown[] }): string | undefined {
  for (const event of transaction.events as {
    ExercisedEvent?: {
      choice: string;
      exerciseResult?: { output?: { tag?: string; value?: { transferInstructionCid?: string } } };
    };
  }[]) {
    const exercised = event.ExercisedEvent;
    if (exercised?.choice !== 'TransferFactory_Transfer') continue;
    const output = exercised.exerciseResult?.output;
    if (output?.tag === 'TransferInstructionResult_Pending')
      return output.value?.transferInstructionCid;
  }
  return undefined;
}

/** A settlement's `SettlementInfo` for `executor`, its two deadlines counted from `now`. */
export function settlementInfoOf(
  executor: string,
  now: Date,
  ref: string,
  deadlines: { readonly allocateInMs: number; readonly settleInMs: number },
) {
  const at = now.getTime();
  return {
    executor,
    settlementRef: { id: ref, cid: null },
    requestedAt: new Date(at).toISOString(),
    allocateBefore: new Date(at + deadlines.allocateInMs).toISOString(),
    settleBefore: new Date(at + deadlines.settleInMs).toISOString(),
    meta: { values: {} },
  };
}
