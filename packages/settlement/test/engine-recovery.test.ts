/**
 * Exactly once under crashes and ledger faults (docs/spec/lifecycle.md#exactly-once). A crash is
 * injected at a step boundary of a first engine; a second engine then starts on the same store and
 * ledger, and the swap must end once, paid (or refunded) once, to the last unit.
 */
import { Amount } from '@poolparty/core';
import { LedgerError, type TransferCommand } from '@poolparty/ledger';
import { listDepositsInStatus, listIntentEvents } from '@poolparty/store';
import { recordedAmount } from '@poolparty/store/testing';
import { describe, expect, it } from 'vitest';
import type { EngineStep } from '../src/index.js';
import { type EngineHarness, useEngineWorld, waitFor } from '../testing/engine.js';
import { allUpdates } from '../testing/scale-out.js';

const world = useEngineWorld();
let h: EngineHarness;

const amount = (text: string) => Amount.parse(text);

interface Scenario {
  readonly name: string;
  /** How often each step boundary is passed once the scenario starts. */
  readonly steps: readonly (readonly [EngineStep, number])[];
  /** Creates what the deposit is for; returns a check to run once the engine is done. */
  run(harness: EngineHarness): Promise<() => Promise<void>>;
}

/** USDCx → Amulet: the deposit is an offer the engine accepts, then the payout is direct. */
const twoStepSwap: Scenario = {
  name: 'a two-step swap',
  steps: [
    ['update_ingested', 3],
    ['command_recorded', 2],
    ['command_submitted', 2],
    ['execution_committed', 1],
  ],
  async run(harness) {
    const { alice, amulet, usdcx } = harness;
    const usdcxBefore = await harness.balance(alice, usdcx);
    const amuletBefore = await harness.balance(alice, amulet);
    const intent = await harness.createIntent(alice, usdcx, '250');
    await harness.deposit(alice, usdcx, '250', { reference: intent.depositReference });
    return async () => {
      const done = await harness.waitForStatus(intent.intentId, 'completed');
      const output = recordedAmount(done.actualOutput);
      expect(output).toEqual(intent.expectedOutput);
      expect(await harness.balance(alice, usdcx)).toEqual(usdcxBefore.sub(amount('250')));
      expect(await harness.balance(alice, amulet)).toEqual(amuletBefore.add(output));
      expect(await harness.transfersWithReason(`payout:${intent.intentId}`)).toBe(1);
      await expectEachStateOnce(intent.intentId);
      await harness.booksMatchLedger();
    };
  },
};

/** Amulet → USDCx refused at execution (price-impact cap): the refund leg. */
const refundedSwap: Scenario = {
  name: 'a refunded swap',
  steps: [
    ['update_ingested', 2],
    ['command_recorded', 1],
    ['command_submitted', 1],
    ['execution_committed', 1],
  ],
  async run(harness) {
    const { alice, amulet } = harness;
    const before = await harness.balance(alice, amulet);
    const intent = await harness.createIntent(alice, amulet, '1000');
    await harness.db.query(
      `UPDATE pools SET price_impact_cap = 0.00001 WHERE pool_id = 'amulet-usdcx'`,
    );
    await harness.deposit(alice, amulet, '1000');
    return async () => {
      await harness.waitForStatus(intent.intentId, 'price_impact_exceeded');
      expect(await harness.balance(alice, amulet)).toEqual(before.sub(intent.networkFeeAmount));
      expect(await harness.transfersWithReason(`refund:${intent.intentId}`)).toBe(1);
      await expectEachStateOnce(intent.intentId);
      await harness.booksMatchLedger();
    };
  },
};

/** A deposit without an intent: refunded minus the estimated fee. */
const unmatchedDeposit: Scenario = {
  name: 'an unmatched deposit',
  steps: [
    ['update_ingested', 2],
    ['command_recorded', 1],
    ['command_submitted', 1],
  ],
  async run(harness) {
    const { bob, amulet } = harness;
    const before = await harness.balance(bob, amulet);
    await harness.deposit(bob, amulet, '300');
    return async () => {
      const [returned] = await waitFor(async () => {
        const rows = await listDepositsInStatus(harness.db, 'returned', 10);
        return rows.length > 0 ? rows : null;
      }, 'the deposit to be returned');
      const fee = amount('8.275862069');
      expect(await harness.balance(bob, amulet)).toEqual(before.sub(fee));
      expect(await harness.transfersWithReason(`refund:${returned?.depositId}`)).toBe(1);
      await harness.booksMatchLedger();
    };
  },
};

