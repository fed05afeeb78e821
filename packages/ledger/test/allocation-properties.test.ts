/**
 * Executing a settlement on the local ledger, under random legs, withdrawals, clock advances and
 * acting parties: every instrument's holdings still add up to what was minted, and the settlement
 * either moves every leg to its receiver or, refused, changes nothing at all.
 */
import { Amount, type Instrument, instrumentKey } from '@poolparty/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LedgerError, type LocalLedger, openLocalLedger } from '../src/index.js';

const PARTIES = 3;
const INSTRUMENTS = 2;
const HOUR_MS = 60 * 60_000;
const MINTED_WHOLE = 50;

interface Leg {
  readonly sender: number;
  readonly receiver: number;
  readonly instrument: number;
  readonly whole: number;
}

const leg: fc.Arbitrary<Leg> = fc.record({
  sender: fc.nat({ max: PARTIES - 1 }),
  receiver: fc.nat({ max: PARTIES - 1 }),
  instrument: fc.nat({ max: INSTRUMENTS - 1 }),
  whole: fc.integer({ min: 1, max: 40 }),
});

const scenario = fc.record({
  legs: fc.array(leg, { minLength: 1, maxLength: 4 }),
  withdrawn: fc.array(fc.nat({ max: 3 }), { maxLength: 2 }),
  advanceHours: fc.constantFrom(0, 1, 3),
  /** Which of executor, senders, receivers the execution leaves out (none when null). */
  missing: fc.option(fc.nat({ max: PARTIES }), { nil: null }),
});

type Balances = Map<string, Amount>;

async function balances(ledger: LocalLedger, parties: readonly string[]): Promise<Balances> {
  const totals: Balances = new Map();
  for (const party of parties) {
    for (const holding of await ledger.getHoldings(party)) {
      const key = `${party}/${instrumentKey(holding.instrument)}`;
      totals.set(key, (totals.get(key) ?? Amount.ZERO).add(holding.amount));
    }
  }
  return totals;
}

function supply(totals: Balances, instrument: Instrument): Amount {
  const suffix = `/${instrumentKey(instrument)}`;
  return [...totals].reduce(
    (sum, [key, amount]) => (key.endsWith(suffix) ? sum.add(amount) : sum),
    Amount.ZERO,
  );
}

async function setUp() {
  const ledger = await openLocalLedger({ startTime: new Date('2030-01-01T00:00:00Z') });
  const admin = (await ledger.createParty({ hint: 'registry' })).partyId;
  const executor = (await ledger.createParty({ hint: 'venue' })).partyId;
  const parties: string[] = [];
  for (let n = 0; n < PARTIES; n++)
    parties.push((await ledger.createParty({ hint: `p${n}` })).partyId);
  const instruments: Instrument[] = [];
  for (let n = 0; n < INSTRUMENTS; n++) {
    const instrument = { admin, id: `T${n}` };
    await ledger.createInstrument(instrument);
    instruments.push(instrument);
    for (const owner of parties)
      await ledger.mint({ owner, instrument, amount: Amount.of(MINTED_WHOLE) });
  }
  return { ledger, executor, parties, instruments };
}

type World = Awaited<ReturnType<typeof setUp>>;
type Scenario = typeof scenario extends fc.Arbitrary<infer T> ? T : never;
interface Allocated {
  readonly id: string;
  readonly leg: Leg;
}

/** Allocates each leg that its sender can still fund; answers the allocations made. */
async function allocateLegs(world: World, legs: readonly Leg[]): Promise<Allocated[]> {
  const { ledger, executor, parties, instruments } = world;
  const now = (await ledger.now()).getTime();
  const settlement = {
    executor,
    settlementRef: 'trade',
    requestedAt: new Date(now),
    allocateBefore: new Date(now + HOUR_MS),
    settleBefore: new Date(now + 2 * HOUR_MS),
    meta: {},
  };
  const allocated: Allocated[] = [];
  for (const [index, l] of legs.entries()) {
    const outcome = await ledger
      .allocate({
        commandId: `allocate-${index}`,
        settlement,
        transferLegId: `leg-${index}`,
        leg: {
          sender: parties[l.sender] ?? '',
          receiver: parties[l.receiver] ?? '',
          instrument: instruments[l.instrument] as Instrument,
          amount: Amount.of(l.whole),
          meta: {},
        },
      })
      .catch((error: unknown) => {
        // A sender whose earlier legs took its holdings cannot fund this one.
        if (error instanceof LedgerError && error.code === 'insufficient_holdings') return null;
        throw error;
      });
    if (outcome !== null) allocated.push({ id: outcome.allocationId, leg: l });
  }
  return allocated;
}

