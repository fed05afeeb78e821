/**
 * Faults a test puts the engine through: a crash at one step boundary, and a ledger that fails one
 * way while answering as the real one otherwise.
 */
import { LedgerError, type LedgerPort } from '@poolparty/ledger';
import type { EngineFaults, EngineStep } from '../src/index.js';

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

/** A ledger that refuses every transfer, as a participant that keeps rejecting a command. */
export function refusingTransfers(ledger: LedgerPort): LedgerPort {
  return ledgerWith(ledger, {
    submitTransfer: async () => {
      throw new LedgerError('rejected', 'the participant refused the transfer');
    },
  });
}
