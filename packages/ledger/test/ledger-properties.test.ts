/**
 * Supply conservation of the local ledger under random traffic: whatever sequence of transfers,
 * offers and their endings, clock advances past deadlines, mints and burns runs, every
 * instrument's holdings add up to minted − burned, nothing goes negative, locks mirror pending
 * offers exactly (expired ones included: only an accept is refused after the deadline), and a
 * refused command changes nothing.
 */
import {
  AMOUNT_SCALE,
  Amount,
  type Instrument,
  instrumentKey,
  sameInstrument,
} from '@poolparty/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { openLocalLedger } from '../src/index.js';
import type { LocalLedger } from '../src/local/control.js';
import { LedgerError, type LedgerErrorCode, REASON_META_KEY } from '../src/port.js';
import { partiesState } from '../testing/conformance.js';

const OFFER_LIFETIME_MS = 60 * 60_000;
const MINUTE_MS = 60_000;

type Op =
  | { kind: 'mint' | 'burn'; party: number; instrument: number; units: bigint }
  | {
      kind: 'transfer';
      sender: number;
      receiver: number;
      instrument: number;
      units: bigint;
      lifetimeMinutes: number | null;
    }
  | { kind: 'accept' | 'reject' | 'withdraw'; offer: number; actor: number | null }
  | { kind: 'advance'; minutes: number }
  | { kind: 'preapprove'; party: number; instrument: number; enabled: boolean };

const PARTIES = 3;
const party = fc.nat({ max: PARTIES - 1 });
const instrument = fc.nat({ max: 1 });
/** Whole and fractional amounts, now and then zero or the smallest unit. */
const units = (wholeMax: bigint) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.bigInt({ min: 1n, max: wholeMax * AMOUNT_SCALE }) },
    { weight: 4, arbitrary: fc.bigInt({ min: 1n, max: wholeMax }).map((n) => n * AMOUNT_SCALE) },
    { weight: 1, arbitrary: fc.constantFrom(0n, 1n) },
  );

const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('mint' as const),
      party,
      instrument,
      units: units(100n),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('burn' as const),
      party,
      instrument,
      units: units(40n),
    }),
  },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('transfer' as const),
      sender: party,
      receiver: party,
      instrument,
      units: units(60n),
      lifetimeMinutes: fc.option(fc.integer({ min: 5, max: 120 })),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constantFrom('accept' as const, 'reject' as const, 'withdraw' as const),
      offer: fc.nat(),
      // null: the party entitled to the choice; otherwise anyone, often the wrong one.
      actor: fc.option(party, { freq: 3 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('advance' as const),
      minutes: fc.integer({ min: 1, max: 90 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('preapprove' as const),
      party,
      instrument,
      enabled: fc.boolean(),
    }),
  },
);

/** Every user starts with 40 of each instrument, so most transfers can go through. */
const ENDOWMENT: readonly Op[] = [0, 1, 2].flatMap((party) =>
  [0, 1].map((instrument) => ({
    kind: 'mint' as const,
    party,
    instrument,
    units: 40n * AMOUNT_SCALE,
  })),
);

interface ModelOffer {
  readonly sender: string;
  readonly receiver: string;
  readonly instrument: Instrument;
  readonly units: bigint;
  readonly executeBefore: Date;
}

/** What the ledger must hold, kept from the outcomes the ledger reported. */
class Model {
  readonly owned = new Map<string, bigint>();
  readonly supply = new Map<string, bigint>();
  readonly offers = new Map<string, ModelOffer>();
  readonly everOffered: string[] = [];
  readonly preapproved = new Set<string>();