async function expectEachStateOnce(intentId: string): Promise<void> {
  const history = (await listIntentEvents(world.db, intentId)).map((event) => event.status);
  expect(new Set(history).size).toBe(history.length);
}

/**
 * Runs the scenario on an engine that crashes the `occurrence`-th time it passes `step`, then
 * finishes it on a fresh engine. The crash is armed only once the engine caught up with the
 * seed, so occurrences count the scenario's own steps.
 */
async function crashThenRecover(scenario: Scenario, step: EngineStep, occurrence: number) {
  h = await world.harness();
  let armed = false;
  let passed = 0;
  const first = await h.startEngine({
    faults: {
      crashAt: (at) => {
        if (armed && at === step && ++passed === occurrence) throw new Error(`crash at ${at}`);
      },
    },
  });
  await h.caughtUp();
  armed = true;
  const check = await scenario.run(h);
  await waitFor(async () => first.crashed, `a crash at ${step} #${occurrence}`);
  await h.stopEngine();
  await h.startEngine();
  await check();
}

describe('a crash at any step boundary, then a restart: the swap ends once, paid once', () => {
  for (const scenario of [twoStepSwap, refundedSwap, unmatchedDeposit]) {
    for (const [step, times] of scenario.steps) {
      for (let occurrence = 1; occurrence <= times; occurrence++) {
        it(`${scenario.name}: crash at ${step} #${occurrence}`, async () => {
          await crashThenRecover(scenario, step, occurrence);
        });
      }
    }
  }

  it('a crash during recovery itself is recovered by the next start', async () => {
    h = await world.harness();
    let armed = false;
    const first = await h.startEngine({
      faults: {
        crashAt: (at) => {
          if (armed && at === 'command_recorded') throw new Error('crash before submitting');
        },
      },
    });
    await h.caughtUp();
    armed = true;
    const check = await twoStepSwap.run(h);
    await waitFor(async () => first.crashed, 'the first crash');
    await h.stopEngine();
    const second = await h.startEngine({
      faults: {
        crashAt: (at) => {
          if (at === 'recovered') throw new Error('crash after recovery');
        },
      },
    });
    expect(second.crashed).toBe(true);
    await h.stopEngine();
    await h.startEngine();
    await check();
  });
});

/** Submits a wallet's transfer through refusals and lost answers, as a wallet would retry. */
async function depositThroughFaults(
  harness: EngineHarness,
  command: Omit<TransferCommand, 'commandId'>,
): Promise<void> {
  const commandId = `wallet-${Math.random().toString(36).slice(2)}`;
  for (;;) {
    try {
      await harness.ledger.submitTransfer({ ...command, commandId });
      return;
    } catch (error) {
      if (error instanceof LedgerError && error.code === 'timeout') return;
      if (!(error instanceof LedgerError && error.code === 'rejected')) throw error;
    }
  }
}

describe('an expired payout offer the engine withdraws, with a crash on the way', () => {
  for (const step of ['command_recorded', 'command_submitted'] as const) {
    it(`a crash at ${step} of the withdrawal: withdrawn once, the leg expired once`, async () => {
      h = await world.harness();
      await h.startEngine();
      // Dave pre-approves Amulet only: the USDCx payout is an offer he leaves unanswered.
      const dave = await h.newParty('dave', [h.amulet], [[h.amulet, '1000']]);
      const intent = await h.createIntent(dave, h.amulet, '1000');
      await h.deposit(dave, h.amulet, '1000');
      const [offer] = await waitFor(async () => {
        const offers = await h.ledger.getPendingOffers(dave.partyId);
        const { payoutOffer } = await h.intent(intent.intentId);
        return offers.length > 0 && payoutOffer?.state === 'offered' ? offers : null;
      }, 'the payout offer');
      if (offer === undefined) throw new Error('no payout offer');
      await h.stopEngine();

      const first = await h.startEngine({
        faults: {
          crashAt: (at) => {
            if (at === step) throw new Error(`crash at ${at}`);
          },
        },
      });
      await h.advanceClock(offer.executeBefore.getTime() - h.clock.now().getTime() + 1);
      await waitFor(async () => first.crashed, `a crash at ${step}`);
      await h.stopEngine();
      await h.startEngine();

      await h.waitForStatus(intent.intentId, 'output_failed');
      expect(await h.ledger.getPendingOffers(dave.partyId)).toEqual([]);
      const withdrawals = (await allUpdates(h.ledger)).filter((update) =>
        update.events.some((e) => e.kind === 'offer_withdrawn' && e.offerId === offer.offerId),
      );
      expect(withdrawals).toHaveLength(1);
      const events = await listIntentEvents(world.db, intent.intentId);
      expect(events.map((e) => e.legEvent ?? e.status).slice(5)).toEqual([
        'sending_output',
        'payout_offered',
        'payout_expired',
        'output_failed',
      ]);
      await h.booksMatchLedger();
    });
  }
});

