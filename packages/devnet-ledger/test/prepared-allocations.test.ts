/**
 * A DvP through allocations, every step signed by external parties' own keys: each trader
 * allocates its leg with a prepared `AllocationFactory_Allocate` it signs alone; the venue
 * (a local party) prepares both `Allocation_ExecuteTransfer`s with the two traders as acting
 * parties, which the visualizer shows and whose hash it recomputes; it executes only with both
 * traders' signatures, as one transaction moving both legs. A withdrawal prepared before the
 * allocation is gone is refused once it is: the signed inputs are no longer what it reads.
 */
import { hashPreparedTransaction } from '@canton-network/core-tx-visualizer';
import { Amount, type Instrument } from '@poolparty/core';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  allocateCommand,
  allocationCommand,
  choiceContextOf,
  type Settlement,
} from './support/allocations.js';
import { settlementInfoOf } from './support/commands.js';
import { expectCantonError, expectSchema, sharedWorld } from './support/server.js';
import { externalParty, type Prepared, type Signer, signedBy } from './support/signing.js';
import { shownLegs } from './support/visualizer.js';

const PREPARE = '/v2/interactive-submission/prepare';
const EXECUTE = '/v2/interactive-submission/executeAndWait';
const HOUR_MS = 60 * 60_000;

const world = sharedWorld();
let seller: Signer;
let buyer: Signer;
let venue: string;

beforeAll(async () => {
  seller = world.wallet;
  buyer = await externalParty(world.ledger, 'buyer');
  venue = (await world.ledger.createParty({ hint: 'venue' })).partyId;
  await world.ledger.mint({ owner: buyer.partyId, instrument: world.usdcx, amount: Amount.of(20) });
});

async function prepare(commandId: string, actAs: string[], commands: unknown[]) {
  const request = { commandId, actAs, commands };
  expectSchema('ledger', 'JsPrepareSubmissionRequest', request);
  const answer = await world.post(PREPARE, request);
  expect(answer.status).toBe(200);
  return answer.body as Prepared;
}

const RELEASE_CHOICES = {
  'execute-transfer': 'Allocation_ExecuteTransfer',
  withdraw: 'Allocation_Withdraw',
} as const;

async function releaseCommand(
  allocationId: string,
  instrument: Instrument,
  action: keyof typeof RELEASE_CHOICES,
) {
  const context = await choiceContextOf(world, world.post, { allocationId, instrument }, action);
  expect(context.status).toBe(200);
  return allocationCommand(allocationId, RELEASE_CHOICES[action], context.body.choiceContextData);
}

/** The venue's settlement `ref`, as every leg of it names it. */
const settlements = new Map<string, Settlement>();
async function settlementOf(ref: string) {
  const known = settlements.get(ref);
  if (known !== undefined) return known;
  const deadlines = { allocateInMs: HOUR_MS, settleInMs: 2 * HOUR_MS };
  const settlement = settlementInfoOf(venue, await world.ledger.now(), ref, deadlines);
  settlements.set(ref, settlement);
  return settlement;
}

/** Allocates a leg by a prepared transaction its sender signs; the allocation's id. */
async function allocateSigned(
  ref: string,
  legId: string,
  trader: Signer,
  leg: { receiver: string; instrument: Instrument; amount: string },
) {
  const settlement = await settlementOf(ref);
  const command = await allocateCommand(world, world.post, settlement, legId, {
    sender: trader.partyId,
    ...leg,
  });
  const prepared = await prepare(`allocate-${ref}-${legId}`, [trader.partyId], [command]);
  const answer = await world.post(EXECUTE, signedBy(prepared, [trader], `s-${ref}-${legId}`));
  expect(answer.status).toBe(200);
  const mine = await world.ledger.getAllocations(trader.partyId);
  const allocation = mine.find(
    (a) => a.settlement.settlementRef === ref && a.transferLegId === legId,
  );
  if (allocation === undefined) throw new Error(`no allocation of ${ref}/${legId}`);
  return allocation.allocationId;
}

const unlocked = async (party: string, instrument: Instrument) => {
  const holdings = await world.ledger.getHoldings(party);
  const of = holdings.filter((h) => h.instrument.id === instrument.id && h.lock === null);
  return Amount.sum(of.map((h) => h.amount)).toString();
};