  private key(party: string, instrument: Instrument): string {
    return `${party}|${instrumentKey(instrument)}`;
  }
  ownedBy(party: string, instrument: Instrument): bigint {
    return this.owned.get(this.key(party, instrument)) ?? 0n;
  }
  lockedOf(party: string, instrument: Instrument): bigint {
    let locked = 0n;
    for (const offer of this.offers.values()) {
      if (offer.sender === party && sameInstrument(offer.instrument, instrument)) {
        locked += offer.units;
      }
    }
    return locked;
  }
  spendable(party: string, instrument: Instrument): bigint {
    return this.ownedBy(party, instrument) - this.lockedOf(party, instrument);
  }
  move(party: string, instrument: Instrument, delta: bigint): void {
    const key = this.key(party, instrument);
    this.owned.set(key, (this.owned.get(key) ?? 0n) + delta);
  }
  changeSupply(instrument: Instrument, delta: bigint): void {
    const key = instrumentKey(instrument);
    this.supply.set(key, (this.supply.get(key) ?? 0n) + delta);
  }
  preapproves(party: string, instrument: Instrument): boolean {
    return this.preapproved.has(this.key(party, instrument));
  }
  setPreapproval(party: string, instrument: Instrument, enabled: boolean): void {
    if (enabled) this.preapproved.add(this.key(party, instrument));
    else this.preapproved.delete(this.key(party, instrument));
  }
}

interface Scene {
  readonly ledger: LocalLedger;
  readonly users: readonly string[];
  readonly everyone: readonly string[];
  readonly instruments: readonly Instrument[];
  readonly model: Model;
  commandId(): string;
}

async function openScene(): Promise<Scene> {
  const ledger = await openLocalLedger({ offerLifetimeMs: OFFER_LIFETIME_MS });
  const adminA = (await ledger.createParty({ hint: 'registry-a' })).partyId;
  const adminB = (await ledger.createParty({ hint: 'registry-b' })).partyId;
  const instruments = [
    { admin: adminA, id: 'USDCx' },
    { admin: adminB, id: 'USDCx' },
  ] as const;
  for (const i of instruments) await ledger.createInstrument(i);
  const model = new Model();
  const users: string[] = [];
  const approvals: (readonly Instrument[] | 'all')[] = ['all', [instruments[0]], []];
  for (const [n, preapprovals] of approvals.entries()) {
    const { partyId } = await ledger.createParty({ hint: `user-${n}`, preapprovals });
    users.push(partyId);
    const approved = preapprovals === 'all' ? instruments : preapprovals;
    for (const i of approved) model.setPreapproval(partyId, i, true);
  }
  let sequence = 0;
  return {
    ledger,
    users,
    everyone: [adminA, adminB, ...users],
    instruments,
    model,
    commandId: () => `cmd-${++sequence}`,
  };
}

/** The refusal codes a command may end in, or null when the model says it must commit. */
type Expectation = readonly LedgerErrorCode[] | null;

function pick<T>(items: readonly T[], index: number): T {
  const item = items[index % items.length];
  if (item === undefined) throw new Error('picked from an empty list');
  return item;
}

async function runOp(scene: Scene, step: Op): Promise<void> {
  const { ledger, model, users } = scene;
  switch (step.kind) {
    case 'mint': {
      const owner = pick(users, step.party);
      const instrument = pick(scene.instruments, step.instrument);
      const amount = Amount.fromUnits(step.units);
      // Minting nothing is not specified; it may be refused but must not change supply.
      const expectation = step.units === 0n ? (['invalid_amount'] as const) : null;
      await attempt(
        scene,
        expectation,
        async () => {
          await ledger.mint({ owner, instrument, amount, commandId: scene.commandId() });
          model.move(owner, instrument, step.units);
          model.changeSupply(instrument, step.units);
        },
        step.units === 0n,
      );
      return;
    }
    case 'burn': {
      const owner = pick(users, step.party);
      const instrument = pick(scene.instruments, step.instrument);
      const expectation = refusalOfSpend(model.spendable(owner, instrument), step.units);
      await attempt(
        scene,
        expectation,
        async () => {
          const amount = Amount.fromUnits(step.units);
          await ledger.burn({ owner, instrument, amount, commandId: scene.commandId() });
          model.move(owner, instrument, -step.units);
          model.changeSupply(instrument, -step.units);
        },
        step.units === 0n,
      );
      return;
    }
    case 'transfer':
      return runTransfer(scene, step);
    case 'accept':
    case 'reject':
    case 'withdraw':
      return runOfferChoice(scene, step);
    case 'advance':
      return runAdvance(scene, step.minutes);
    case 'preapprove': {
      // User 0 pre-approves everything; the others toggle one instrument at a time.
      const receiver = pick(users.slice(1), step.party);
      const instrument = pick(scene.instruments, step.instrument);
      await ledger.setPreapproval(receiver, instrument, step.enabled);
      model.setPreapproval(receiver, instrument, step.enabled);
      return;
    }
  }
}

