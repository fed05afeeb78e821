/**
 * Token Standard allocations over the devnet ledger's Canton API, every exchange through the
 * validating wire proxy: the registries' allocation factory and choice contexts, allocating both
 * legs of one settlement, the allocations in the active set and the update stream with their
 * `AllocationView`, the executor executing both legs in one transaction, withdrawing, cancelling,
 * and the deadlines.
 */
import { Amount, type Instrument } from '@poolparty/core';
import { ALLOCATION_INTERFACE_ID, HOLDING_INTERFACE_ID } from '@poolparty/ledger/canton/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  assertNoWireMismatches,
  startWireProxy,
  type WireProxy,
} from './canton/support/wire-proxy.js';
import {
  type AllocationAction,
  allocateCommand,
  allocationCommand,
  choiceContextOf,
  type Leg,
  type Settlement,
} from './support/allocations.js';
import { settlementInfoOf } from './support/commands.js';
import { call, sharedWorld } from './support/server.js';

const HOUR_MS = 60 * 60_000;

const world = sharedWorld();
let proxy: WireProxy;
let alice: string;
let bob: string;
let venue: string;

beforeAll(async () => {
  const party = async (hint: string) => (await world.ledger.createParty({ hint })).partyId;
  [alice, bob, venue] = [await party('alice'), await party('bob'), await party('venue')];
  await world.ledger.mint({ owner: alice, instrument: world.amulet, amount: Amount.of(100) });
  await world.ledger.mint({ owner: bob, instrument: world.usdcx, amount: Amount.of(50) });
  proxy = await startWireProxy({ target: world.server.url, uncheckedPrefixes: ['/devnet/'] });
});

afterAll(() => proxy?.close());

const post = (path: string, body: unknown) => call(proxy.url, 'POST', path, body);

async function settlementInfo(ref: string, allocateInMs = HOUR_MS, settleInMs = 2 * HOUR_MS) {
  return settlementInfoOf(venue, await world.ledger.now(), ref, { allocateInMs, settleInMs });
}

function legOf(sender: string, receiver: string, instrument: Instrument, amount: string): Leg {
  return { sender, receiver, instrument, amount };
}

const ALLOCATION_FILTER = {
  cumulative: [ALLOCATION_INTERFACE_ID, HOLDING_INTERFACE_ID].map((interfaceId) => ({
    identifierFilter: { InterfaceFilter: { value: { interfaceId, includeInterfaceView: true } } },
  })),
};

function eventFormat(parties: string[]) {
  return { filtersByParty: Object.fromEntries(parties.map((p) => [p, ALLOCATION_FILTER])) };
}

async function submit(actAs: string[], commands: unknown[], commandId: string) {
  return post('/v2/commands/submit-and-wait-for-transaction', {
    commands: { commands, commandId, actAs },
    transactionFormat: {
      eventFormat: eventFormat(actAs),
      transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS',
    },
  });
}

/** Allocates one leg through the registry's factory; answers the submission's answer. */
async function allocation(settlement: Settlement, legId: string, leg: Leg) {
  const command = await allocateCommand(world, post, settlement, legId, leg);
  return submit([leg.sender], [command], `allocate-${settlement.settlementRef.id}-${legId}`);
}

/** Allocates one leg; answers the allocation's contract id. */
async function allocate(settlement: Settlement, legId: string, leg: Leg) {
  const answer = await allocation(settlement, legId, leg);
  expect(answer.status).toBe(200);
  const exercised = answer.body.transaction.events.find(
    (e: { ExercisedEvent?: { choice: string } }) =>
      e.ExercisedEvent?.choice === 'AllocationFactory_Allocate',
  );
  return exercised.ExercisedEvent.exerciseResult.output.value.allocationCid as string;
}

function contextOf(allocationId: string, instrument: Instrument, action: AllocationAction) {
  return choiceContextOf(world, post, { allocationId, instrument }, action);
}

async function balance(party: string, instrument: Instrument, locked = false): Promise<string> {
  const holdings = await world.ledger.getHoldings(party);
  return Amount.sum(
    holdings
      .filter((h) => h.instrument.id === instrument.id && (h.lock !== null) === locked)
      .map((h) => h.amount),
  ).toString();
}

