import { Amount, type Instrument } from '@poolparty/core';
import { describe, expect, it } from 'vitest';
import {
  type AllocateCommand,
  LedgerError,
  type LedgerErrorCode,
  type LedgerUpdate,
  type LocalLedger,
  openLocalLedger,
  type SettlementInfo,
} from '../src/index.js';
import { allocationConformanceSuite } from '../testing/allocation-conformance.js';
import { localLedgers, START } from './support/local-ledgers.js';

const HOUR_MS = 60 * 60_000;

const { open, dataFolder } = localLedgers('poolparty-allocations-');

/** Alice holds 60 USDCx (as 10, 30, 20), Bob 5 CBTC; the venue executes their settlements. */
async function trading(dataDir?: string) {
  const ledger = await open(dataDir);
  const admin = (await ledger.createParty({ hint: 'registry' })).partyId;
  const usdcx: Instrument = { admin, id: 'USDCx' };
  const cbtc: Instrument = { admin, id: 'CBTC' };
  await ledger.createInstrument(usdcx);
  await ledger.createInstrument(cbtc);
  const alice = (await ledger.createParty({ hint: 'alice' })).partyId;
  const bob = (await ledger.createParty({ hint: 'bob' })).partyId;
  const venue = (await ledger.createParty({ hint: 'venue' })).partyId;
  for (const amount of ['10', '30', '20']) {
    await ledger.mint({ owner: alice, instrument: usdcx, amount: Amount.parse(amount) });
  }
  await ledger.mint({ owner: bob, instrument: cbtc, amount: Amount.of(5) });
  const now = (await ledger.now()).getTime();
  const settlement: SettlementInfo = {
    executor: venue,
    settlementRef: 'trade-1',
    requestedAt: new Date(now),
    allocateBefore: new Date(now + HOUR_MS),
    settleBefore: new Date(now + 2 * HOUR_MS),
    meta: {},
  };
  const aliceLeg = (amount = '25'): AllocateCommand => ({
    commandId: `alloc-alice-${amount}`,
    settlement,
    transferLegId: 'leg-usdcx',
    leg: {
      sender: alice,
      receiver: bob,
      instrument: usdcx,
      amount: Amount.parse(amount),
      meta: {},
    },
  });
  const bobLeg: AllocateCommand = {
    commandId: 'alloc-bob',
    settlement,
    transferLegId: 'leg-cbtc',
    leg: { sender: bob, receiver: alice, instrument: cbtc, amount: Amount.of(2), meta: {} },
  };
  return { ledger, usdcx, cbtc, alice, bob, venue, settlement, aliceLeg, bobLeg };
}

async function amountsOf(ledger: LocalLedger, party: string) {
  const holdings = await ledger.getHoldings(party);
  return holdings.map((h) => `${h.amount} ${h.instrument.id}${h.lock ? ' locked' : ''}`).sort();
}

async function updatesAfter(ledger: LocalLedger, from: number, parties?: string[]) {
  const end = await ledger.ledgerEnd();
  const updates: LedgerUpdate[] = [];
  if (end <= from) return updates;
  const controller = new AbortController();
  const reading = ledger.updates(from, {
    signal: controller.signal,
    ...(parties !== undefined && { parties }),
  });
  setTimeout(() => controller.abort(), 200).unref();
  for await (const update of reading) {
    updates.push(update);
    if (update.offset >= end) break;
  }
  return updates;
}

async function refused(attempt: Promise<unknown>, code: LedgerErrorCode): Promise<void> {
  const error = await attempt.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(LedgerError);
  expect((error as LedgerError).code).toBe(code);
}