function refusalOfSpend(spendable: bigint, units: bigint): Expectation {
  if (units === 0n) return ['invalid_amount'];
  return spendable < units ? ['insufficient_holdings'] : null;
}

async function runTransfer(scene: Scene, step: Extract<Op, { kind: 'transfer' }>) {
  const { ledger, model, users } = scene;
  const sender = pick(users, step.sender);
  // Never to oneself: a self-transfer's semantics are not part of the port.
  const receiver = pick(users, step.sender + 1 + (step.receiver % (PARTIES - 1)));
  const instrument = pick(scene.instruments, step.instrument);
  const direct = model.preapproves(receiver, instrument);
  const expectation = refusalOfSpend(model.spendable(sender, instrument), step.units);
  const executeBefore =
    step.lifetimeMinutes === null
      ? undefined
      : new Date((await ledger.now()).getTime() + step.lifetimeMinutes * MINUTE_MS);
  await attempt(scene, expectation, async () => {
    const outcome = await ledger.submitTransfer({
      commandId: scene.commandId(),
      sender,
      receiver,
      instrument,
      amount: Amount.fromUnits(step.units),
      meta: { [REASON_META_KEY]: 'property' },
      ...(executeBefore ? { executeBefore } : {}),
    });
    expect(outcome.kind).toBe(direct ? 'direct' : 'offer');
    if (outcome.kind === 'offer') {
      const offered = (await ledger.getPendingOffers(receiver)).find(
        (o) => o.offerId === outcome.offerId,
      );
      if (!offered) throw new Error(`offer ${outcome.offerId} is not pending`);
      const { executeBefore: deadline } = offered;
      if (executeBefore) expect(deadline).toEqual(executeBefore);
      model.offers.set(outcome.offerId, {
        sender,
        receiver,
        instrument,
        units: step.units,
        executeBefore: deadline,
      });
      model.everOffered.push(outcome.offerId);
    } else {
      model.move(sender, instrument, -step.units);
      model.move(receiver, instrument, step.units);
    }
  });
}

async function runOfferChoice(
  scene: Scene,
  step: Extract<Op, { kind: 'accept' | 'reject' | 'withdraw' }>,
) {
  const { ledger, model } = scene;
  if (model.everOffered.length === 0) return;
  // Mostly the latest offers: older ones have usually ended already.
  const recent = model.everOffered.slice(-3);
  const offerId = pick(step.offer % 4 === 0 ? model.everOffered : recent, step.offer);
  const offer = model.offers.get(offerId);
  const entitled = step.kind === 'withdraw' ? offer?.sender : offer?.receiver;
  const actor =
    step.actor === null ? (entitled ?? pick(scene.users, 0)) : pick(scene.users, step.actor);
  // Deadlines and advances are whole minutes, so the real time passing between this reading and
  // the command cannot cross a deadline.
  const expired = offer !== undefined && (await ledger.now()) >= offer.executeBefore;
  let expectation: Expectation = null;
  if (!offer) expectation = ['offer_not_found'];
  else if (actor !== entitled) expectation = ['not_authorized'];
  else if (step.kind === 'accept' && expired) expectation = ['offer_expired'];
  const choice = {
    accept: ledger.acceptOffer,
    reject: ledger.rejectOffer,
    withdraw: ledger.withdrawOffer,
  }[step.kind];
  await attempt(scene, expectation, async () => {
    await choice.call(ledger, { commandId: scene.commandId(), offerId, actor });
    if (!offer) return;
    model.offers.delete(offerId);
    if (step.kind === 'accept') {
      model.move(offer.sender, offer.instrument, -offer.units);
      model.move(offer.receiver, offer.instrument, offer.units);
    }
  });
}

async function pendingDeadlines(scene: Scene): Promise<Map<string, Date>> {
  const deadlines = new Map<string, Date>();
  for (const party of scene.users) {
    for (const offer of await scene.ledger.getPendingOffers(party)) {
      deadlines.set(offer.offerId, offer.executeBefore);
    }
  }
  return deadlines;
}

