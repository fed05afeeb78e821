/**
 * The allocation conformance suite: what `AllocationPort` promises (port.ts), asserted the same
 * way of every adapter that has allocations: holdings, allocations, command outcomes, and the
 * allocation events of the update stream.
 */
import { randomUUID } from 'node:crypto';
import type { Instrument } from '@poolparty/core';
import { afterEach, describe, expect, it } from 'vitest';
import type { LocalLedgerControl } from '../src/local/control.js';
import type { AllocationPort, LedgerPort, SettlementInfo } from '../src/port.js';
import { amount, balanceOf, expectRefused, publicKeyFor, readToEnd } from './conformance.js';

export type AllocationHarnessLedger = LedgerPort & AllocationPort & LocalLedgerControl;

/** Asserts `party` holds `total` of `instrument`, none of it locked: every allocation released. */
async function expectUnlocked(
  ledger: LedgerPort,
  party: string,
  instrument: Instrument,
  total: string,
): Promise<void> {
  expect(await balanceOf(ledger, party, instrument)).toEqual({
    total,
    locked: '0',
    spendable: total,
  });
}

export interface AllocationHarness {
  readonly name: string;
  open(): Promise<AllocationHarnessLedger>;
  /** Nothing but the suite writes: a refused command leaves `ledgerEnd` where it was. */
  readonly soleWriter?: boolean;
  /**
   * The traders are external parties (keys of their own, which the harness holds and signs
   * with); the venue stays local. Off: every party is local.
   */
  readonly externalTraders?: boolean;
}

const HOUR_MS = 60 * 60_000;

/** Alice holds 60 USD, Bob 5 EUR; a venue executes their settlements. */
async function tradingWorld(ledger: AllocationHarnessLedger, externalTraders: boolean) {
  const hint = (label: string) => `${label}-${randomUUID().slice(0, 8)}`;
  const admin = (await ledger.createParty({ hint: hint('registry') })).partyId;
  const usd: Instrument = { admin, id: 'USD' };
  const eur: Instrument = { admin, id: 'EUR' };
  await ledger.createInstrument(usd);
  await ledger.createInstrument(eur);
  const party = async (label: string, seed?: number) =>
    (
      await ledger.createParty({
        hint: hint(label),
        ...(externalTraders && seed !== undefined && { publicKey: publicKeyFor(seed) }),
      })
    ).partyId;
  const [alice, bob, venue] = [
    await party('alice', 21),
    await party('bob', 22),
    await party('venue'),
  ];
  await ledger.mint({ owner: alice, instrument: usd, amount: amount('60') });
  await ledger.mint({ owner: bob, instrument: eur, amount: amount('5') });
  const settlementOf = async (ref: string, allocateInMs = HOUR_MS, settleInMs = 2 * HOUR_MS) => {
    const now = (await ledger.now()).getTime();
    const settlement: SettlementInfo = {
      executor: venue,
      settlementRef: ref,
      requestedAt: new Date(now),
      allocateBefore: new Date(now + allocateInMs),
      settleBefore: new Date(now + settleInMs),
      meta: {},
    };
    return settlement;
  };
  const allocateBoth = async (settlement: SettlementInfo, usdAmount = '25') => {
    const ref = settlement.settlementRef;
    const a = await ledger.allocate({
      commandId: `allocate-${ref}-usd`,
      settlement,
      transferLegId: 'usd',
      leg: { sender: alice, receiver: bob, instrument: usd, amount: amount(usdAmount), meta: {} },
    });
    const b = await ledger.allocate({
      commandId: `allocate-${ref}-eur`,
      settlement,
      transferLegId: 'eur',
      leg: { sender: bob, receiver: alice, instrument: eur, amount: amount('2'), meta: {} },
    });
    return [a.allocationId, b.allocationId] as const;
  };
  return { usd, eur, alice, bob, venue, settlementOf, allocateBoth };
}