describe('a settlement of two legs', () => {
  let settlement: Settlement;
  let aliceAllocation: string;
  let bobAllocation: string;

  it('allocates each leg through its registry, the holdings locked', async () => {
    settlement = await settlementInfo('trade-1');
    aliceAllocation = await allocate(settlement, 'amulet', legOf(alice, bob, world.amulet, '30'));
    bobAllocation = await allocate(settlement, 'usdcx', legOf(bob, alice, world.usdcx, '20'));
    expect(await balance(alice, world.amulet, true)).toBe('30');
    expect(await balance(bob, world.usdcx, true)).toBe('20');
    assertNoWireMismatches(proxy);
  });

  it('shows both allocations to the executor with their AllocationView', async () => {
    const end = await call(proxy.url, 'GET', '/v2/state/ledger-end');
    const acs = await post('/v2/state/active-contracts', {
      activeAtOffset: end.body.offset,
      eventFormat: eventFormat([venue]),
    });
    const views = acs.body.map(
      (entry: {
        contractEntry: {
          JsActiveContract: { createdEvent: { interfaceViews: { viewValue: unknown }[] } };
        };
      }) => entry.contractEntry.JsActiveContract.createdEvent.interfaceViews[0]?.viewValue,
    );
    expect(views).toHaveLength(2);
    expect(views[0].allocation.transferLegId).toBe('amulet');
    expect(views[0].allocation.settlement.executor).toBe(venue);
    expect(views[1].allocation.transferLeg.sender).toBe(bob);
    expect(views[1].holdingCids).toHaveLength(1);
    assertNoWireMismatches(proxy);
  });

  it('refuses a context issued for another choice, with nothing moved', async () => {
    const withdraw = await contextOf(aliceAllocation, world.amulet, 'withdraw');
    const execute = await contextOf(bobAllocation, world.usdcx, 'execute-transfer');
    const answer = await submit(
      [venue, alice, bob],
      [
        allocationCommand(
          aliceAllocation,
          'Allocation_ExecuteTransfer',
          withdraw.body.choiceContextData,
        ),
        allocationCommand(
          bobAllocation,
          'Allocation_ExecuteTransfer',
          execute.body.choiceContextData,
        ),
      ],
      'settle-wrong-context',
    );
    expect(answer.body.code).toBe('DAML_FAILURE');
    expect(await balance(bob, world.amulet)).toBe('0');
    assertNoWireMismatches(proxy);
  });

  it('executes both legs in one transaction', async () => {
    const contexts = await Promise.all([
      contextOf(aliceAllocation, world.amulet, 'execute-transfer'),
      contextOf(bobAllocation, world.usdcx, 'execute-transfer'),
    ]);
    const answer = await submit(
      [venue, alice, bob],
      [
        allocationCommand(
          aliceAllocation,
          'Allocation_ExecuteTransfer',
          contexts[0].body.choiceContextData,
        ),
        allocationCommand(
          bobAllocation,
          'Allocation_ExecuteTransfer',
          contexts[1].body.choiceContextData,
        ),
      ],
      'settle-1',
    );
    expect(answer.status).toBe(200);
    const choices = answer.body.transaction.events
      .map((e: { ExercisedEvent?: { choice: string } }) => e.ExercisedEvent?.choice)
      .filter((c: string | undefined) => c?.startsWith('Allocation_'));
    expect(choices).toEqual(['Allocation_ExecuteTransfer', 'Allocation_ExecuteTransfer']);
    expect(await balance(bob, world.amulet)).toBe('30');
    expect(await balance(alice, world.usdcx)).toBe('20');
    expect(await world.ledger.getAllocations(venue)).toEqual([]);
    assertNoWireMismatches(proxy);
  });

  it('streams the allocation updates to the executor', async () => {
    const end = await call(proxy.url, 'GET', '/v2/state/ledger-end');
    const updates = await post('/v2/updates', {
      beginExclusive: 0,
      endInclusive: end.body.offset,
      updateFormat: {
        includeTransactions: {
          eventFormat: eventFormat([venue]),
          transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS',
        },
      },
    });
    expect(updates.status).toBe(200);
    const transactions = updates.body.filter(
      (item: { update: { Transaction?: unknown } }) => item.update.Transaction !== undefined,
    );
    expect(transactions).toHaveLength(3);
    assertNoWireMismatches(proxy);
  });
});