/** Time alone ends no offer: every pending one, past its deadline or not, stays as it was. */
async function runAdvance(scene: Scene, minutes: number): Promise<void> {
  const before = await pendingDeadlines(scene);
  await scene.ledger.advanceClock(minutes * MINUTE_MS);
  expect(await pendingDeadlines(scene)).toEqual(before);
}

/**
 * Runs `commit` and checks it against the expectation: a command the model allows must
 * commit; one it refuses must end in a `LedgerError` with one of the listed codes and leave the
 * ledger exactly as it was (`mayCommit`: the command may also commit).
 */
async function attempt(
  scene: Scene,
  expectation: Expectation,
  commit: () => Promise<void>,
  mayCommit = false,
): Promise<void> {
  const before = await snapshot(scene);
  try {
    await commit();
  } catch (error) {
    if (!(error instanceof LedgerError)) throw error;
    expect(expectation, `refused unexpectedly: ${error.code} ${error.message}`).not.toBeNull();
    expect(expectation).toContain(error.code);
    expect(await snapshot(scene)).toEqual(before);
    return;
  }
  if (!mayCommit) expect(expectation, 'committed a command that had to be refused').toBeNull();
}

async function snapshot(scene: Scene) {
  return {
    end: await scene.ledger.ledgerEnd(),
    parties: await partiesState(scene.ledger, scene.everyone),
  };
}

async function checkInvariants(scene: Scene): Promise<void> {
  const { ledger, model } = scene;
  const supply = new Map<string, bigint>();
  const lockedByOffer = new Map<string, bigint>();
  for (const owner of scene.everyone) {
    for (const holding of await ledger.getHoldings(owner)) {
      expect(holding.owner).toBe(owner);
      expect(holding.amount.units >= 0n, `negative holding ${holding.holdingId}`).toBe(true);
      const key = instrumentKey(holding.instrument);
      supply.set(key, (supply.get(key) ?? 0n) + holding.amount.units);
      if (holding.lock) {
        // The local ledger always knows which offer a lock is for.
        const id = holding.lock.offerId;
        if (id === null) throw new Error(`lock of ${holding.holdingId} names no offer`);
        const offer = model.offers.get(id);
        expect(offer?.sender, `lock for a settled offer ${id}`).toBe(owner);
        expect(offer && sameInstrument(offer.instrument, holding.instrument)).toBe(true);
        lockedByOffer.set(id, (lockedByOffer.get(id) ?? 0n) + holding.amount.units);
      }
    }
    for (const instrument of scene.instruments) {
      expect(await ownedUnits(scene, owner, instrument)).toBe(model.ownedBy(owner, instrument));
    }
  }
  for (const instrument of scene.instruments) {
    const key = instrumentKey(instrument);
    expect(supply.get(key) ?? 0n, `supply of ${key}`).toBe(model.supply.get(key) ?? 0n);
  }
  const modelLocks = new Map([...model.offers].map(([id, offer]) => [id, offer.units]));
  expect(lockedByOffer).toEqual(modelLocks);
  for (const party of scene.everyone) {
    const pending = (await ledger.getPendingOffers(party)).map((o) => o.offerId).sort();
    const expected = [...model.offers]
      .filter(([, o]) => o.sender === party || o.receiver === party)
      .map(([id]) => id)
      .sort();
    expect(pending).toEqual(expected);
  }
}

async function ownedUnits(scene: Scene, owner: string, instrument: Instrument): Promise<bigint> {
  const holdings = await scene.ledger.getHoldings(owner);
  return holdings
    .filter((h) => sameInstrument(h.instrument, instrument))
    .reduce((sum, h) => sum + h.amount.units, 0n);
}

describe('local ledger supply', () => {
  it('conserves every instrument under any sequence of commands', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 30, size: 'max' }), async (ops) => {
        const scene = await openScene();
        try {
          for (const step of [...ENDOWMENT, ...ops]) {
            await runOp(scene, step);
            await checkInvariants(scene);
          }
        } finally {
          await scene.ledger.close();
        }
      }),
      { numRuns: 80 },
    );
  });
});