/** Whether the rules let the settlement run: every allocation pending, in time, authorized. */
function runs(scenario: Scenario, allocated: readonly Allocated[]): boolean {
  const withdrawnOne = [...new Set(scenario.withdrawn)].some((i) => allocated[i] !== undefined);
  const involved = new Set(allocated.flatMap((a) => [a.leg.sender, a.leg.receiver]));
  const { missing } = scenario;
  const authorized = missing === null || (missing > 0 && !involved.has(missing - 1));
  return allocated.length > 0 && !withdrawnOne && scenario.advanceHours < 2 && authorized;
}

/** The balances after every leg moved from its sender to its receiver. */
function movedBalances(world: World, before: Balances, allocated: readonly Allocated[]) {
  const moved = new Map(before);
  for (const { leg: l } of allocated) {
    const instrument = world.instruments[l.instrument] as Instrument;
    const key = (p: number) => `${world.parties[p]}/${instrumentKey(instrument)}`;
    const amount = Amount.of(l.whole);
    moved.set(key(l.sender), (moved.get(key(l.sender)) ?? Amount.ZERO).sub(amount));
    moved.set(key(l.receiver), (moved.get(key(l.receiver)) ?? Amount.ZERO).add(amount));
  }
  return moved;
}

const text = (totals: Balances) =>
  Object.fromEntries([...totals].map(([k, v]) => [k, v.toString()]).filter(([, v]) => v !== '0'));

async function checkScenario(world: World, scenario: Scenario): Promise<void> {
  const { ledger, executor, parties, instruments } = world;
  const allocated = await allocateLegs(world, scenario.legs);
  for (const index of new Set(scenario.withdrawn)) {
    const target = allocated[index];
    if (target === undefined) continue;
    const sender = parties[target.leg.sender] ?? '';
    const command = { commandId: `withdraw-${index}`, allocationId: target.id, actAs: [sender] };
    await ledger.withdrawAllocation(command);
  }
  if (scenario.advanceHours > 0) await ledger.advanceClock(scenario.advanceHours * HOUR_MS);
  const everyone = [executor, ...parties];
  const actAs = everyone.filter((_, n) => n !== scenario.missing);
  const before = await balances(ledger, parties);
  const endBefore = await ledger.ledgerEnd();
  const allocationIds = allocated.map((a) => a.id);
  const settled = await ledger
    .executeSettlement({ commandId: 'settle', allocationIds, actAs })
    .then(
      () => true,
      (error: unknown) => {
        if (error instanceof LedgerError) return false;
        throw error;
      },
    );
  const after = await balances(ledger, parties);
  for (const instrument of instruments) {
    expect(supply(after, instrument).toString()).toBe(Amount.of(MINTED_WHOLE * PARTIES).toString());
  }
  expect(settled).toBe(runs(scenario, allocated));
  if (!settled) {
    expect(after).toEqual(before);
    expect(await ledger.ledgerEnd()).toBe(endBefore);
    return;
  }
  expect(text(after)).toEqual(text(movedBalances(world, before, allocated)));
  expect((await ledger.lookupCommand('settle'))?.offset).toBe(endBefore + 1);
  expect(await ledger.getAllocations(executor)).toEqual([]);
}

describe('executing a settlement', () => {
  it('conserves every instrument and moves every leg or none', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (drawn) => {
        const world = await setUp();
        try {
          await checkScenario(world, drawn);
        } finally {
          await world.ledger.close();
        }
      }),
      { numRuns: 60 },
    );
  });
});
