/**
 * The ledger-port conformance suite (docs/spec/ledger.md#adapters: every adapter passes the same
 * suite). Every adapter runs it through a `LedgerHarness`; it asserts only what `port.ts`
 * and `local/control.ts` document, so a `canton` harness can run it unchanged.
 */
import { randomUUID } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519.js';
import {
  Amount,
  AmountParseError,
  AmountRangeError,
  fingerprint,
  type Instrument,
  sameInstrument,
} from '@poolparty/core';
import { afterEach, describe, expect, it } from 'vitest';
import type { LocalLedgerControl } from '../src/local/control.js';
import {
  LedgerError,
  type LedgerErrorCode,
  type LedgerEvent,
  type LedgerPort,
  type LedgerUpdate,
  META_CHARS_MAX,
  META_ENTRIES_MAX,
  type Meta,
  type Offset,
  REASON_META_KEY,
  type TransferOffer,
} from '../src/port.js';

/**
 * The port plus the setup a test needs. The local ledger is one as it is; a `canton` harness
 * implements the same controls through the participant's administration (party allocation, a
 * test registry for instruments and minting, a static-time clock).
 */
export type HarnessLedger = LedgerPort & LocalLedgerControl;

export interface LedgerHarness {
  readonly name: string;
  open(): Promise<HarnessLedger>;
  /**
   * Opens the state `previous` persisted; the suite has closed `previous` before. Omitted when
   * the adapter cannot restart.
   */
  reopen?(previous: HarnessLedger): Promise<HarnessLedger>;
  /** Whether `setFaults` injects faults; the fault cases are skipped otherwise. */
  readonly faults?: boolean;
  /**
   * Nothing but the suite writes to this ledger: offsets then count the suite's updates one by
   * one, and a refused command leaves `ledgerEnd` where it was. A participant shared with
   * others only promises increasing offsets.
   */
  readonly soleWriter?: boolean;
  /** Whether `isSigningKeyOf` sees keys added after a party was created; default true. */
  readonly addedKeysVisible?: boolean;
  /**
   * Whether the service may act as the external parties the suite creates: a harness that holds
   * their keys signs for them; the embedded ledger leaves them to their own wallets. Default false.
   */
  readonly actsForExternalParties?: boolean;
}

/** Only keeps a broken subscription from hanging a test; never part of an assertion. */
export const SAFETY_NET_MS = 5_000;

const MINING_ROUND_MS = 10 * 60_000;

export function amount(wire: string): Amount {
  return Amount.parse(wire);
}

/** A deterministic Ed25519 public key; `seed` picks which one. */
export function publicKeyFor(seed: number): Uint8Array {
  return ed25519.getPublicKey(new Uint8Array(32).fill(seed));
}

export interface Balance {
  readonly total: string;
  readonly locked: string;
  readonly spendable: string;
}

/** What `party` holds of `instrument`, locked holdings included in `total`. */
export async function balanceOf(
  port: LedgerPort,
  party: string,
  instrument: Instrument,
): Promise<Balance> {
  const holdings = (await port.getHoldings(party)).filter((h) =>
    sameInstrument(h.instrument, instrument),
  );
  const total = Amount.sum(holdings.map((h) => h.amount));
  const locked = Amount.sum(holdings.filter((h) => h.lock !== null).map((h) => h.amount));
  return {
    total: total.toString(),
    locked: locked.toString(),
    spendable: total.sub(locked).toString(),
  };
}

/**
 * The sum of `party`'s holdings locked for `offerId`. A lock that names no offer (an adapter need
 * not be able to derive it) counts too, so use this where `offerId` is the party's only pending
 * offer; a lock naming another offer never counts.
 */
export async function lockedFor(port: LedgerPort, party: string, offerId: string): Promise<string> {
  const holdings = await port.getHoldings(party);
  const locked = holdings
    .filter((h) => h.lock !== null && (h.lock.offerId === offerId || h.lock.offerId === null))
    .map((h) => h.amount);
  return Amount.sum(locked).toString();
}

function byKey<T>(key: (item: T) => string): (a: T, b: T) => number {
  return (a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0);
}

/** Holdings and pending offers of `parties`, in a stable order, for before/after comparisons. */
export async function partiesState(port: LedgerPort, parties: readonly string[]) {
  const state: Record<string, { holdings: unknown[]; offers: unknown[] }> = {};
  for (const party of parties) {
    const holdings = [...(await port.getHoldings(party))].sort(byKey((h) => h.holdingId));
    const offers = [...(await port.getPendingOffers(party))].sort(byKey((o) => o.offerId));
    state[party] = { holdings, offers };
  }
  return state;
}

/**
 * The updates after `fromOffset` up to and including the first one at or past `untilOffset`.
 * Stream errors propagate; when the safety net fires the partial list is returned, and the
 * caller's comparison fails on it.
 */
export async function readUpdates(
  port: LedgerPort,
  fromOffset: Offset,
  untilOffset: Offset,
  parties?: readonly string[],
): Promise<LedgerUpdate[]> {
  const updates: LedgerUpdate[] = [];
  if (untilOffset <= fromOffset) return updates;
  const signal = AbortSignal.timeout(SAFETY_NET_MS);
  try {
    for await (const update of port.updates(fromOffset, { parties, signal })) {
      updates.push(update);
      if (update.offset >= untilOffset) break;
    }
  } catch (error) {
    if (!signal.aborted) throw error;
  }
  return updates;
}

/** Every update after `fromOffset` that exists now. */
export async function readToEnd(port: LedgerPort, fromOffset: Offset): Promise<LedgerUpdate[]> {
  return readUpdates(port, fromOffset, await port.ledgerEnd());
}

/** The refusal `attempt` ends in; fails the test when it succeeds or throws anything else. */
export async function refusal(attempt: Promise<unknown>): Promise<LedgerError> {
  try {
    await attempt;
  } catch (error) {
    expect(error).toBeInstanceOf(LedgerError);
    return error as LedgerError;
  }
  throw new Error('the ledger accepted a command it should have refused');
}

export async function expectRefused(attempt: Promise<unknown>, code: LedgerErrorCode) {
  const error = await refusal(attempt);
  expect(error.code, error.message).toBe(code);
  return error;
}

/**
 * The traffic of an update: a positive whole number of bytes, or null where the adapter cannot
 * know it (a participant reports the traffic it paid, which may be unknown for an update).
 */
function expectTrafficBytes(update: LedgerUpdate): void {
  if (update.trafficBytes === null) return;
  expect(Number.isSafeInteger(update.trafficBytes)).toBe(true);
  expect(update.trafficBytes).toBeGreaterThan(0);
}

function eventsOf<K extends LedgerEvent['kind']>(
  updates: readonly LedgerUpdate[],
  kind: K,
): Extract<LedgerEvent, { kind: K }>[] {
  return updates.flatMap((u) => u.events).filter((e) => e.kind === kind) as Extract<
    LedgerEvent,
    { kind: K }
  >[];
}

