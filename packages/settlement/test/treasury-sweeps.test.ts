/**
 * Treasury sweeps, exactly once: a sweep moves exactly a side's sweepable fees from the pool's
 * swap party to the treasury party, once, whatever crashes, retries or duplicate deliveries come
 * between; developers' uncollected earnings stay; an offer the treasury leaves or refuses, or a
 * command the ledger keeps refusing, returns the amount to the fees; and the books keep equalling
 * the swap party's holdings.
 */
import { Amount } from '@poolparty/core';
import {
  collectableEarnings,
  getCommand,
  getPool,
  getSweep,
  type SweepRecord,
} from '@poolparty/store';
import { describe, expect, it } from 'vitest';
import { recordCollection } from '../src/collections.js';
import type { EngineStep } from '../src/index.js';
import {
  finishSweep,
  type SideSweep,
  sweepableNow,
  sweepDueSides,
  sweepPoolNow,
  type TreasuryTarget,
} from '../src/treasury.js';
import {
  completedSwap,
  type EngineHarness,
  type Party,
  startedWithCompletedSwap,
  useEngineWorld,
  waitFor,
} from '../testing/engine.js';
import { acrossACrashAt, refusingTransfers } from '../testing/faults.js';

const world = useEngineWorld();

const POOL = 'amulet-usdcx';
const DAY_MS = 24 * 3_600_000;

/** A treasury that pre-approves both instruments of the pool: sweeps arrive at once. */
async function treasuryOf(h: EngineHarness, preapproving = true): Promise<TreasuryTarget> {
  const party = await h.newParty('treasury', preapproving ? [h.amulet, h.usdcx] : []);
  return { treasuryParty: party.partyId, networkReserve: {} };
}

async function sweepable(h: EngineHarness, target: TreasuryTarget) {
  const pool = await getPool(h.db, POOL);
  if (pool === null) throw new Error('no pool');
  return sweepableNow(h.db, pool, target.networkReserve);
}

function recordedOf(sides: readonly SideSweep[]): SweepRecord[] {
  return sides.flatMap((side) => (side.kind === 'recorded' ? [side.sweep] : []));
}

async function sweepA(h: EngineHarness, target: TreasuryTarget): Promise<SweepRecord> {
  const [sweep, ...others] = recordedOf(
    await sweepPoolNow(h.db, { poolId: POOL, target, now: h.clock.now() }),
  );
  expect(others).toEqual([]);
  if (sweep === undefined) throw new Error('nothing was swept');
  expect(sweep.side).toBe('a');
  return sweep;
}

async function settled(h: EngineHarness, sweepId: string): Promise<SweepRecord> {
  return waitFor(async () => {
    const found = await getSweep(h.db, sweepId);
    return found !== null && (found.status === 'swept' || found.status === 'returned')
      ? found
      : null;
  }, `sweep ${sweepId} to settle`);
}

function developerOwed(h: EngineHarness): Promise<Amount> {
  return collectableEarnings(h.db, h.seed.developer.partyId, POOL, 'a');
}

async function feesA(h: EngineHarness): Promise<Amount> {
  const pool = await getPool(h.db, POOL);
  return pool?.accounting.feesA ?? Amount.ZERO;
}