describe('an ACS delta', () => {
  // After the settlement above: Bob observed Alice's allocation in the transactions he reads.
  it('shows only the contracts its filter selects, not the allocations beside them', async () => {
    const end = await call(proxy.url, 'GET', '/v2/state/ledger-end');
    const holdingsOnly = {
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
    const updates = await post('/v2/updates', {
      beginExclusive: 0,
      endInclusive: end.body.offset,
      updateFormat: {
        includeTransactions: {
          eventFormat: { filtersByParty: { [bob]: holdingsOnly } },
          transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA',
        },
      },
    });
    const templates = updates.body.flatMap(
      (item: {
        update: {
          Transaction?: { value: { events: { CreatedEvent?: { templateId: string } }[] } };
        };
      }) =>
        (item.update.Transaction?.value.events ?? []).flatMap((e) =>
          e.CreatedEvent === undefined ? [] : [e.CreatedEvent.templateId],
        ),
    );
    expect(templates.length).toBeGreaterThan(0);
    expect(templates.every((t: string) => t.endsWith(':PoolParty.Devnet.Token:Holding'))).toBe(
      true,
    );
    assertNoWireMismatches(proxy);
  });
});

describe('releasing and deadlines', () => {
  it('gives the holdings back on a withdraw and on a cancel', async () => {
    const settlement = await settlementInfo('trade-2');
    const a = await allocate(settlement, 'amulet', legOf(alice, bob, world.amulet, '10'));
    const b = await allocate(settlement, 'usdcx', legOf(bob, alice, world.usdcx, '5'));
    const withdraw = await contextOf(a, world.amulet, 'withdraw');
    const withdrawn = await submit(
      [alice],
      [allocationCommand(a, 'Allocation_Withdraw', withdraw.body.choiceContextData)],
      'withdraw-2',
    );
    expect(withdrawn.status).toBe(200);
    const cancel = await contextOf(b, world.usdcx, 'cancel');
    const refused = await submit(
      [venue],
      [allocationCommand(b, 'Allocation_Cancel', cancel.body.choiceContextData)],
      'cancel-2-alone',
    );
    expect(refused.body.code).toBe('DAML_AUTHORIZATION_ERROR');
    const cancelled = await submit(
      [venue, alice, bob],
      [allocationCommand(b, 'Allocation_Cancel', cancel.body.choiceContextData)],
      'cancel-2',
    );
    expect(cancelled.status).toBe(200);
    expect(await balance(alice, world.amulet, true)).toBe('0');
    expect(await balance(bob, world.usdcx, true)).toBe('0');
    const gone = await contextOf(a, world.amulet, 'execute-transfer');
    expect(gone.status).toBe(404);
    assertNoWireMismatches(proxy);
  });

  it('refuses allocating after allocateBefore and executing after settleBefore, nothing moved', async () => {
    const settlement = await settlementInfo('trade-3', 60_000, 120_000);
    const a = await allocate(settlement, 'amulet', legOf(alice, bob, world.amulet, '10'));
    const context = await contextOf(a, world.amulet, 'execute-transfer');
    await world.ledger.advanceClock(120_000);
    const before = await balance(bob, world.amulet);
    const late = await submit(
      [venue, alice, bob],
      [allocationCommand(a, 'Allocation_ExecuteTransfer', context.body.choiceContextData)],
      'settle-3',
    );
    expect(late.body.code).toBe('DAML_FAILURE');
    expect(late.body.context.error_id).toBe('deadline_passed');
    expect(await balance(bob, world.amulet)).toBe(before);
    expect(await balance(alice, world.amulet, true)).toBe('10');
    const tooLate = await allocation(settlement, 'usdcx', legOf(bob, alice, world.usdcx, '5'));
    expect(tooLate.body.context.error_id).toBe('deadline_passed');
    expect(await balance(bob, world.usdcx, true)).toBe('0');
    assertNoWireMismatches(proxy);
  });
});