describe('allocating a leg', () => {
  it('locks exactly the amount for the settlement; the change stays spendable', async () => {
    const { ledger, alice, bob, venue, settlement, aliceLeg } = await trading();
    const { allocationId } = await ledger.allocate(aliceLeg());
    expect(await amountsOf(ledger, alice)).toEqual([
      '10 USDCx',
      '20 USDCx',
      '25 USDCx locked',
      '5 USDCx',
    ]);
    const locked = (await ledger.getHoldings(alice)).find((h) => h.lock !== null);
    expect(locked?.lock).toEqual({
      offerId: null,
      expiresAt: settlement.settleBefore,
      context: 'allocation for leg leg-usdcx of settlement trade-1',
      allocationId,
    });
    for (const party of [alice, bob, venue]) {
      const [allocation] = await ledger.getAllocations(party);
      expect(allocation?.allocationId).toBe(allocationId);
      expect(allocation?.holdingIds).toEqual([locked?.holdingId]);
    }
  });

  it('does not spend a locked holding again', async () => {
    const { ledger, alice, bob, usdcx, aliceLeg } = await trading();
    await ledger.allocate(aliceLeg('25'));
    await refused(
      ledger.submitTransfer({
        commandId: 'spend-all',
        sender: alice,
        receiver: bob,
        instrument: usdcx,
        amount: Amount.of(60),
      }),
      'insufficient_holdings',
    );
    await refused(ledger.allocate(aliceLeg('36')), 'insufficient_holdings');
  });

  it('tells the executor, sender and receiver, in an update of its own', async () => {
    const { ledger, venue, aliceLeg } = await trading();
    const before = await ledger.ledgerEnd();
    const outcome = await ledger.allocate(aliceLeg());
    const [update] = await updatesAfter(ledger, before, [venue]);
    expect(update?.offset).toBe(outcome.offset);
    expect(update?.events.map((e) => e.kind)).toEqual(['allocation_created']);
  });

  it('is refused from allocateBefore on, and for a settlement whose deadlines contradict', async () => {
    const { ledger, alice, settlement, aliceLeg } = await trading();
    await ledger.advanceClock(HOUR_MS);
    await refused(ledger.allocate(aliceLeg()), 'deadline_passed');
    const backwards = { ...settlement, settleBefore: new Date(START.getTime()) };
    await refused(ledger.allocate({ ...aliceLeg(), settlement: backwards }), 'invalid_settlement');
    expect(await amountsOf(ledger, alice)).toEqual(['10 USDCx', '20 USDCx', '30 USDCx']);
  });

  it('answers a resubmitted command id with the first allocation', async () => {
    const { ledger, alice, aliceLeg } = await trading();
    const first = await ledger.allocate(aliceLeg());
    expect(await ledger.allocate(aliceLeg())).toEqual(first);
    expect(await ledger.getAllocations(alice)).toHaveLength(1);
  });
});

describe('executing a settlement', () => {
  it('moves every leg in one update', async () => {
    const { ledger, alice, bob, venue, aliceLeg, bobLeg } = await trading();
    const a = await ledger.allocate(aliceLeg());
    const b = await ledger.allocate(bobLeg);
    const done = await ledger.executeSettlement({
      commandId: 'settle',
      allocationIds: [a.allocationId, b.allocationId],
      actAs: [venue, alice, bob],
    });
    const [update] = await updatesAfter(ledger, done.offset - 1);
    expect(update?.events.map((e) => ['sender' in e && [e.kind, e.sender, e.receiver]])).toEqual([
      [['allocation_executed', alice, bob]],
      [['allocation_executed', bob, alice]],
    ]);
    expect(await amountsOf(ledger, alice)).toEqual(['10 USDCx', '2 CBTC', '20 USDCx', '5 USDCx']);
    expect(await amountsOf(ledger, bob)).toEqual(['25 USDCx', '3 CBTC']);
    expect(await ledger.getAllocations(venue)).toEqual([]);
  });

  it('moves nothing when one leg cannot run', async () => {
    const { ledger, alice, bob, venue, aliceLeg, bobLeg } = await trading();
    const a = await ledger.allocate(aliceLeg());
    const b = await ledger.allocate(bobLeg);
    await ledger.withdrawAllocation({
      commandId: 'withdraw-b',
      allocationId: b.allocationId,
      actAs: [bob],
    });
    const end = await ledger.ledgerEnd();
    const both = [a.allocationId, b.allocationId];
    const actAs = [venue, alice, bob];
    await refused(
      ledger.executeSettlement({ commandId: 's1', allocationIds: both, actAs }),
      'allocation_not_found',
    );
    await refused(
      ledger.executeSettlement({
        commandId: 's2',
        allocationIds: [a.allocationId],
        actAs: [venue],
      }),
      'not_authorized',
    );
    await refused(
      ledger.executeSettlement({ commandId: 's3', allocationIds: [], actAs }),
      'invalid_settlement',
    );
    expect(await ledger.ledgerEnd()).toBe(end);
    expect(await ledger.getAllocations(alice)).toHaveLength(1);
    // Bob's withdrawn allocation came back as its own holding beside the change.
    expect(await amountsOf(ledger, bob)).toEqual(['2 CBTC', '3 CBTC']);
  });

  it('refuses allocations of different settlements, or one named twice', async () => {
    const { ledger, alice, bob, venue, settlement, aliceLeg, bobLeg } = await trading();
    const a = await ledger.allocate(aliceLeg());
    const other = { ...settlement, settlementRef: 'trade-2' };
    const b = await ledger.allocate({ ...bobLeg, settlement: other });
    const actAs = [venue, alice, bob];
    const named = { mixed: [a, b], twice: [a, a] };
    for (const [commandId, allocations] of Object.entries(named)) {
      const allocationIds = allocations.map((allocation) => allocation.allocationId);
      await refused(
        ledger.executeSettlement({ commandId, allocationIds, actAs }),
        'invalid_settlement',
      );
    }
  });

  it('is refused from settleBefore on with nothing moved; cancelling then releases', async () => {
    const { ledger, alice, bob, venue, aliceLeg } = await trading();
    const a = await ledger.allocate(aliceLeg());
    await ledger.advanceClock(2 * HOUR_MS);
    const end = await ledger.ledgerEnd();
    const actAs = [venue, alice, bob];
    await refused(
      ledger.executeSettlement({ commandId: 'late', allocationIds: [a.allocationId], actAs }),
      'deadline_passed',
    );
    expect(await ledger.ledgerEnd()).toBe(end);
    expect(await amountsOf(ledger, bob)).toEqual(['5 CBTC']);
    await refused(
      ledger.cancelAllocation({ commandId: 'c0', allocationId: a.allocationId, actAs: [venue] }),
      'not_authorized',
    );
    await ledger.cancelAllocation({ commandId: 'c1', allocationId: a.allocationId, actAs });
    expect(await amountsOf(ledger, alice)).toEqual(['10 USDCx', '20 USDCx', '25 USDCx', '5 USDCx']);
  });
});