/** The ids, in stream order, of the updates after `fromOffset` that belong to `results`. */
async function updateIdsAfter(
  port: LedgerPort,
  fromOffset: Offset,
  results: readonly { readonly updateId: string }[],
): Promise<string[]> {
  const ours = new Set(results.map((r) => r.updateId));
  return (await readToEnd(port, fromOffset)).map((u) => u.updateId).filter((id) => ours.has(id));
}

function offerFields(offer: TransferOffer): TransferOffer {
  const { offerId, sender, receiver, instrument, amount, meta, executeBefore } = offer;
  return { offerId, sender, receiver, instrument, amount, meta, executeBefore };
}

function metaOfSize(entries: number, chars: number): Meta {
  const meta: Record<string, string> = {};
  for (let i = 0; i < entries - 1; i++) meta[`k${String(i).padStart(3, '0')}`] = 'v';
  const used = Object.entries(meta).reduce((n, [k, v]) => n + k.length + v.length, 0);
  meta[REASON_META_KEY] = 'r'.repeat(chars - used - REASON_META_KEY.length);
  return meta;
}

/** The parties and instruments most cases start from, named uniquely per run. */
interface World {
  readonly ledger: HarnessLedger;
  readonly adminA: string;
  readonly adminB: string;
  /** The same symbol under two admins: two different instruments. */
  readonly usdA: Instrument;
  readonly usdB: Instrument;
  /** Sender; pre-approves nothing. */
  readonly alice: string;
  /** Pre-approves `usdA` only. */
  readonly bob: string;
  /** Pre-approves nothing: transfers to her become offers. */
  readonly carol: string;
  readonly parties: readonly string[];
  cmd(label: string): string;
  hint(label: string): string;
}

async function buildWorld(ledger: HarnessLedger): Promise<World> {
  const run = randomUUID().slice(0, 8);
  let sequence = 0;
  const hint = (label: string) => `${label}-${run}`;
  const cmd = (label: string) => `${run}:${label}:${++sequence}`;
  const party = async (label: string, preapprovals: readonly Instrument[] = []) =>
    (await ledger.createParty({ hint: hint(label), preapprovals })).partyId;
  const adminA = await party('registry-a');
  const adminB = await party('registry-b');
  const usdA = { admin: adminA, id: 'USDCx' };
  const usdB = { admin: adminB, id: 'USDCx' };
  await ledger.createInstrument(usdA);
  await ledger.createInstrument(usdB);
  const alice = (
    await ledger.createParty({ hint: hint('alice'), publicKey: publicKeyFor(1), preapprovals: [] })
  ).partyId;
  const bob = await party('bob', [usdA]);
  const carol = await party('carol');
  const parties = [adminA, adminB, alice, bob, carol];
  return { ledger, adminA, adminB, usdA, usdB, alice, bob, carol, parties, cmd, hint };
}