describe('ledger faults', () => {
  it('duplicate deliveries, dropped streams, refusals and timeouts after commit pay once', async () => {
    h = await world.harness();
    h.ledger.setFaults({
      duplicateDeliveryRate: 0.5,
      dropStreamRate: 0.2,
      rejectRate: 0.3,
      timeoutAfterCommitRate: 0.5,
      seed: 42,
    });
    await h.startEngine({
      settings: { refundAttemptsMax: 50, payoutAttemptsMax: 50, offerActionAttemptsMax: 50 },
    });
    const { alice, bob, amulet, usdcx } = h;
    const pool = h.pool().swapParty;
    const aliceUsdcx = await h.balance(alice, usdcx);
    const aliceAmulet = await h.balance(alice, amulet);
    const bobAmulet = await h.balance(bob, amulet);
    const bobUsdcx = await h.balance(bob, usdcx);
    const swapOfAlice = await h.createIntent(alice, usdcx, '250');
    const swapOfBob = await h.createIntent(bob, amulet, '2000');
    await depositThroughFaults(h, {
      sender: alice.partyId,
      receiver: pool,
      instrument: usdcx,
      amount: amount('250'),
    });
    await depositThroughFaults(h, {
      sender: bob.partyId,
      receiver: pool,
      instrument: amulet,
      amount: amount('2000'),
    });

    const alices = await h.waitForStatus(swapOfAlice.intentId, 'completed');
    const bobs = await h.waitForStatus(swapOfBob.intentId, 'completed');
    h.ledger.setFaults({});
    expect(await h.balance(alice, usdcx)).toEqual(aliceUsdcx.sub(amount('250')));
    expect(await h.balance(alice, amulet)).toEqual(
      aliceAmulet.add(recordedAmount(alices.actualOutput)),
    );
    expect(await h.balance(bob, amulet)).toEqual(bobAmulet.sub(amount('2000')));
    expect(await h.balance(bob, usdcx)).toEqual(bobUsdcx.add(recordedAmount(bobs.actualOutput)));
    expect(await h.transfersWithReason(`payout:${swapOfAlice.intentId}`)).toBe(1);
    expect(await h.transfersWithReason(`payout:${swapOfBob.intentId}`)).toBe(1);
    await expectEachStateOnce(swapOfAlice.intentId);
    await expectEachStateOnce(swapOfBob.intentId);
    await h.booksMatchLedger();
  });

  it('every submission times out after committing: confirmed from the stream, sent once', async () => {
    h = await world.harness();
    await h.startEngine();
    await h.caughtUp();
    const { alice, amulet, usdcx } = h;
    const aliceUsdcx = await h.balance(alice, usdcx);
    const intent = await h.createIntent(alice, amulet, '1000');
    await h.deposit(alice, amulet, '1000');
    h.ledger.setFaults({ timeoutAfterCommitRate: 1 });
    const done = await h.waitForStatus(intent.intentId, 'completed');
    h.ledger.setFaults({});
    expect(await h.balance(alice, usdcx)).toEqual(
      aliceUsdcx.add(recordedAmount(done.actualOutput)),
    );
    expect(await h.transfersWithReason(`payout:${intent.intentId}`)).toBe(1);
    await h.booksMatchLedger();
  });
});