describe('withdrawing an allocation', () => {
  it('is the sender’s alone, and gives the amount back unlocked', async () => {
    const { ledger, alice, bob, venue, aliceLeg } = await trading();
    const a = await ledger.allocate(aliceLeg());
    await refused(
      ledger.withdrawAllocation({
        commandId: 'w0',
        allocationId: a.allocationId,
        actAs: [bob, venue],
      }),
      'not_authorized',
    );
    const done = await ledger.withdrawAllocation({
      commandId: 'w1',
      allocationId: a.allocationId,
      actAs: [alice],
    });
    const [update] = await updatesAfter(ledger, done.offset - 1);
    expect(update?.events.map((e) => e.kind)).toEqual(['allocation_withdrawn']);
    expect((await ledger.getHoldings(alice)).every((h) => h.lock === null)).toBe(true);
    await refused(
      ledger.withdrawAllocation({ commandId: 'w2', allocationId: a.allocationId, actAs: [alice] }),
      'allocation_not_found',
    );
  });
});

describe('persistence', () => {
  it('keeps pending allocations and their locks across a restart', async () => {
    const dir = await dataFolder();
    const { ledger, alice, venue, bob, aliceLeg, bobLeg } = await trading(dir);
    const a = await ledger.allocate(aliceLeg());
    const b = await ledger.allocate(bobLeg);
    await ledger.withdrawAllocation({ commandId: 'w', allocationId: b.allocationId, actAs: [bob] });
    const allocations = await ledger.getAllocations(venue);
    const holdings = await ledger.getHoldings(alice);
    await ledger.close();
    const reopened = await open(dir);
    expect(await reopened.getAllocations(venue)).toEqual(allocations);
    expect(await reopened.getHoldings(alice)).toEqual(holdings);
    await reopened.executeSettlement({
      commandId: 'settle',
      allocationIds: [a.allocationId],
      actAs: [venue, alice, bob],
    });
    expect(await amountsOf(reopened, bob)).toEqual(['2 CBTC', '25 USDCx', '3 CBTC']);
  });
});

allocationConformanceSuite({
  name: 'local, in memory',
  open: () => openLocalLedger({ startTime: START }),
  soleWriter: true,
});

allocationConformanceSuite({
  name: 'local, in memory',
  open: () => openLocalLedger({ startTime: START }),
  soleWriter: true,
  externalTraders: true,
});