describe('a DvP through allocations, signed by external traders', () => {
  let amuletLeg: string;
  let usdcxLeg: string;
  let settlement: Prepared;

  it('allocates each leg by a transaction its sender alone signs', async () => {
    const before = await unlocked(seller.partyId, world.amulet);
    amuletLeg = await allocateSigned('dvp', 'amulet', seller, {
      receiver: buyer.partyId,
      instrument: world.amulet,
      amount: '10',
    });
    usdcxLeg = await allocateSigned('dvp', 'usdcx', buyer, {
      receiver: seller.partyId,
      instrument: world.usdcx,
      amount: '5',
    });
    expect(Amount.parse(await unlocked(seller.partyId, world.amulet))).toEqual(
      Amount.parse(before).sub(Amount.of(10)),
    );
    expect((await world.ledger.getAllocations(venue)).map((a) => a.allocationId).sort()).toEqual(
      [amuletLeg, usdcxLeg].sort(),
    );
  });

  it('prepares both executions as one transaction the visualizer reads and rehashes', async () => {
    settlement = await prepare(
      'settle-dvp',
      [venue, seller.partyId, buyer.partyId],
      [
        await releaseCommand(amuletLeg, world.amulet, 'execute-transfer'),
        await releaseCommand(usdcxLeg, world.usdcx, 'execute-transfer'),
      ],
    );
    const legs = shownLegs(settlement.preparedTransaction);
    expect(legs.map((leg) => [leg.choiceId, leg.contractId, leg.actingParties])).toEqual([
      ['Allocation_ExecuteTransfer', amuletLeg, [venue, seller.partyId, buyer.partyId]],
      ['Allocation_ExecuteTransfer', usdcxLeg, [venue, buyer.partyId, seller.partyId]],
    ]);
    expect(legs.map((leg) => leg.creates)).toEqual([
      { owner: `party:${buyer.partyId}`, amount: 'numeric:10.0000000000' },
      { owner: `party:${seller.partyId}`, amount: 'numeric:5.0000000000' },
    ]);
    expect(await hashPreparedTransaction(settlement.preparedTransaction)).toBe(
      settlement.preparedTransactionHash,
    );
  });

  it('refuses the execution without the buyer’s signature, with nothing moved', async () => {
    const end = await world.ledger.ledgerEnd();
    const answer = await world.post(EXECUTE, signedBy(settlement, [seller], 'settle-seller-only'));
    expectCantonError(answer, 400, 'INVALID_ARGUMENT');
    expect(answer.body.cause).toContain(`no signature by ${buyer.partyId}`);
    expect(await world.ledger.ledgerEnd()).toBe(end);
    expect(await world.ledger.getAllocations(venue)).toHaveLength(2);
  });

  it('executes with both traders’ signatures: both legs move in one transaction', async () => {
    const buyerAmulet = await unlocked(buyer.partyId, world.amulet);
    const answer = await world.post(EXECUTE, signedBy(settlement, [seller, buyer], 'settle-both'));
    expect(answer.status).toBe(200);
    const done = await world.ledger.lookupCommand('settle-dvp');
    expect(done?.offset).toBe(answer.body.completionOffset);
    expect(await world.ledger.lookupCommand('settle-dvp/1')).toBeNull();
    expect(await world.ledger.getAllocations(venue)).toEqual([]);
    expect(Amount.parse(await unlocked(buyer.partyId, world.amulet))).toEqual(
      Amount.parse(buyerAmulet).add(Amount.of(10)),
    );
    expect(await unlocked(seller.partyId, world.usdcx)).toBe('5');
  });

  it('refuses a prepared withdrawal once its allocation is gone', async () => {
    const allocationId = await allocateSigned('late', 'amulet', seller, {
      receiver: buyer.partyId,
      instrument: world.amulet,
      amount: '1',
    });
    const command = await releaseCommand(allocationId, world.amulet, 'withdraw');
    const [first, second] = [
      await prepare('withdraw-late-1', [seller.partyId], [command]),
      await prepare('withdraw-late-2', [seller.partyId], [command]),
    ];
    expect((await world.post(EXECUTE, signedBy(first, [seller], 'w-1'))).status).toBe(200);
    const end = await world.ledger.ledgerEnd();
    const again = await world.post(EXECUTE, signedBy(second, [seller], 'w-2'));
    expectCantonError(again, 404, 'CONTRACT_NOT_FOUND');
    expect(await world.ledger.ledgerEnd()).toBe(end);
  });
});