describe('a treasury sweep', () => {
  it("moves exactly the side's sweepable fees to the treasury, and the books keep the holdings", async () => {
    const h = await world.harness();
    await startedWithCompletedSwap(h);
    await completedSwap(h);
    const target = await treasuryOf(h);
    const before = await sweepable(h, target);
    expect(before.a.isPositive()).toBe(true);
    // Nothing was charged in USDCx: its side has nothing to sweep.
    expect(before.b).toEqual(Amount.ZERO);
    const owed = await developerOwed(h);
    expect(before.a).toEqual((await feesA(h)).sub(owed));

    const sweep = await sweepA(h, target);
    expect(sweep.amount).toEqual(before.a);
    expect((await settled(h, sweep.sweepId)).status).toBe('swept');
    expect(await h.balance(target.treasuryParty, h.amulet)).toEqual(before.a);
    expect(await h.transfersWithReason(`sweep:${sweep.sweepId}`)).toBe(1);
    expect((await sweepable(h, target)).a).toEqual(Amount.ZERO);
    // What stays in the fees is exactly what developers can still collect.
    expect(await feesA(h)).toEqual(owed);
    await h.caughtUp();
    await h.booksMatchLedger();
    const report = await h.engine?.reconcileNow();
    expect(report?.runs.find((run) => run.poolId === POOL)?.ok).toBe(true);
    // A second sweep finds nothing.
    expect(
      recordedOf(await sweepPoolNow(h.db, { poolId: POOL, target, now: h.clock.now() })),
    ).toEqual([]);
  });

  it("never takes developers' uncollected earnings: they can all be collected after it", async () => {
    const h = await world.harness();
    await startedWithCompletedSwap(h);
    const target = await treasuryOf(h);
    const owed = await developerOwed(h);
    expect(owed.isPositive()).toBe(true);
    await settled(h, (await sweepA(h, target)).sweepId);

    const before = await h.balance(h.seed.developer, h.amulet);
    const collection = await recordCollection(h.db, {
      developerParty: h.seed.developer.partyId,
      poolId: POOL,
      instrument: h.amulet,
      now: h.clock.now(),
    });
    expect(collection.amount).toEqual(owed);
    await waitFor(
      async () => (await h.balance(h.seed.developer, h.amulet)).gt(before),
      'collection',
    );
    expect(await h.balance(h.seed.developer, h.amulet)).toEqual(before.add(owed));
    expect(await feesA(h)).toEqual(Amount.ZERO);
    await h.caughtUp();
    await h.booksMatchLedger();
  });

  it('keeps the network reserve in the fees', async () => {
    const h = await world.harness();
    await startedWithCompletedSwap(h);
    const target = { ...(await treasuryOf(h)), networkReserve: { Amulet: Amount.parse('2') } };
    const sweep = await sweepA(h, target);
    await settled(h, sweep.sweepId);
    expect(await feesA(h)).toEqual((await developerOwed(h)).add(Amount.parse('2')));
  });

  it('a second delivery of its confirmation changes nothing', async () => {
    const h = await world.harness();
    await startedWithCompletedSwap(h);
    const target = await treasuryOf(h);
    const sweep = await settled(h, (await sweepA(h, target)).sweepId);
    await h.caughtUp();
    const booksBefore = (await getPool(h.db, POOL))?.accounting;
    const command = await getCommand(h.db, sweep.commandId);
    if (command === null) throw new Error('no command');
    await h.db.transaction((tx) =>
      finishSweep(
        tx,
        command,
        { updateId: sweep.updateId ?? '', feesBurned: Amount.ZERO },
        h.clock.now(),
      ),
    );
    const booksAfter = (await getPool(h.db, POOL))?.accounting;
    expect({ ...booksAfter, version: 0, updatedAt: null }).toEqual({
      ...booksBefore,
      version: 0,
      updatedAt: null,
    });
    expect((await getSweep(h.db, sweep.sweepId))?.status).toBe('swept');
    await h.booksMatchLedger();
  });

  it('duplicate deliveries, dropped streams, refusals and timeouts after commit sweep once', async () => {
    const h = await world.harness();
    await h.startEngine({ settings: { payoutAttemptsMax: 50 } });
    await h.caughtUp();
    await completedSwap(h);
    const target = await treasuryOf(h);
    const expected = (await sweepable(h, target)).a;
    h.ledger.setFaults({
      duplicateDeliveryRate: 0.5,
      dropStreamRate: 0.2,
      rejectRate: 0.3,
      timeoutAfterCommitRate: 0.5,
      seed: 11,
    });
    const sweep = await sweepA(h, target);
    expect((await settled(h, sweep.sweepId)).status).toBe('swept');
    h.ledger.setFaults({});
    expect(await h.balance(target.treasuryParty, h.amulet)).toEqual(expected);
    expect(await h.transfersWithReason(`sweep:${sweep.sweepId}`)).toBe(1);
    await h.caughtUp();
    await h.booksMatchLedger();
  });
});

describe('a sweep that does not arrive returns to the fees', () => {
  async function offeredSweep(h: EngineHarness) {
    await startedWithCompletedSwap(h);
    // A treasury that pre-approves nothing: a sweep to it is an offer it must accept.
    const target = await treasuryOf(h, false);
    const fees = await feesA(h);
    const sweep = await sweepA(h, target);
    const offered = await waitFor(async () => {
      const found = await getSweep(h.db, sweep.sweepId);
      return found?.status === 'offered' ? found : null;
    }, 'the sweep offer');
    return { target, fees, offered };
  }

  it('an offer the treasury leaves unanswered is withdrawn after its deadline', async () => {
    const h = await world.harness();
    const { target, fees, offered } = await offeredSweep(h);
    if (offered.offerExpiresAt === null) throw new Error('an offer without a deadline');
    await h.advanceClock(offered.offerExpiresAt.getTime() - h.clock.now().getTime() + 1);
    const returned = await settled(h, offered.sweepId);
    expect(returned.status).toBe('returned');
    expect(await h.ledger.getPendingOffers(target.treasuryParty)).toEqual([]);
    expect(await h.balance(target.treasuryParty, h.amulet)).toEqual(Amount.ZERO);
    expect(await feesA(h)).toEqual(fees);
    await h.caughtUp();
    await h.booksMatchLedger();
    // Sweepable again.
    expect((await sweepable(h, target)).a).toEqual(offered.amount);
  });

  it('an offer the treasury rejects', async () => {
    const h = await world.harness();
    const { target, fees, offered } = await offeredSweep(h);
    await h.ledger.rejectOffer({
      commandId: `treasury-rejects-${offered.sweepId}`,
      offerId: offered.offerId ?? '',
      actor: target.treasuryParty,
    });
    expect((await settled(h, offered.sweepId)).status).toBe('returned');
    expect(await feesA(h)).toEqual(fees);
    await h.caughtUp();
    await h.booksMatchLedger();
  });

  it('an offer the treasury accepts arrives', async () => {
    const h = await world.harness();
    const { target, offered } = await offeredSweep(h);
    await h.ledger.acceptOffer({
      commandId: `treasury-accepts-${offered.sweepId}`,
      offerId: offered.offerId ?? '',
      actor: target.treasuryParty,
    });
    expect((await settled(h, offered.sweepId)).status).toBe('swept');
    expect(await h.balance(target.treasuryParty, h.amulet)).toEqual(offered.amount);
    await h.caughtUp();
    await h.booksMatchLedger();
  });

  it('a sweep the ledger keeps refusing', async () => {
    const h = await world.harness();
    await startedWithCompletedSwap(h);
    await h.stopEngine();
    await h.startEngine({ ledger: refusingTransfers(h.ledger) });
    const target = await treasuryOf(h);
    const fees = await feesA(h);
    const sweep = await sweepA(h, target);
    const done = await settled(h, sweep.sweepId);
    expect(done.status).toBe('returned');
    expect(done.error).toMatch(/could not be sent/);
    expect(await h.balance(target.treasuryParty, h.amulet)).toEqual(Amount.ZERO);
    expect(await feesA(h)).toEqual(fees);
    await h.booksMatchLedger();
  });
});