export function allocationConformanceSuite(harness: AllocationHarness): void {
  const traders = harness.externalTraders === true ? ', external traders' : '';
  describe(`allocation conformance: ${harness.name}${traders}`, () => {
    const opened: AllocationHarnessLedger[] = [];
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((ledger) => ledger.close()));
    });
    async function open() {
      const ledger = await harness.open();
      opened.push(ledger);
      return { ledger, ...(await tradingWorld(ledger, harness.externalTraders === true)) };
    }
    /** Refused with `code`; when the suite is the sole writer, nothing was written either. */
    async function refusedUnchanged(
      ledger: AllocationHarnessLedger,
      attempt: () => Promise<unknown>,
      code: Parameters<typeof expectRefused>[1],
    ) {
      const end = await ledger.ledgerEnd();
      await expectRefused(attempt(), code);
      if (harness.soleWriter) expect(await ledger.ledgerEnd()).toBe(end);
    }

    it('allocating locks exactly the amount, visible to executor, sender and receiver', async () => {
      const { ledger, usd, alice, bob, venue, settlementOf } = await open();
      const settlement = await settlementOf('t1');
      const command = {
        commandId: 'allocate-t1',
        settlement,
        transferLegId: 'usd',
        leg: { sender: alice, receiver: bob, instrument: usd, amount: amount('25'), meta: {} },
      };
      const before = await ledger.ledgerEnd();
      const outcome = await ledger.allocate(command);
      const [update] = (await readToEnd(ledger, before)).filter((u) => u.offset === outcome.offset);
      expect(update?.events).toEqual([
        {
          kind: 'allocation_created',
          sender: alice,
          receiver: bob,
          instrument: usd,
          amount: amount('25'),
          allocation: (await ledger.getAllocations(alice))[0],
        },
      ]);
      expect(await balanceOf(ledger, alice, usd)).toEqual({
        total: '60',
        locked: '25',
        spendable: '35',
      });
      for (const party of [alice, bob, venue]) {
        const [allocation] = await ledger.getAllocations(party);
        expect(allocation?.allocationId).toBe(outcome.allocationId);
        expect(allocation?.transferLegId).toBe('usd');
        expect(allocation?.leg.amount.toString()).toBe('25');
        expect(allocation?.settlement.settlementRef).toBe('t1');
        expect(allocation?.settlement.settleBefore).toEqual(settlement.settleBefore);
      }
      const locked = (await ledger.getHoldings(alice)).find((h) => h.lock !== null);
      expect((await ledger.getAllocations(alice))[0]?.holdingIds).toEqual([locked?.holdingId]);
      expect(await ledger.allocate(command)).toEqual(outcome);
    });

    it('executing a settlement moves every leg in one update', async () => {
      const { ledger, usd, eur, alice, bob, venue, settlementOf, allocateBoth } = await open();
      const ids = await allocateBoth(await settlementOf('t2'));
      const actAs = [venue, alice, bob];
      const pending = await ledger.getAllocations(venue);
      const before = await ledger.ledgerEnd();
      const done = await ledger.executeSettlement({
        commandId: 'settle-t2',
        allocationIds: ids,
        actAs,
      });
      expect((await ledger.lookupCommand('settle-t2'))?.offset).toBe(done.offset);
      const [update] = (await readToEnd(ledger, before)).filter((u) => u.offset === done.offset);
      expect(update?.events.map((e) => ('allocation' in e ? [e.kind, e.allocation] : e))).toEqual(
        ids.map((id) => ['allocation_executed', pending.find((a) => a.allocationId === id)]),
      );
      await expectUnlocked(ledger, bob, usd, '25');
      await expectUnlocked(ledger, alice, eur, '2');
      expect((await balanceOf(ledger, alice, usd)).total).toBe('35');
      expect(await ledger.getAllocations(venue)).toEqual([]);
    });

    it('refuses a settlement that cannot run whole, moving nothing', async () => {
      const { ledger, usd, eur, alice, bob, venue, settlementOf, allocateBoth } = await open();
      const ids = await allocateBoth(await settlementOf('t3'));
      const actAs = [venue, alice, bob];
      await refusedUnchanged(
        ledger,
        () =>
          ledger.executeSettlement({ commandId: 's3-alone', allocationIds: ids, actAs: [venue] }),
        'not_authorized',
      );
      await ledger.withdrawAllocation({ commandId: 'w3', allocationId: ids[1], actAs: [bob] });
      await refusedUnchanged(
        ledger,
        () => ledger.executeSettlement({ commandId: 's3', allocationIds: ids, actAs }),
        'allocation_not_found',
      );
      expect((await balanceOf(ledger, bob, usd)).total).toBe('0');
      await expectUnlocked(ledger, bob, eur, '5');
      expect(await ledger.getAllocations(venue)).toHaveLength(1);
    });

    it('lets only the sender withdraw, and executor, sender and receiver together cancel', async () => {
      const { ledger, usd, eur, alice, bob, venue, settlementOf, allocateBoth } = await open();
      const [a, b] = await allocateBoth(await settlementOf('t4'));
      await refusedUnchanged(
        ledger,
        () => ledger.withdrawAllocation({ commandId: 'w4-bob', allocationId: a, actAs: [bob] }),
        'not_authorized',
      );
      await ledger.withdrawAllocation({ commandId: 'w4', allocationId: a, actAs: [alice] });
      await refusedUnchanged(
        ledger,
        () => ledger.cancelAllocation({ commandId: 'c4-venue', allocationId: b, actAs: [venue] }),
        'not_authorized',
      );
      await ledger.cancelAllocation({
        commandId: 'c4',
        allocationId: b,
        actAs: [venue, alice, bob],
      });
      await expectUnlocked(ledger, alice, usd, '60');
      await expectUnlocked(ledger, bob, eur, '5');
      expect(await ledger.getAllocations(venue)).toEqual([]);
    });

    it('refuses allocating from allocateBefore and executing from settleBefore on', async () => {
      const { ledger, usd, alice, bob, venue, settlementOf, allocateBoth } = await open();
      const settlement = await settlementOf('t5', 60_000, 120_000);
      const ids = await allocateBoth(settlement, '10');
      await ledger.advanceClock(60_000);
      await refusedUnchanged(
        ledger,
        () =>
          ledger.allocate({
            commandId: 'allocate-t5-late',
            settlement,
            transferLegId: 'late',
            leg: { sender: alice, receiver: bob, instrument: usd, amount: amount('1'), meta: {} },
          }),
        'deadline_passed',
      );
      await ledger.advanceClock(60_000);
      const actAs = [venue, alice, bob];
      await refusedUnchanged(
        ledger,
        () => ledger.executeSettlement({ commandId: 's5', allocationIds: ids, actAs }),
        'deadline_passed',
      );
      expect((await balanceOf(ledger, bob, usd)).total).toBe('0');
      expect(await ledger.getAllocations(venue)).toHaveLength(2);
    });
  });
}
