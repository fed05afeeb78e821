/**
 * Faults a test puts the engine through: a crash at one step boundary, and a ledger that fails one
 * way while answering as the real one otherwise; and a swap whose refund such a ledger parks.
 */
import { LedgerError, type LedgerPort, REASON_META_KEY } from '@poolparty/ledger';
import type { IntentRecord } from '@poolparty/store';
import type { Engine, EngineFaults, EngineStep } from '../src/index.js';
import { type EngineHarness, waitFor } from './engine.js';

/** Crashes the engine the first time it passes `step`, and never again. */
export function crashOnceAt(step: EngineStep): EngineFaults {
  let armed = true;
  return {
    crashAt: (at) => {
      if (armed && at === step) {
        armed = false;
        throw new Error(`crash at ${at}`);
      }
    },
  };
}

/**
 * Runs `act` on an engine that crashes the first time it passes `step`, and once it has crashed
 * starts a sound engine in its place, as a restarted process would; answers what `act` did.
 */
export async function acrossACrashAt<T>(
  h: EngineHarness,
  step: EngineStep,
  act: (crashing: Engine) => Promise<T>,
): Promise<T> {
  const crashing = await h.startEngine({ faults: crashOnceAt(step) });
  const done = await act(crashing);
  await waitFor(async () => crashing.crashed, `a crash at ${step}`);
  await h.stopEngine();
  await h.startEngine();
  return done;
}

/** `ledger`, with the methods `overrides` names answering in their place. */
export function ledgerWith(ledger: LedgerPort, overrides: Partial<LedgerPort>): LedgerPort {
  return new Proxy(ledger, {
    get(target, property, receiver) {
      if (Object.hasOwn(overrides, property)) return overrides[property as keyof LedgerPort];
      const value = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/**
 * A ledger that refuses every refund submission (a transfer whose reason is `refund:…`) while
 * `refusing()` says so, as a ledger under stress may do; other transfers go through.
 */
export function refusingRefunds(ledger: LedgerPort, refusing = () => true): LedgerPort {
  return ledgerWith(ledger, {
    submitTransfer: async (command) => {
      const refund = command.meta?.[REASON_META_KEY]?.startsWith('refund:') ?? false;
      if (refund && refusing()) throw new LedgerError('rejected', 'refunds are refused');
      return ledger.submitTransfer(command);
    },
  });
}

/**
 * A swap of 1000 Amulet refused at execution (a price impact cap it cannot meet) whose refund
 * `ledger` refuses until the engine gives up: the intent as it ends, `refund_failed`. The engine
 * runs on `ledger` from here on.
 */
export async function parkedRefund(h: EngineHarness, ledger: LedgerPort): Promise<IntentRecord> {
  await h.startEngine({ ledger });
  const intent = await h.createIntent(h.alice, h.amulet, '1000');
  await h.db.query(`UPDATE pools SET price_impact_cap = 0.00001 WHERE pool_id = 'amulet-usdcx'`);
  await h.deposit(h.alice, h.amulet, '1000', { reference: intent.depositReference });
  return h.waitForStatus(intent.intentId, 'refund_failed');
}

/** A ledger that refuses every transfer, as a participant that keeps rejecting a command. */
export function refusingTransfers(ledger: LedgerPort): LedgerPort {
  return ledgerWith(ledger, {
    submitTransfer: async () => {
      throw new LedgerError('rejected', 'the participant refused the transfer');
    },
  });
}
