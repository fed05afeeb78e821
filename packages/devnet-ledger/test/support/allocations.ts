/** Token Standard allocations as a Canton client makes them: through the registries' APIs. */
import type { Instrument } from '@poolparty/core';
import {
  ALLOCATION_FACTORY_INTERFACE_ID,
  ALLOCATION_INTERFACE_ID,
} from '@poolparty/ledger/canton/wire';
import { expect } from 'vitest';
import type { settlementInfoOf } from './commands.js';
import type { Answer, World } from './server.js';

/** How a test posts to the server: directly, or through the validating wire proxy. */
export type Post = (path: string, body: unknown) => Promise<Answer>;

export type Settlement = ReturnType<typeof settlementInfoOf>;

export interface Leg {
  readonly sender: string;
  readonly receiver: string;
  readonly instrument: Instrument;
  readonly amount: string;
}

/** An allocation's choice context names the action it is issued for. */
export type AllocationAction = 'execute-transfer' | 'withdraw' | 'cancel';

/** The path of an instrument's registry: the scan proxy's for Amulet, its admin's own for others. */
export function registryPathOf(world: World, instrument: Instrument): string {
  const url =
    instrument === world.amulet
      ? world.server.registryUrl
      : world.server.registryUrlOf(instrument.admin);
  return new URL(url).pathname;
}

/**
 * The `AllocationFactory_Allocate` exercise of one leg of `settlement`, with the factory and the
 * choice context the leg's registry answers for it.
 */
export async function allocateCommand(
  world: World,
  post: Post,
  settlement: Settlement,
  legId: string,
  leg: Leg,
) {
  const transferLeg = {
    sender: leg.sender,
    receiver: leg.receiver,
    amount: leg.amount,
    instrumentId: leg.instrument,
    meta: { values: {} },
  };
  const choiceArguments = {
    expectedAdmin: leg.instrument.admin,
    allocation: { settlement, transferLegId: legId, transferLeg },
    requestedAt: settlement.requestedAt,
    inputHoldingCids: [],
    extraArgs: { context: { values: {} }, meta: { values: {} } },
  };
  const factory = await post(
    `${registryPathOf(world, leg.instrument)}/registry/allocation-instruction/v1/allocation-factory`,
    { choiceArguments, excludeDebugFields: true },
  );
  expect(factory.status).toBe(200);
  const context = factory.body.choiceContext.choiceContextData;
  return {
    ExerciseCommand: {
      templateId: ALLOCATION_FACTORY_INTERFACE_ID,
      contractId: factory.body.factoryId,
      choice: 'AllocationFactory_Allocate',
      choiceArgument: { ...choiceArguments, extraArgs: { context, meta: { values: {} } } },
    },
  };
}

/** The registry's answer to the choice context of `action` on an allocation. */
export function choiceContextOf(
  world: World,
  post: Post,
  allocation: { readonly allocationId: string; readonly instrument: Instrument },
  action: AllocationAction,
) {
  const id = encodeURIComponent(allocation.allocationId);
  const path = `${registryPathOf(world, allocation.instrument)}/registry/allocations/v1/${id}/choice-contexts/${action}`;
  return post(path, { excludeDebugFields: true });
}

/** An exercise of `choice` on an allocation, with the context its registry issued. */
export function allocationCommand(allocationId: string, choice: string, context: unknown) {
  return {
    ExerciseCommand: {
      templateId: ALLOCATION_INTERFACE_ID,
      contractId: allocationId,
      choice,
      choiceArgument: { extraArgs: { context, meta: { values: {} } } },
    },
  };
}
