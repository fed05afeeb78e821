/**
 * One failing item never stops the rest (docs/operations.md#items-set-aside): an update whose
 * application keeps throwing, and a swap whose execution keeps throwing, are each set aside with
 * an operator flag after `itemAttemptsMax` attempts, while every swap around them completes. The
 * update stays set aside across a restart — its application is never tried again — and a swap
 * set aside is executed once its flag is resolved.
 */
import { Amount } from '@poolparty/core';
import { REASON_META_KEY } from '@poolparty/ledger';
import { type IntentRecord, listOpenOperatorFlags, resolveOperatorFlag } from '@poolparty/store';
import { describe, expect, it } from 'vitest';
import type { EngineFaults } from '../src/index.js';
import { type EngineHarness, useEngineWorld, waitFor } from '../testing/engine.js';
import { booksAndHoldings } from '../testing/holdings.js';
import { depositFor, fundedParties } from '../testing/scale-out.js';

const world = useEngineWorld();
const AROUND = 100;
const ATTEMPTS_MAX = 3;

async function swaps(h: EngineHarness, count: number): Promise<IntentRecord[]> {
  const parties = await fundedParties(h.ledger, count, [h.amulet, h.usdcx], h.amulet, '1000');
  const intents: IntentRecord[] = [];
  for (const party of parties)
    intents.push(await h.createIntent({ partyId: party }, h.amulet, '100'));
  return intents;
}

function completedAll(h: EngineHarness, intents: readonly IntentRecord[]): Promise<void> {
  return Promise.all(intents.map((i) => h.waitForStatus(i.intentId, 'completed'))).then(() => {});
}

function carries(reference: string, update: Parameters<NonNullable<EngineFaults['applying']>>[0]) {
  return update.events.some((e) => 'meta' in e && e.meta[REASON_META_KEY] === reference);
}

describe('an item that keeps failing', () => {
  it('sets aside an update whose application throws, and settles the 100 swaps around it', async () => {
    const h = await world.harness();
    const intents = await swaps(h, AROUND + 1);
    const poisoned = intents[AROUND / 2] as IntentRecord;
    let attempts = 0;
    const faults: EngineFaults = {
      applying: (update) => {
        if (!carries(poisoned.depositReference, update)) return;
        attempts += 1;
        throw new TypeError('injected: this update cannot be applied');
      },
    };
    await h.startEngine({ faults, settings: { itemAttemptsMax: ATTEMPTS_MAX } });
    for (const intent of intents) await depositFor(h.ledger, intent, h.amulet);
    const others = intents.filter((i) => i !== poisoned);
    await completedAll(h, others);
    const [flag] = await waitFor(async () => {
      const flags = await listOpenOperatorFlags(h.db, 10);
      return flags.length > 0 ? flags : null;
    }, 'the update to be set aside');
    expect(flag).toMatchObject({
      kind: 'update_set_aside',
      details: {
        attempts: ATTEMPTS_MAX,
        error: 'TypeError: injected: this update cannot be applied',
      },
    });
    // Each attempt alone counts; a batch it was part of may have tried it once more first.
    const tried = attempts;
    expect(tried).toBeGreaterThanOrEqual(ATTEMPTS_MAX);
    expect(tried).toBeLessThanOrEqual(2 * ATTEMPTS_MAX);
    expect((await h.intent(poisoned.intentId)).status).toBe('pending');
    // Its deposit is with the swap party, outside the books, and the flag names it.
    await h.caughtUp();
    const { books, holdings } = await booksAndHoldings(h.db, h.ledger, poisoned.poolId);
    const { events } = (flag?.details ?? {}) as { events?: { amount: string; sender: string }[] };
    expect(events).toEqual([
      expect.objectContaining({
        sender: poisoned.walletParty,
        amount: poisoned.expectedAmount.toString(),
      }),
    ]);
    expect(Amount.parse(holdings.a).sub(Amount.parse(books.a))).toEqual(poisoned.expectedAmount);

    // A restart resumes past it: the update is never applied again, the flag stays one.
    await h.stopEngine();
    await h.startEngine({ faults, settings: { itemAttemptsMax: ATTEMPTS_MAX } });
    const [after] = await swaps(h, 1);
    if (after === undefined) throw new Error('no swap');
    await depositFor(h.ledger, after, h.amulet);
    await h.waitForStatus(after.intentId, 'completed');
    expect(attempts).toBe(tried);
    const flags = await listOpenOperatorFlags(h.db, 10);
    expect(flags.map((f) => [f.kind, f.id])).toEqual([['update_set_aside', flag?.id]]);
  });

  it('sets aside a swap whose execution throws, and executes it once its flag is resolved', async () => {
    const h = await world.harness();
    const intents = await swaps(h, 21);
    const stuck = intents[7] as IntentRecord;
    let healed = false;
    let attempts = 0;
    const faults: EngineFaults = {
      executing: (intentId) => {
        if (intentId !== stuck.intentId || healed) return;
        attempts += 1;
        throw new RangeError('injected: this swap cannot be planned');
      },
    };
    await h.startEngine({ faults, settings: { itemAttemptsMax: ATTEMPTS_MAX } });
    for (const intent of intents) await depositFor(h.ledger, intent, h.amulet);
    await completedAll(
      h,
      intents.filter((i) => i !== stuck),
    );
    const [flag] = await waitFor(async () => {
      const flags = await listOpenOperatorFlags(h.db, 10);
      return flags.length > 0 ? flags : null;
    }, 'the swap to be set aside');
    expect(flag).toMatchObject({
      kind: 'execution_set_aside',
      intentId: stuck.intentId,
      details: { attempts: ATTEMPTS_MAX },
    });
    const tried = attempts;
    expect(tried).toBeGreaterThanOrEqual(ATTEMPTS_MAX);
    expect(tried).toBeLessThanOrEqual(2 * ATTEMPTS_MAX);
    expect(['deposit_received', 'forwarded']).toContain((await h.intent(stuck.intentId)).status);

    // Resolved by an operator (the cause fixed): the swap is queued again and completes.
    healed = true;
    await resolveOperatorFlag(h.db, { id: flag?.id ?? 0, resolution: 'fixed', now: new Date() });
    h.engine?.poke();
    await h.waitForStatus(stuck.intentId, 'completed');
    expect(attempts).toBe(tried);
  });
});