describe('a crash between recording a sweep and its confirmation: swept once', () => {
  const steps: readonly EngineStep[] = ['command_recorded', 'command_submitted', 'update_ingested'];
  for (const step of steps) {
    it(`crash at ${step}, then a restart`, async () => {
      const h = await world.harness();
      await startedWithCompletedSwap(h);
      await h.caughtUp();
      await h.stopEngine();
      const target = await treasuryOf(h);
      const expected = (await sweepable(h, target)).a;

      const sweep = await acrossACrashAt(h, step, async (crashing) => {
        const recorded = await sweepA(h, target);
        crashing.poke();
        return recorded;
      });

      expect((await settled(h, sweep.sweepId)).status).toBe('swept');
      expect(await h.balance(target.treasuryParty, h.amulet)).toEqual(expected);
      expect(await h.transfersWithReason(`sweep:${sweep.sweepId}`)).toBe(1);
      await h.caughtUp();
      await h.booksMatchLedger();
    });
  }
});

describe('the automatic schedule', () => {
  async function withFees(h: EngineHarness): Promise<{ target: TreasuryTarget; treasury: Party }> {
    await startedWithCompletedSwap(h);
    const target = await treasuryOf(h);
    return { target, treasury: { partyId: target.treasuryParty } };
  }

  it('sweeps a side above its threshold, not one below, and a side once per interval', async () => {
    const h = await world.harness();
    const { target, treasury } = await withFees(h);
    const amount = (await sweepable(h, target)).a;
    const schedule = (threshold: Amount) => ({
      thresholds: { Amulet: threshold, '*': Amount.parse('1000000') },
      intervalMs: DAY_MS,
      poolsPerRoundMax: 10,
    });
    const round = (threshold: Amount) =>
      sweepDueSides(h.db, { target, schedule: schedule(threshold), now: h.clock.now() });

    // At the threshold: not above it, nothing moves.
    const below = await round(amount);
    expect(recordedOf(below)).toEqual([]);
    expect(below.find((s) => s.poolId === POOL && s.side === 'a')?.kind).toBe('below_threshold');

    const above = recordedOf(await round(amount.sub(Amount.parse('0.0000000001'))));
    expect(above.map((s) => [s.poolId, s.side, s.amount, s.trigger])).toEqual([
      [POOL, 'a', amount, 'automatic'],
    ]);
    const [sweep] = above;
    await settled(h, sweep?.sweepId ?? '');
    expect(await h.balance(treasury, h.amulet)).toEqual(amount);

    // More fees accrue, but the side was swept less than a day ago.
    await completedSwap(h);
    const again = await round(Amount.ZERO);
    expect(again.find((s) => s.poolId === POOL && s.side === 'a')?.kind).toBe('not_yet_due');
    await h.advanceClock(DAY_MS);
    expect(recordedOf(await round(Amount.ZERO)).map((s) => [s.poolId, s.side])).toEqual([
      [POOL, 'a'],
    ]);
  });

  it('looks at no more pools a round than its limit, least recently swept first', async () => {
    const h = await world.harness();
    const { target } = await withFees(h);
    const schedule = { thresholds: {}, intervalMs: DAY_MS, poolsPerRoundMax: 1 };
    const first = await sweepDueSides(h.db, { target, schedule, now: h.clock.now() });
    expect(new Set(first.map((s) => s.poolId)).size).toBe(1);
  });
});
