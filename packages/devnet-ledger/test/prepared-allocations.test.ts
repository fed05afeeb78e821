/**
 * A DvP through allocations, every step signed by external parties' own keys: each trader
 * allocates its leg with a prepared `AllocationFactory_Allocate` it signs alone; the venue
 * (a local party) prepares both `Allocation_ExecuteTransfer`s with the two traders as acting
 * parties, which the visualizer shows and whose hash it recomputes; it executes only with both
 * traders' signatures, as one transaction moving both legs. A withdrawal prepared before the
 * allocation is gone is refused once it is: the signed inputs are no longer what it reads.
 */
import { hashPreparedTransaction } from '@canton-network/core-tx-visualizer';
import {
  Amount,
  encodeBase64,
  fingerprint,
  generateKeyPair,
  type Instrument,
  sign,
} from '@poolparty/core';
import {
  ALLOCATION_FACTORY_INTERFACE_ID,
  ALLOCATION_INTERFACE_ID,
} from '@poolparty/ledger/canton/wire';
import { beforeAll, describe, expect, it } from 'vitest';
import { settlementInfoOf } from './support/commands.js';
import { expectCantonError, expectSchema, sharedWorld } from './support/server.js';
import { shownLegs } from './support/visualizer.js';

const PREPARE = '/v2/interactive-submission/prepare';
const EXECUTE = '/v2/interactive-submission/executeAndWait';
const HOUR_MS = 60 * 60_000;

interface Trader {
  readonly partyId: string;
  readonly publicKey: Uint8Array;
  readonly privateKey: Uint8Array;
}

interface Prepared {
  readonly preparedTransaction: string;
  readonly preparedTransactionHash: string;
}

const world = sharedWorld();
let seller: Trader;
let buyer: Trader;
let venue: string;

beforeAll(async () => {
  seller = world.wallet;
  const keys = generateKeyPair();
  buyer = {
    partyId: (await world.ledger.createParty({ hint: 'buyer', publicKey: keys.publicKey })).partyId,
    ...keys,
  };
  venue = (await world.ledger.createParty({ hint: 'venue' })).partyId;
  await world.ledger.mint({ owner: buyer.partyId, instrument: world.usdcx, amount: Amount.of(20) });
});

const post = (path: string, body: unknown) => world.post(path, body);

function registryOf(instrument: Instrument): string {
  const url =
    instrument === world.amulet
      ? world.server.registryUrl
      : world.server.registryUrlOf(instrument.admin);
  return new URL(url).pathname;
}

function signedBy(prepared: Prepared, traders: readonly Trader[], submissionId: string) {
  const signatures = traders.map((trader) => ({
    party: trader.partyId,
    signatures: [
      {
        format: 'SIGNATURE_FORMAT_CONCAT',
        signature: encodeBase64(
          sign(Buffer.from(prepared.preparedTransactionHash, 'base64'), trader.privateKey),
        ),
        signedBy: fingerprint(trader.publicKey),
        signingAlgorithmSpec: 'SIGNING_ALGORITHM_SPEC_ED25519',
      },
    ],
  }));
  return {
    preparedTransaction: prepared.preparedTransaction,
    hashingSchemeVersion: 'HASHING_SCHEME_VERSION_V2',
    submissionId,
    partySignatures: { signatures },
  };
}

async function prepare(commandId: string, actAs: string[], commands: unknown[]) {
  const request = { commandId, actAs, commands };
  expectSchema('ledger', 'JsPrepareSubmissionRequest', request);
  const answer = await post(PREPARE, request);
  expect(answer.status).toBe(200);
  return answer.body as Prepared;
}

/** The allocate command of one leg, its context from the instrument's registry. */
async function allocateCommand(
  settlement: ReturnType<typeof settlementInfoOf>,
  legId: string,
  leg: { sender: string; receiver: string; instrument: Instrument; amount: string },
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
    `${registryOf(leg.instrument)}/registry/allocation-instruction/v1/allocation-factory`,
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

async function releaseCommand(allocationId: string, instrument: Instrument, action: string) {
  const choice = {
    'execute-transfer': 'Allocation_ExecuteTransfer',
    withdraw: 'Allocation_Withdraw',
  }[action];
  const path = `${registryOf(instrument)}/registry/allocations/v1/${encodeURIComponent(allocationId)}/choice-contexts/${action}`;
  const context = await post(path, { excludeDebugFields: true });
  expect(context.status).toBe(200);
  return {
    ExerciseCommand: {
      templateId: ALLOCATION_INTERFACE_ID,
      contractId: allocationId,
      choice,
      choiceArgument: {
        extraArgs: { context: context.body.choiceContextData, meta: { values: {} } },
      },
    },
  };
}

/** The venue's settlement `ref`, as every leg of it names it. */
const settlements = new Map<string, ReturnType<typeof settlementInfoOf>>();
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
  trader: Trader,
  leg: { receiver: string; instrument: Instrument; amount: string },
) {
  const settlement = await settlementOf(ref);
  const command = await allocateCommand(settlement, legId, { sender: trader.partyId, ...leg });
  const prepared = await prepare(`allocate-${ref}-${legId}`, [trader.partyId], [command]);
  const answer = await post(EXECUTE, signedBy(prepared, [trader], `s-${ref}-${legId}`));
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
    const answer = await post(EXECUTE, signedBy(settlement, [seller], 'settle-seller-only'));
    expectCantonError(answer, 400, 'INVALID_ARGUMENT');
    expect(answer.body.cause).toContain(`no signature by ${buyer.partyId}`);
    expect(await world.ledger.ledgerEnd()).toBe(end);
    expect(await world.ledger.getAllocations(venue)).toHaveLength(2);
  });

  it('executes with both traders’ signatures: both legs move in one transaction', async () => {
    const buyerAmulet = await unlocked(buyer.partyId, world.amulet);
    const answer = await post(EXECUTE, signedBy(settlement, [seller, buyer], 'settle-both'));
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
    expect((await post(EXECUTE, signedBy(first, [seller], 'w-1'))).status).toBe(200);
    const end = await world.ledger.ledgerEnd();
    const again = await post(EXECUTE, signedBy(second, [seller], 'w-2'));
    expectCantonError(again, 404, 'CONTRACT_NOT_FOUND');
    expect(await world.ledger.ledgerEnd()).toBe(end);
  });
});
