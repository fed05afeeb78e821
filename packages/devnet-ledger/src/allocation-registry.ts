/**
 * The registries' allocation APIs: `allocation-instruction-v1` (the allocation factory and the
 * context of `AllocationFactory_Allocate`) and `allocation-v1` (the contexts of executing,
 * withdrawing and cancelling a pending allocation). Each context is bound to its choice, and to
 * its allocation (allocation-contexts.ts). Amulet's configuration contracts come with the choices
 * that move Amulet (allocating locks it, executing transfers it), as with transfers.
 *
 * A factory request for an instrument the registry does not serve, or a context for an allocation
 * that is not pending in it, is a 404; a malformed request a 400.
 */
import { type Instrument, instrumentKey } from '@poolparty/core';
import type { Allocation } from '@poolparty/ledger';
import { choiceBindingEntries } from './allocation-contexts.js';
import { RegistryError } from './canton-errors.js';
import {
  type DevnetContract,
  disclosedContract,
  transferFactoryContract,
} from './devnet-contracts.js';
import { routeOf } from './http/route-table.js';
import { SYNCHRONIZER_ID } from './identity.js';
import {
  amuletContext,
  choiceContext,
  excludeDebug,
  instrumentsOf,
  objectOrError,
  type RegistryRouteDeps,
  stringOrError,
} from './registry.js';
import { genesisTime } from './scan-proxy.js';
import {
  ALLOCATION_CANCEL_CHOICE,
  ALLOCATION_EXECUTE_TRANSFER_CHOICE,
  ALLOCATION_FACTORY_ALLOCATE_CHOICE,
  ALLOCATION_WITHDRAW_CHOICE,
} from './wire.js';

const allocationRoute = routeOf<RegistryRouteDeps>();

/** A choice context with the entries that bind it to its choice and allocation. */
function boundContext(
  entries: readonly (readonly [string, DevnetContract])[],
  debug: boolean,
  choice: string,
  allocationId: string | null,
) {
  const context = choiceContext(entries, debug);
  return {
    ...context,
    choiceContextData: {
      values: {
        ...context.choiceContextData.values,
        ...choiceBindingEntries(choice, allocationId),
      },
    },
  };
}

/** The leg's instrument, checked against what the registry serves. */
async function legInstrument(
  deps: RegistryRouteDeps,
  admin: string | null,
  args: Readonly<Record<string, unknown>>,
): Promise<Instrument> {
  const allocation = objectOrError(args.allocation, 'choiceArguments.allocation');
  const leg = objectOrError(allocation.transferLeg, 'allocation.transferLeg');
  const instrumentId = objectOrError(leg.instrumentId, 'transferLeg.instrumentId');
  const wanted: Instrument = {
    admin: stringOrError(instrumentId.admin, 'transferLeg.instrumentId.admin'),
    id: stringOrError(instrumentId.id, 'transferLeg.instrumentId.id'),
  };
  if (args.expectedAdmin !== undefined && args.expectedAdmin !== wanted.admin) {
    throw new RegistryError(400, `expectedAdmin differs from the instrument's admin`);
  }
  const served = await instrumentsOf(deps.ledger, admin);
  const instrument = served.find((i) => instrumentKey(i) === instrumentKey(wanted));
  if (instrument === undefined) {
    throw new RegistryError(404, `this registry has no instrument ${wanted.id} of ${wanted.admin}`);
  }
  return instrument;
}

const getAllocationFactory = allocationRoute({
  method: 'POST',
  url: '/registry/allocation-instruction/v1/allocation-factory',
  handler: async (deps, request) => {
    const body = objectOrError(request.body, 'the request body');
    const args = objectOrError(body.choiceArguments, 'choiceArguments');
    const instrument = await legInstrument(deps, deps.adminOf(request), args);
    const factory = transferFactoryContract(instrument.admin, await genesisTime(deps.ledger));
    const entries = await amuletContext(deps.ledger, instrument);
    const context = boundContext(
      entries,
      !excludeDebug(body),
      ALLOCATION_FACTORY_ALLOCATE_CHOICE,
      null,
    );
    return {
      factoryId: factory.contractId,
      choiceContext: {
        ...context,
        // The factory itself is disclosed too: the sender exercises it without seeing it.
        disclosedContracts: [
          disclosedContract(factory, SYNCHRONIZER_ID, excludeDebug(body)),
          ...context.disclosedContracts,
        ],
      },
    };
  },
});

const ALLOCATION_ACTIONS = {
  'execute-transfer': ALLOCATION_EXECUTE_TRANSFER_CHOICE,
  withdraw: ALLOCATION_WITHDRAW_CHOICE,
  cancel: ALLOCATION_CANCEL_CHOICE,
} as const;

/** The choice context of executing, withdrawing or cancelling a pending allocation. */
const allocationContextRoute = (action: keyof typeof ALLOCATION_ACTIONS) =>
  allocationRoute<{ Params: { allocationId: string } }>({
    method: 'POST',
    url: `/registry/allocations/v1/:allocationId/choice-contexts/${action}`,
    handler: async ({ ledger, history, adminOf }, request) => {
      const body = request.body === undefined ? {} : objectOrError(request.body, 'the body');
      const { allocationId } = request.params;
      const allocation: Allocation | undefined = history.pendingAllocation(
        allocationId,
        await ledger.ledgerEnd(),
      );
      const servedAdmin = adminOf(request);
      if (
        allocation === undefined ||
        (servedAdmin !== null && allocation.leg.instrument.admin !== servedAdmin)
      ) {
        throw new RegistryError(404, `No pending allocation ${allocationId} in this registry`);
      }
      const choice = ALLOCATION_ACTIONS[action];
      // Only executing moves the holding (and for Amulet reads the round); the others unlock it.
      const entries =
        action === 'execute-transfer' ? await amuletContext(ledger, allocation.leg.instrument) : [];
      return boundContext(entries, !excludeDebug(body), choice, allocationId);
    },
  });

export const ALLOCATION_REGISTRY_ROUTES = [
  getAllocationFactory,
  allocationContextRoute('execute-transfer'),
  allocationContextRoute('withdraw'),
  allocationContextRoute('cancel'),
];