export function ledgerConformanceSuite(harness: LedgerHarness): void {
  describe(`ledger port conformance: ${harness.name}`, () => {
    const openLedgers = new Set<HarnessLedger>();

    async function open(): Promise<HarnessLedger> {
      const ledger = await harness.open();
      openLedgers.add(ledger);
      return ledger;
    }

    /** Restart cases are registered only for adapters that can restart, never as skipped tests. */
    const itAcrossRestart = (name: string, fn: () => Promise<void>): void => {
      if (harness.reopen !== undefined) it(name, fn);
    };

    async function restart(previous: HarnessLedger): Promise<HarnessLedger> {
      if (!harness.reopen) throw new Error(`${harness.name} cannot restart`);
      openLedgers.delete(previous);
      await previous.close();
      const ledger = await harness.reopen(previous);
      openLedgers.add(ledger);
      return ledger;
    }

    afterEach(async () => {
      const closing = [...openLedgers].map((ledger) => ledger.close());
      openLedgers.clear();
      await Promise.all(closing);
    });

    async function world(): Promise<World> {
      return buildWorld(await open());
    }

    /** Everything a refused command must leave as it was. */
    async function observable(w: World, ledger: LedgerPort = w.ledger) {
      const end = harness.soleWriter ? await ledger.ledgerEnd() : null;
      return { end, parties: await partiesState(ledger, w.parties) };
    }

    async function expectRefusedWithoutChange(
      w: World,
      attempt: () => Promise<unknown>,
      code: LedgerErrorCode,
      commandId?: string,
    ): Promise<void> {
      const before = await observable(w);
      await expectRefused(attempt(), code);
      expect(await observable(w)).toEqual(before);
      if (commandId) expect(await w.ledger.lookupCommand(commandId)).toBeNull();
    }

    /** Alice holds 100 usdA and offers 30 of it to Carol, for `lifetimeMs` when given. */
    async function offerToCarol(lifetimeMs?: number) {
      const w = await world();
      await w.ledger.mint({ owner: w.alice, instrument: w.usdA, amount: amount('100') });
      const before = await w.ledger.ledgerEnd();
      const executeBefore =
        lifetimeMs === undefined
          ? undefined
          : new Date((await w.ledger.now()).getTime() + lifetimeMs);
      const commandId = w.cmd('offer');
      const outcome = await w.ledger.submitTransfer({
        commandId,
        sender: w.alice,
        receiver: w.carol,
        instrument: w.usdA,
        amount: amount('30'),
        meta: { [REASON_META_KEY]: 'order 7' },
        ...(executeBefore ? { executeBefore } : {}),
      });
      if (outcome.kind !== 'offer') throw new Error(`expected an offer, got ${outcome.kind}`);
      return { w, before, commandId, outcome, offerId: outcome.offerId, executeBefore };
    }

    describe('transfers', () => {
      it('settles directly when the receiver pre-approves the instrument, to the last unit', async () => {
        const w = await world();
        const ledger = w.ledger;
        await ledger.mint({ owner: w.alice, instrument: w.usdA, amount: amount('100') });
        const before = await ledger.ledgerEnd();
        const timeBefore = await ledger.now();
        const commandId = w.cmd('direct');
        const meta = { [REASON_META_KEY]: 'invoice 42' };
        const sent = amount('12.3456789012');
        const outcome = await ledger.submitTransfer({
          commandId,
          sender: w.alice,
          receiver: w.bob,
          instrument: w.usdA,
          amount: sent,
          meta,
        });
        const timeAfter = await ledger.now();

        expect(outcome.kind).toBe('direct');
        expect(outcome.offset).toBeGreaterThan(before);
        expect(await balanceOf(ledger, w.alice, w.usdA)).toEqual({
          total: '87.6543210988',
          locked: '0',
          spendable: '87.6543210988',
        });
        expect((await balanceOf(ledger, w.bob, w.usdA)).total).toBe('12.3456789012');

        const update = (await readToEnd(ledger, before)).find(
          (u) => u.updateId === outcome.updateId,
        );
        expect(update).toBeDefined();
        if (!update) return;
        expect(update.offset).toBe(outcome.offset);
        expect(update.commandId).toBe(commandId);
        expectTrafficBytes(update);
        expect(update.recordTime.getTime()).toBeGreaterThanOrEqual(timeBefore.getTime());
        expect(update.recordTime.getTime()).toBeLessThanOrEqual(timeAfter.getTime());
        const [transfer] = eventsOf([update], 'transfer');
        expect(transfer).toMatchObject({
          sender: w.alice,
          receiver: w.bob,
          instrument: w.usdA,
          meta,
          offerId: null,
        });
        expect(transfer?.amount.toString()).toBe('12.3456789012');
        // The suite's instruments burn no fees: the sender pays exactly the amount.
        expect(transfer?.feesBurned.toString()).toBe('0');
      });

      it('makes an offer when the receiver does not pre-approve, locking the sender holdings', async () => {
        const { w, before, commandId, outcome, offerId } = await offerToCarol();
        const ledger = w.ledger;
        const updates = await readToEnd(ledger, before);
        const update = updates.find((u) => u.updateId === outcome.updateId);
        expect(update?.offset).toBe(outcome.offset);
        expect(update?.commandId).toBe(commandId);
        if (update) expectTrafficBytes(update);
        const created = eventsOf(update ? [update] : [], 'offer_created');
        expect(created).toHaveLength(1);
        const offer = created[0];
        if (!offer) return;
        expect(offer).toMatchObject({
          offerId,
          sender: w.alice,
          receiver: w.carol,
          instrument: w.usdA,
          meta: { [REASON_META_KEY]: 'order 7' },
        });
        expect(offer.amount.toString()).toBe('30');
        expect(offer.executeBefore.getTime()).toBeGreaterThan(update?.recordTime.getTime() ?? 0);

        expect(await balanceOf(ledger, w.alice, w.usdA)).toEqual({
          total: '100',
          locked: '30',
          spendable: '70',
        });
        expect(await lockedFor(ledger, w.alice, offerId)).toBe('30');
        const locks = (await ledger.getHoldings(w.alice)).flatMap((h) => (h.lock ? [h.lock] : []));
        for (const lock of locks) expect(lock.expiresAt).toEqual(offer.executeBefore);
        expect((await balanceOf(ledger, w.carol, w.usdA)).total).toBe('0');

        expect((await ledger.getPendingOffers(w.alice)).map(offerFields)).toEqual([
          offerFields(offer),
        ]);
        expect((await ledger.getPendingOffers(w.carol)).map(offerFields)).toEqual([
          offerFields(offer),
        ]);
        expect(await ledger.getPendingOffers(w.bob)).toEqual([]);

        const spendAll = w.cmd('spend-all');
        await expectRefusedWithoutChange(
          w,
          () =>
            ledger.submitTransfer({
              commandId: spendAll,
              sender: w.alice,
              receiver: w.bob,
              instrument: w.usdA,
              amount: amount('100'),
            }),
          'insufficient_holdings',
          spendAll,
        );
      });

      it('accepting an offer transfers the amount and names the offer', async () => {
        const { w, offerId } = await offerToCarol();
        const ledger = w.ledger;
        const commandId = w.cmd('accept');
        const result = await ledger.acceptOffer({ commandId, offerId, actor: w.carol });

        const update = (await readToEnd(ledger, result.offset - 1)).find(
          (u) => u.offset === result.offset,
        );
        expect(update?.updateId).toBe(result.updateId);
        expect(update?.commandId).toBe(commandId);
        const transfers = eventsOf(update ? [update] : [], 'transfer');
        expect(transfers).toHaveLength(1);
        expect(transfers[0]).toMatchObject({
          sender: w.alice,
          receiver: w.carol,
          instrument: w.usdA,
          offerId,
          meta: { [REASON_META_KEY]: 'order 7' },
        });
        expect(transfers[0]?.amount.toString()).toBe('30');
        expect(transfers[0]?.feesBurned.toString()).toBe('0');

        expect((await balanceOf(ledger, w.carol, w.usdA)).total).toBe('30');
        expect(await balanceOf(ledger, w.alice, w.usdA)).toEqual({
          total: '70',
          locked: '0',
          spendable: '70',
        });
        expect(await ledger.getPendingOffers(w.alice)).toEqual([]);
        expect(await ledger.getPendingOffers(w.carol)).toEqual([]);
      });

      it('rejecting an offer unlocks the sender holdings', async () => {
        const { w, offerId } = await offerToCarol();
        const ledger = w.ledger;
        const result = await ledger.rejectOffer({
          commandId: w.cmd('reject'),
          offerId,
          actor: w.carol,
        });
        const updates = await readToEnd(ledger, result.offset - 1);
        const rejected = eventsOf(
          updates.filter((u) => u.offset === result.offset),
          'offer_rejected',
        );
        expect(rejected.map((e) => e.offerId)).toEqual([offerId]);
        expect(await balanceOf(ledger, w.alice, w.usdA)).toEqual({
          total: '100',
          locked: '0',
          spendable: '100',
        });
        expect((await balanceOf(ledger, w.carol, w.usdA)).total).toBe('0');
        expect(await ledger.getPendingOffers(w.alice)).toEqual([]);
        expect(await ledger.getPendingOffers(w.carol)).toEqual([]);
      });

      it('withdrawing an offer by its sender unlocks the holdings', async () => {
        const { w, offerId } = await offerToCarol();
        const ledger = w.ledger;
        const result = await ledger.withdrawOffer({
          commandId: w.cmd('withdraw'),
          offerId,
          actor: w.alice,
        });
        const updates = await readToEnd(ledger, result.offset - 1);
        const withdrawn = eventsOf(
          updates.filter((u) => u.offset === result.offset),
          'offer_withdrawn',
        );
        expect(withdrawn.map((e) => e.offerId)).toEqual([offerId]);
        expect(await balanceOf(ledger, w.alice, w.usdA)).toEqual({
          total: '100',
          locked: '0',
          spendable: '100',
        });
        expect(await ledger.getPendingOffers(w.carol)).toEqual([]);
      });

      /** Carol's offer from Alice with the clock moved just past its deadline. */
      async function expiredOfferToCarol() {
        const offered = await offerToCarol(60 * 60_000);
        const { w, offerId, executeBefore } = offered;
        if (!executeBefore) throw new Error('the offer needs a deadline');
        const ledger = w.ledger;
        const pending = (await ledger.getPendingOffers(w.carol)).find((o) => o.offerId === offerId);
        expect(pending?.executeBefore).toEqual(executeBefore);

        const early = executeBefore.getTime() - (await ledger.now()).getTime() - 60_000;
        await ledger.advanceClock(early);
        const acceptable = await ledger.getPendingOffers(w.carol);
        expect(acceptable.map((o) => o.offerId)).toEqual([offerId]);
        const now = await ledger.advanceClock(60_000);
        expect(now.getTime()).toBeGreaterThanOrEqual(executeBefore.getTime());
        return offered;
      }

      it('an offer past executeBefore stays pending and locked, and can no longer be accepted', async () => {
        const { w, outcome, offerId, executeBefore } = await expiredOfferToCarol();
        const ledger = w.ledger;
        // The passing of time makes no update: neither an expiry nor a mining round.
        if (harness.soleWriter) expect(await ledger.ledgerEnd()).toBe(outcome.offset);
        expect((await ledger.getPendingOffers(w.alice)).map((o) => o.offerId)).toEqual([offerId]);
        expect((await ledger.getPendingOffers(w.carol)).map((o) => o.offerId)).toEqual([offerId]);
        expect(await balanceOf(ledger, w.alice, w.usdA)).toEqual({
          total: '100',
          locked: '30',
          spendable: '70',
        });
        const locks = (await ledger.getHoldings(w.alice)).flatMap((h) => (h.lock ? [h.lock] : []));
        expect(locks.map((lock) => lock.expiresAt)).toEqual([executeBefore]);

        const late = w.cmd('late-accept');
        await expectRefusedWithoutChange(
          w,
          () => ledger.acceptOffer({ commandId: late, offerId, actor: w.carol }),
          'offer_expired',
          late,
        );
      });

      it('the sender withdraws an expired offer: unlocked, offer_withdrawn', async () => {
        const { w, offerId } = await expiredOfferToCarol();
        const ledger = w.ledger;
        const commandId = w.cmd('withdraw-expired');
        const result = await ledger.withdrawOffer({ commandId, offerId, actor: w.alice });
        const [update] = await readUpdates(ledger, result.offset - 1, result.offset, [w.alice]);
        expect(update?.commandId).toBe(commandId);
        expect(eventsOf(update ? [update] : [], 'offer_withdrawn').map((e) => e.offerId)).toEqual([
          offerId,
        ]);
        expect(await balanceOf(ledger, w.alice, w.usdA)).toEqual({
          total: '100',
          locked: '0',
          spendable: '100',
        });
        expect(await ledger.getPendingOffers(w.alice)).toEqual([]);
        expect(await ledger.getPendingOffers(w.carol)).toEqual([]);
      });

      it('the receiver rejects an expired offer: unlocked, offer_rejected', async () => {
        const { w, offerId } = await expiredOfferToCarol();
        const ledger = w.ledger;
        const commandId = w.cmd('reject-expired');
        const result = await ledger.rejectOffer({ commandId, offerId, actor: w.carol });
        const [update] = await readUpdates(ledger, result.offset - 1, result.offset, [w.carol]);
        expect(update?.commandId).toBe(commandId);
        expect(eventsOf(update ? [update] : [], 'offer_rejected').map((e) => e.offerId)).toEqual([
          offerId,
        ]);
        expect(await balanceOf(ledger, w.alice, w.usdA)).toEqual({
          total: '100',
          locked: '0',
          spendable: '100',
        });
        expect((await balanceOf(ledger, w.carol, w.usdA)).total).toBe('0');
        expect(await ledger.getPendingOffers(w.carol)).toEqual([]);
      });

      it('only the receiver may accept or reject and only the sender may withdraw', async () => {
        const { w, offerId } = await offerToCarol();
        const ledger = w.ledger;
        const attempts = [
          { choice: ledger.acceptOffer, actor: w.alice },
          { choice: ledger.acceptOffer, actor: w.bob },
          { choice: ledger.rejectOffer, actor: w.alice },
          { choice: ledger.withdrawOffer, actor: w.carol },
          { choice: ledger.withdrawOffer, actor: w.bob },
        ];
        for (const { choice, actor } of attempts) {
          const commandId = w.cmd('intruder');
          await expectRefusedWithoutChange(
            w,
            () => choice.call(ledger, { commandId, offerId, actor }),
            'not_authorized',
            commandId,
          );
        }
        expect(await lockedFor(ledger, w.alice, offerId)).toBe('30');
      });

      it('the same symbol under two admins is two instruments; a pre-approval covers only one', async () => {
        const w = await world();
        const ledger = w.ledger;
        const instruments = await ledger.listInstruments();
        expect(instruments).toContainEqual(w.usdA);
        expect(instruments).toContainEqual(w.usdB);
        await ledger.mint({ owner: w.alice, instrument: w.usdA, amount: amount('10') });
        await ledger.mint({ owner: w.alice, instrument: w.usdB, amount: amount('20') });
        const transfer = (instrument: Instrument) =>
          ledger.submitTransfer({
            commandId: w.cmd('two-admins'),
            sender: w.alice,
            receiver: w.bob,
            instrument,
            amount: amount('3'),
          });

        expect((await transfer(w.usdA)).kind).toBe('direct');
        const offer = await transfer(w.usdB);
        expect(offer.kind).toBe('offer');
        expect((await balanceOf(ledger, w.bob, w.usdA)).total).toBe('3');
        expect((await balanceOf(ledger, w.bob, w.usdB)).total).toBe('0');
        expect(await balanceOf(ledger, w.alice, w.usdA)).toEqual({
          total: '7',
          locked: '0',
          spendable: '7',
        });
        expect(await balanceOf(ledger, w.alice, w.usdB)).toEqual({
          total: '20',
          locked: '3',
          spendable: '17',
        });
        const pending = await ledger.getPendingOffers(w.bob);
        expect(pending.map((o) => o.instrument)).toEqual([w.usdB]);
      });
    });

    describe('refusals', () => {
      it('metadata: 128 entries and 8192 characters pass, one more of either is refused', async () => {
        const w = await world();
        const ledger = w.ledger;
        await ledger.mint({ owner: w.alice, instrument: w.usdA, amount: amount('10') });
        const send = (commandId: string, meta: Meta, receiver = w.bob) =>
          ledger.submitTransfer({
            commandId,
            sender: w.alice,
            receiver,
            instrument: w.usdA,
            amount: amount('1'),
            meta,
          });
        const refusedCases: [string, Meta][] = [
          ['entries', metaOfSize(META_ENTRIES_MAX + 1, 1000)],
          ['chars', metaOfSize(1, META_CHARS_MAX + 1)],
        ];
        for (const [label, meta] of refusedCases) {
          for (const receiver of [w.bob, w.carol]) {
            const commandId = w.cmd(`meta-${label}`);
            await expectRefusedWithoutChange(
              w,
              () => send(commandId, meta, receiver),
              'metadata_limit_exceeded',
              commandId,
            );
          }
        }

        const fullEntries = metaOfSize(META_ENTRIES_MAX, 1000);
        const fullChars = metaOfSize(1, META_CHARS_MAX);
        expect(Object.keys(fullEntries)).toHaveLength(META_ENTRIES_MAX);
        for (const meta of [fullEntries, fullChars]) {
          const before = await ledger.ledgerEnd();
          const outcome = await send(w.cmd('meta-ok'), meta);
          const update = (await readToEnd(ledger, before)).find(
            (u) => u.updateId === outcome.updateId,
          );
          expect(eventsOf(update ? [update] : [], 'transfer')[0]?.meta).toEqual(meta);
        }
        expect((await balanceOf(ledger, w.bob, w.usdA)).total).toBe('2');
      });

      it('a transfer beyond the holdings is refused and changes nothing; exactly the holdings pass', async () => {
        const w = await world();
        const ledger = w.ledger;
        await ledger.mint({ owner: w.alice, instrument: w.usdA, amount: amount('10') });
        const send = (commandId: string, wire: string) =>
          ledger.submitTransfer({
            commandId,
            sender: w.alice,
            receiver: w.bob,
            instrument: w.usdA,
            amount: amount(wire),
          });
        const tooMuch = w.cmd('too-much');
        await expectRefusedWithoutChange(
          w,
          () => send(tooMuch, '10.0000000001'),
          'insufficient_holdings',
          tooMuch,
        );
        const nothingOfB = w.cmd('other-admin');
        await expectRefusedWithoutChange(
          w,
          () =>
            ledger.submitTransfer({
              commandId: nothingOfB,
              sender: w.alice,
              receiver: w.bob,
              instrument: w.usdB,
              amount: amount('1'),
            }),
          'insufficient_holdings',
          nothingOfB,
        );
        await send(w.cmd('all-of-it'), '10');
        expect((await balanceOf(ledger, w.alice, w.usdA)).total).toBe('0');
        expect((await balanceOf(ledger, w.bob, w.usdA)).total).toBe('10');
      });

      it('a zero amount is refused with invalid_amount; a negative one cannot be built', async () => {
        expect(() => Amount.fromUnits(-1n)).toThrow(AmountRangeError);
        expect(() => Amount.parse('-1')).toThrow(AmountParseError);
        expect(() => amount('1').sub(amount('2'))).toThrow(AmountRangeError);

        const w = await world();
        await w.ledger.mint({ owner: w.alice, instrument: w.usdA, amount: amount('10') });
        for (const receiver of [w.bob, w.carol]) {
          const commandId = w.cmd('zero');
          await expectRefusedWithoutChange(
            w,
            () =>
              w.ledger.submitTransfer({
                commandId,
                sender: w.alice,
                receiver,
                instrument: w.usdA,
                amount: Amount.ZERO,
              }),
            'invalid_amount',
            commandId,
          );
        }
      });

      it('unknown parties, instruments and offers are refused with their codes', async () => {
        const w = await world();
        const ledger = w.ledger;
        await ledger.mint({ owner: w.alice, instrument: w.usdA, amount: amount('10') });
        const ghost = `${w.hint('ghost')}::1220${'0'.repeat(64)}`;
        expect(await ledger.getParty(ghost)).toBeNull();
        const send = (
          commandId: string,
          sender: string,
          receiver: string,
          instrument: Instrument,
        ) =>
          ledger.submitTransfer({ commandId, sender, receiver, instrument, amount: amount('1') });
        const cases: [string, string, Instrument, LedgerErrorCode][] = [
          [ghost, w.bob, w.usdA, 'unknown_party'],
          [w.alice, ghost, w.usdA, 'unknown_party'],
          [w.alice, w.bob, { admin: w.adminA, id: 'NOPE' }, 'unknown_instrument'],
          [w.alice, w.bob, { admin: w.adminB, id: 'USDCx-' }, 'unknown_instrument'],
        ];
        for (const [sender, receiver, instrument, code] of cases) {
          const commandId = w.cmd('unknown');
          await expectRefusedWithoutChange(
            w,
            () => send(commandId, sender, receiver, instrument),
            code,
            commandId,
          );
        }
        const commandId = w.cmd('no-offer');
        await expectRefusedWithoutChange(
          w,
          () =>
            ledger.acceptOffer({ commandId, offerId: `no-such-${w.hint('offer')}`, actor: w.bob }),
          'offer_not_found',
          commandId,
        );
      });
    });

    describe('command deduplication', () => {
      it('resubmitting a committed command returns the first outcome and moves nothing', async () => {
        const w = await world();
        const ledger = w.ledger;
        await ledger.mint({ owner: w.alice, instrument: w.usdA, amount: amount('100') });
        const direct = {
          commandId: w.cmd('pay'),
          sender: w.alice,
          receiver: w.bob,
          instrument: w.usdA,
          amount: amount('5'),
        };
        const first = await ledger.submitTransfer(direct);
        const afterFirst = await observable(w);
        expect(await ledger.submitTransfer(direct)).toEqual(first);
        expect(await observable(w)).toEqual(afterFirst);

        const offer = { ...direct, commandId: w.cmd('offer'), receiver: w.carol };
        const firstOffer = await ledger.submitTransfer(offer);
        expect(await ledger.submitTransfer(offer)).toEqual(firstOffer);
        expect(await ledger.getPendingOffers(w.carol)).toHaveLength(1);
        expect((await balanceOf(ledger, w.alice, w.usdA)).locked).toBe('5');
        if (firstOffer.kind !== 'offer') throw new Error('expected an offer');

        const accept = { commandId: w.cmd('accept'), offerId: firstOffer.offerId, actor: w.carol };
        const accepted = await ledger.acceptOffer(accept);
        const afterAccept = await observable(w);
        expect(await ledger.acceptOffer(accept)).toEqual(accepted);
        expect(await observable(w)).toEqual(afterAccept);
        expect((await balanceOf(ledger, w.carol, w.usdA)).total).toBe('5');
        await expectRefusedWithoutChange(
          w,
          () => ledger.acceptOffer({ ...accept, commandId: w.cmd('accept-again') }),
          'offer_not_found',
        );
        expect(await balanceOf(ledger, w.alice, w.usdA)).toEqual({
          total: '90',
          locked: '0',
          spendable: '90',
        });
      });

      it('a refused command can be retried with the same id once the cause is fixed', async () => {
        const w = await world();
        const ledger = w.ledger;
        const command = {
          commandId: w.cmd('payout'),
          sender: w.alice,
          receiver: w.bob,
          instrument: w.usdA,
          amount: amount('4.5'),
        };
        await expectRefusedWithoutChange(
          w,
          () => ledger.submitTransfer(command),
          'insufficient_holdings',
          command.commandId,
        );
        await ledger.mint({ owner: w.alice, instrument: w.usdA, amount: amount('5') });
        const outcome = await ledger.submitTransfer(command);
        expect(outcome.kind).toBe('direct');
        expect((await balanceOf(ledger, w.bob, w.usdA)).total).toBe('4.5');
        expect(await ledger.lookupCommand(command.commandId)).toMatchObject({
          commandId: command.commandId,
          updateId: outcome.updateId,
          offset: outcome.offset,
        });
      });

      itAcrossRestart('deduplication survives a restart', async () => {
        const w = await world();
        await w.ledger.mint({ owner: w.alice, instrument: w.usdA, amount: amount('100') });
        const command = {
          commandId: w.cmd('pay'),
          sender: w.alice,
          receiver: w.bob,
          instrument: w.usdA,
          amount: amount('7'),
        };
        const first = await w.ledger.submitTransfer(command);
        const reopened = await restart(w.ledger);
        const before = await observable(w, reopened);
        expect(await reopened.submitTransfer(command)).toEqual(first);
        expect(await observable(w, reopened)).toEqual(before);
        expect((await balanceOf(reopened, w.bob, w.usdA)).total).toBe('7');
      });

      it('lookupCommand finds committed commands and nothing else', async () => {
        const { w, outcome, commandId, offerId } = await offerToCarol();
        const ledger = w.ledger;
        const acceptId = w.cmd('accept');
        const accepted = await ledger.acceptOffer({ commandId: acceptId, offerId, actor: w.carol });
        const updates = await readToEnd(ledger, outcome.offset - 1);
        const recordTime = (offset: Offset) => updates.find((u) => u.offset === offset)?.recordTime;

        expect(await ledger.lookupCommand(commandId)).toEqual({
          commandId,
          updateId: outcome.updateId,
          offset: outcome.offset,
          recordTime: recordTime(outcome.offset),
        });
        expect(await ledger.lookupCommand(acceptId)).toEqual({
          commandId: acceptId,
          updateId: accepted.updateId,
          offset: accepted.offset,
          recordTime: recordTime(accepted.offset),
        });
        expect(await ledger.lookupCommand(w.cmd('never-sent'))).toBeNull();
      });
    });

    describe('splitting a holding', () => {
      /** Alice's unlocked usdA holdings, by id. */
      async function aliceHoldings(w: World) {
        const holdings = await w.ledger.getHoldings(w.alice);
        return holdings.filter((h) => sameInstrument(h.instrument, w.usdA) && h.lock === null);
      }

      it('splits a holding into the amount and the rest, moving nothing between parties', async () => {
        const w = await world();
        const ledger = w.ledger;
        await ledger.mint({ owner: w.alice, instrument: w.usdA, amount: amount('100') });
        const [whole] = await aliceHoldings(w);
        if (whole === undefined) throw new Error('no holding minted');
        const before = await ledger.ledgerEnd();
        const command = {
          commandId: w.cmd('split'),
          owner: w.alice,
          holdingId: whole.holdingId,
          amount: amount('30.5'),
        };
        const outcome = await ledger.splitHolding(command);
        expect(outcome.holding).toMatchObject({ owner: w.alice, instrument: w.usdA, lock: null });
        expect(outcome.holding.amount.toString()).toBe('30.5');
        expect(outcome.change).toMatchObject({ owner: w.alice, instrument: w.usdA, lock: null });
        expect(outcome.change.amount.toString()).toBe('69.5');
        const ids = (await aliceHoldings(w)).map((h) => h.holdingId).sort();
        expect(ids).toEqual([outcome.holding.holdingId, outcome.change.holdingId].sort());
        expect((await balanceOf(ledger, w.alice, w.usdA)).total).toBe('100');
        expect(await ledger.lookupCommand(command.commandId)).toMatchObject({
          updateId: outcome.updateId,
          offset: outcome.offset,
        });
        // Again under the same id: the first outcome, nothing moved.
        const after = await observable(w);
        expect(await ledger.splitHolding(command)).toEqual(outcome);
        expect(await observable(w)).toEqual(after);
        // The rest split again: three holdings.
        await ledger.splitHolding({
          commandId: w.cmd('split-rest'),
          owner: w.alice,
          holdingId: outcome.change.holdingId,
          amount: amount('30.5'),
        });
        const amounts = (await aliceHoldings(w)).map((h) => h.amount.toString()).sort();
        expect(amounts).toEqual(['30.5', '30.5', '39']);
        // No value moved between parties: up to a payment made after them, the stream shows only
        // that payment's transfer.
        const paid = await ledger.submitTransfer({
          commandId: w.cmd('pay'),
          sender: w.alice,
          receiver: w.bob,
          instrument: w.usdA,
          amount: amount('1'),
        });
        const transfers = eventsOf(await readUpdates(ledger, before, paid.offset), 'transfer');
        expect(transfers.map((t) => [t.sender, t.receiver])).toEqual([[w.alice, w.bob]]);
      });

      it('refuses what cannot be split, changing nothing', async () => {
        const { w, offerId } = await offerToCarol();
        const ledger = w.ledger;
        const [free] = await aliceHoldings(w);
        const locked = (await ledger.getHoldings(w.alice)).find((h) => h.lock !== null);
        if (free === undefined || locked === undefined) throw new Error('no holdings to split');
        await ledger.mint({ owner: w.bob, instrument: w.usdA, amount: amount('10') });
        const [bobs] = await ledger.getHoldings(w.bob);
        const split = (holdingId: string, text: string, owner = w.alice) => {
          const commandId = w.cmd('split');
          return { commandId, owner, holdingId, amount: amount(text) };
        };
        const refused = async (command: ReturnType<typeof split>, code: LedgerErrorCode) =>
          expectRefusedWithoutChange(
            w,
            () => ledger.splitHolding(command),
            code,
            command.commandId,
          );
        // Alice holds 70 free and 30 locked for the offer.
        await refused(split(free.holdingId, '70'), 'invalid_amount');
        await refused(split(free.holdingId, '0'), 'invalid_amount');
        await refused(split(locked.holdingId, '10'), 'invalid_inputs');
        await refused(split(bobs?.holdingId ?? 'none', '5'), 'invalid_inputs');
        await refused(split(`${free.holdingId}-gone`, '5'), 'invalid_inputs');
        await refused(split(free.holdingId, '5', `nobody-${w.hint('x')}::1220aa`), 'unknown_party');
        expect(await ledger.getPendingOffers(w.carol)).toMatchObject([{ offerId }]);
      });
    });

    describe('update stream', () => {
      /** Three commits by Alice: a mint, a direct transfer to Bob, an offer to Carol. */
      async function threeCommits(w: World) {
        const before = await w.ledger.ledgerEnd();
        const minted = await w.ledger.mint({
          owner: w.alice,
          instrument: w.usdA,
          amount: amount('50'),
        });
        const send = (receiver: string) =>
          w.ledger.submitTransfer({
            commandId: w.cmd('stream'),
            sender: w.alice,
            receiver,
            instrument: w.usdA,
            amount: amount('2'),
            meta: { [REASON_META_KEY]: `to ${receiver}` },
          });
        const direct = await send(w.bob);
        const offer = await send(w.carol);
        return { before, offsets: [minted.offset, direct.offset, offer.offset] };
      }

      it('offsets increase with every update and ledgerEnd is the latest one', async () => {
        const w = await world();
        const { before, offsets } = await threeCommits(w);
        const end = await w.ledger.ledgerEnd();
        const updates = await readToEnd(w.ledger, before);
        const seen = updates.map((u) => u.offset);

        expect(seen[0]).toBeGreaterThan(before);
        for (let i = 1; i < seen.length; i++) {
          expect(seen[i]).toBeGreaterThan(seen[i - 1] ?? Number.POSITIVE_INFINITY);
        }
        expect(seen.at(-1)).toBe(end);
        for (const offset of offsets) expect(seen).toContain(offset);
        expect(new Set(updates.map((u) => u.updateId)).size).toBe(updates.length);
        if (harness.soleWriter) {
          expect(seen).toEqual([before + 1, before + 2, before + 3]);
          expect(offsets).toEqual(seen);
        }
      });

      it('reading from an offset yields exactly the updates after it', async () => {
        const w = await world();
        const { offsets } = await threeCommits(w);
        const all = await readToEnd(w.ledger, 0);
        for (const from of [0, offsets[0] ?? 0, offsets[1] ?? 0]) {
          expect(await readToEnd(w.ledger, from)).toEqual(all.filter((u) => u.offset > from));
        }
        expect(await readToEnd(w.ledger, await w.ledger.ledgerEnd())).toEqual([]);
      });

      it('a live subscription receives an update committed after it started', async () => {
        const w = await world();
        await w.ledger.mint({ owner: w.alice, instrument: w.usdA, amount: amount('5') });
        const end = await w.ledger.ledgerEnd();
        const stream = w.ledger.updates(end, { signal: AbortSignal.timeout(SAFETY_NET_MS) });
        const iterator = stream[Symbol.asyncIterator]();
        const next = iterator.next();
        const commandId = w.cmd('live');
        const outcome = await w.ledger.submitTransfer({
          commandId,
          sender: w.alice,
          receiver: w.bob,
          instrument: w.usdA,
          amount: amount('1'),
        });
        const received = await next;
        await iterator.return?.();
        expect(received.done).toBe(false);
        expect(received.value).toMatchObject({
          offset: outcome.offset,
          updateId: outcome.updateId,
          commandId,
        });
      });

      it('a party filter yields exactly the updates that involve the party', async () => {
        const w = await world();
        const start = await w.ledger.ledgerEnd();
        await threeCommits(w);
        // The ledger's last update involves Carol, so reading up to it sees every candidate.
        await w.ledger.mint({ owner: w.bob, instrument: w.usdA, amount: amount('1') });
        const last = await w.ledger.mint({
          owner: w.carol,
          instrument: w.usdB,
          amount: amount('1'),
        });
        const involves = (u: LedgerUpdate, party: string) =>
          u.events.some(
            (e) =>
              ('sender' in e && (e.sender === party || e.receiver === party)) ||
              ('owner' in e && e.owner === party),
          );
        const all = await readToEnd(w.ledger, start);
        const expected = all.filter((u) => involves(u, w.carol));
        expect(expected.length).toBe(2);
        expect(await readUpdates(w.ledger, start, last.offset, [w.carol])).toEqual(expected);
      });

      itAcrossRestart(
        'after a restart a stored offset resumes with exactly the missing updates, state intact',
        async () => {
          const { w, offerId } = await offerToCarol();
          await w.ledger.submitTransfer({
            commandId: w.cmd('pay'),
            sender: w.alice,
            receiver: w.bob,
            instrument: w.usdA,
            amount: amount('0.0000000001'),
          });
          await w.ledger.mint({ owner: w.carol, instrument: w.usdB, amount: amount('3') });
          const all = await readToEnd(w.ledger, 0);
          const checkpoint = all.at(-3)?.offset ?? 0;
          const stateBefore = await partiesState(w.ledger, w.parties);
          const endBefore = await w.ledger.ledgerEnd();

          const reopened = await restart(w.ledger);
          expect(await reopened.ledgerEnd()).toBe(endBefore);
          expect(await readToEnd(reopened, checkpoint)).toEqual(
            all.filter((u) => u.offset > checkpoint),
          );
          expect(await partiesState(reopened, w.parties)).toEqual(stateBefore);

          const accepted = await reopened.acceptOffer({
            commandId: w.cmd('accept'),
            offerId,
            actor: w.carol,
          });
          expect(accepted.offset).toBeGreaterThan(endBefore);
          expect((await balanceOf(reopened, w.carol, w.usdA)).total).toBe('30');
        },
      );

      itAcrossRestart('ledger time does not go back across a restart', async () => {
        const w = await world();
        const advanced = await w.ledger.advanceClock(3 * 60 * 60_000);
        const minted = await w.ledger.mint({
          owner: w.alice,
          instrument: w.usdA,
          amount: amount('1'),
        });
        const [update] = await readUpdates(w.ledger, minted.offset - 1, minted.offset);
        const reopened = await restart(w.ledger);
        expect((await reopened.now()).getTime()).toBeGreaterThanOrEqual(advanced.getTime());
        const next = await reopened.mint({
          owner: w.alice,
          instrument: w.usdA,
          amount: amount('1'),
        });
        const [later] = await readUpdates(reopened, next.offset - 1, next.offset);
        expect(later?.recordTime.getTime()).toBeGreaterThanOrEqual(
          update?.recordTime.getTime() ?? Number.POSITIVE_INFINITY,
        );
      });
    });

    describe('mining rounds and traffic', () => {
      it('a new round opens every 10 minutes of ledger time with the last price set', async () => {
        const w = await world();
        const ledger = w.ledger;
        const first = await ledger.openMiningRound();
        expect(first.amuletPriceUsd.isPositive()).toBe(true);
        expect(first.opensAt.getTime()).toBeLessThanOrEqual((await ledger.now()).getTime());

        await ledger.setAmuletPrice(amount('0.2'));
        await ledger.setAmuletPrice(amount('0.1618'));
        expect(await ledger.openMiningRound()).toEqual(first);

        // Rounds are read through openMiningRound(); no party's update stream shows them.
        const now = await ledger.advanceClock(MINING_ROUND_MS);
        const next = await ledger.openMiningRound();
        expect(next.round).toBeGreaterThan(first.round);
        expect(next.amuletPriceUsd.toString()).toBe('0.1618');
        expect(next.opensAt.getTime()).toBeGreaterThan(first.opensAt.getTime());
        expect(next.opensAt.getTime()).toBeLessThanOrEqual(now.getTime());

        await ledger.advanceClock(MINING_ROUND_MS);
        const third = await ledger.openMiningRound();
        expect(third.round).toBeGreaterThan(next.round);
        expect(third.amuletPriceUsd.toString()).toBe('0.1618');
      });

      it('traffic parameters are positive', async () => {
        const ledger = await open();
        const traffic = await ledger.trafficParameters();
        expect(traffic.extraTrafficPriceUsdPerMb.isPositive()).toBe(true);
        expect(traffic.transferBytes).toBeGreaterThan(0);
      });
    });

    describe('parties and keys', () => {
      it('an external party is named by its key and knows its signing keys', async () => {
        const w = await world();
        const ledger = w.ledger;
        const key = publicKeyFor(7);
        const other = publicKeyFor(8);
        const { partyId } = await ledger.createParty({ hint: w.hint('dana'), publicKey: key });
        expect(partyId).toBe(`${w.hint('dana')}::${fingerprint(key)}`);
        expect(await ledger.getParty(partyId)).toEqual({ partyId, kind: 'external' });
        expect(await ledger.isSigningKeyOf(partyId, key)).toBe(true);
        expect(await ledger.isSigningKeyOf(partyId, other)).toBe(false);
        expect(await ledger.isSigningKeyOf(w.alice, key)).toBe(false);

        await ledger.addSigningKey(partyId, other);
        // The JSON Ledger API shows no keys added after a party was created: on such an adapter
        // only the key the party is named by counts.
        expect(await ledger.isSigningKeyOf(partyId, other)).toBe(
          harness.addedKeysVisible !== false,
        );
        expect(await ledger.isSigningKeyOf(partyId, key)).toBe(true);
        expect(await ledger.isSigningKeyOf(partyId, publicKeyFor(9))).toBe(false);
      });

      it('says whether the service may act as a party, and what it lacks where it may not', async () => {
        const w = await world();
        expect(await w.ledger.canActAs(w.bob)).toEqual({ canAct: true });
        const external = await w.ledger.canActAs(w.alice);
        expect(external.canAct).toBe(harness.actsForExternalParties === true);
        if (!external.canAct) expect(external.reason).toMatch(/\S/);
        const ghost = await w.ledger.canActAs(`ghost::1220${'0'.repeat(64)}`);
        expect(ghost).toEqual({ canAct: false, reason: expect.stringMatching(/\S/) });
      });

      it('a party created without a key is internal', async () => {
        const w = await world();
        expect(await w.ledger.getParty(w.bob)).toEqual({ partyId: w.bob, kind: 'internal' });
        expect(await w.ledger.getParty(w.alice)).toEqual({ partyId: w.alice, kind: 'external' });
        expect(w.alice.endsWith(`::${fingerprint(publicKeyFor(1))}`)).toBe(true);
        expect(await w.ledger.isSigningKeyOf(w.bob, publicKeyFor(1))).toBe(false);
      });
    });

    describe.runIf(harness.faults === true)('fault injection', () => {
      async function funded() {
        const w = await world();
        await w.ledger.mint({ owner: w.alice, instrument: w.usdA, amount: amount('100') });
        const pay = (commandId: string, receiver = w.bob, wire = '1') =>
          w.ledger.submitTransfer({
            commandId,
            sender: w.alice,
            receiver,
            instrument: w.usdA,
            amount: amount(wire),
          });
        return { w, pay };
      }

      it('latency delays but keeps results and their order', async () => {
        const { w, pay } = await funded();
        const before = await w.ledger.ledgerEnd();
        w.ledger.setFaults({ latencyMs: 20, seed: 1 });
        const first = await pay(w.cmd('slow'));
        const second = await pay(w.cmd('slow'), w.carol, '2');
        expect(await updateIdsAfter(w.ledger, before, [first, second])).toEqual([
          first.updateId,
          second.updateId,
        ]);
        expect(await balanceOf(w.ledger, w.alice, w.usdA)).toEqual({
          total: '99',
          locked: '2',
          spendable: '97',
        });
        expect((await balanceOf(w.ledger, w.bob, w.usdA)).total).toBe('1');
      });

      it('rejectRate 1 refuses every submission with a retryable rejected and changes nothing', async () => {
        const { w, pay } = await funded();
        const offer = await pay(w.cmd('offer'), w.carol);
        if (offer.kind !== 'offer') throw new Error('expected an offer');
        w.ledger.setFaults({ rejectRate: 1, seed: 2 });
        const payId = w.cmd('rejected-pay');
        await expectRefusedWithoutChange(w, () => pay(payId), 'rejected', payId);
        const acceptId = w.cmd('rejected-accept');
        const accept = { commandId: acceptId, offerId: offer.offerId, actor: w.carol };
        await expectRefusedWithoutChange(
          w,
          () => w.ledger.acceptOffer(accept),
          'rejected',
          acceptId,
        );
        expect((await refusal(pay(payId))).retryable).toBe(true);

        w.ledger.setFaults({});
        expect((await pay(payId)).kind).toBe('direct');
        await w.ledger.acceptOffer(accept);
        expect((await balanceOf(w.ledger, w.bob, w.usdA)).total).toBe('1');
        expect((await balanceOf(w.ledger, w.carol, w.usdA)).total).toBe('1');
      });

      it('timeoutAfterCommitRate 1 commits, reports timeout, and a resubmission moves nothing', async () => {
        const { w, pay } = await funded();
        w.ledger.setFaults({ timeoutAfterCommitRate: 1, seed: 3 });
        const commandId = w.cmd('timeout');
        const timedOut = await expectRefused(pay(commandId, w.bob, '6'), 'timeout');
        expect(timedOut.retryable).toBe(true);
        const completion = await w.ledger.lookupCommand(commandId);
        expect(completion).not.toBeNull();
        expect((await balanceOf(w.ledger, w.bob, w.usdA)).total).toBe('6');
        const committed = await observable(w);

        // Whether a deduplicated resubmission also reports the injected timeout is open.
        const retried = await pay(commandId, w.bob, '6').catch((error: unknown) => error);
        if (retried instanceof LedgerError) expect(retried.code).toBe('timeout');
        else expect(retried).toMatchObject({ updateId: completion?.updateId });
        expect(await observable(w)).toEqual(committed);

        w.ledger.setFaults({});
        expect(await pay(commandId, w.bob, '6')).toEqual({
          kind: 'direct',
          updateId: completion?.updateId,
          offset: completion?.offset,
        });
        expect(await observable(w)).toEqual(committed);
        const updates = await readToEnd(w.ledger, 0);
        expect(updates.filter((u) => u.commandId === commandId)).toHaveLength(1);
      });

      it('dropStreamRate 1 drops the stream after each update; resuming from the last offset leaves no gap', async () => {
        const { w, pay } = await funded();
        const before = await w.ledger.ledgerEnd();
        for (let i = 0; i < 3; i++) await pay(w.cmd('drop'));
        const expected = await readToEnd(w.ledger, before);
        const end = await w.ledger.ledgerEnd();
        w.ledger.setFaults({ dropStreamRate: 1, seed: 4 });

        const seen: LedgerUpdate[] = [];
        const drops: unknown[] = [];
        let checkpoint = before;
        for (let attempt = 0; checkpoint < end && attempt < 2 * expected.length; attempt++) {
          try {
            for await (const update of w.ledger.updates(checkpoint, {
              signal: AbortSignal.timeout(SAFETY_NET_MS),
            })) {
              seen.push(update);
              checkpoint = update.offset;
              if (checkpoint >= end) break;
            }
          } catch (error) {
            drops.push(error);
          }
        }
        expect(seen).toEqual(expected);
        expect(drops).toHaveLength(expected.length - 1);
        for (const drop of drops) expect((drop as LedgerError).code).toBe('stream_dropped');
      });

      it('duplicateDeliveryRate 1 delivers every update twice; deduplicating by offset sees each once', async () => {
        const { w, pay } = await funded();
        const before = await w.ledger.ledgerEnd();
        for (let i = 0; i < 3; i++) await pay(w.cmd('dup'));
        const expected = await readToEnd(w.ledger, before);
        w.ledger.setFaults({ duplicateDeliveryRate: 1, seed: 5 });

        const deliveries: LedgerUpdate[] = [];
        const signal = AbortSignal.timeout(SAFETY_NET_MS);
        for await (const update of w.ledger.updates(before, { signal })) {
          deliveries.push(update);
          if (deliveries.length === 2 * expected.length) break;
        }
        expect(deliveries).toEqual(expected.flatMap((u) => [u, u]));
        const byOffset = new Map(deliveries.map((u) => [u.offset, u]));
        expect([...byOffset.values()]).toEqual(expected);
      });

      it('with faults off again the ledger behaves normally', async () => {
        const { w, pay } = await funded();
        w.ledger.setFaults({
          latencyMs: 5,
          rejectRate: 1,
          timeoutAfterCommitRate: 1,
          dropStreamRate: 1,
          duplicateDeliveryRate: 1,
          seed: 6,
        });
        await expectRefused(pay(w.cmd('faulty')), 'rejected');
        w.ledger.setFaults({});
        const before = await w.ledger.ledgerEnd();
        const first = await pay(w.cmd('calm'));
        const second = await pay(w.cmd('calm'));
        expect(await updateIdsAfter(w.ledger, before, [first, second])).toEqual([
          first.updateId,
          second.updateId,
        ]);
        expect((await balanceOf(w.ledger, w.bob, w.usdA)).total).toBe('2');
      });
    });
  });
}
