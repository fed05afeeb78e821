/**
 * A ledger with an atomic-swap port beside it, as one object: `atomicSwapPortOf(ledger)` finds
 * the port where it finds every other method of the ledger, as it does on the canton adapter,
 * which has both. The embedded ledger's port is built outside this package (the devnet ledger's
 * interactive submission), so it is joined to the local ledger here.
 */
import type { AtomicSwapPort, LedgerPort } from './port.js';

/**
 * The ledger, answering the port's two methods from `port`. Every other member is the ledger's
 * own, its methods run on the ledger itself: an implementation keeps its state on `this`.
 */
export function withAtomicSwapPort<L extends LedgerPort>(
  ledger: L,
  port: AtomicSwapPort,
): L & AtomicSwapPort {
  return new Proxy(ledger, {
    get(target, property) {
      if (property === 'prepareAtomicSwap') return port.prepareAtomicSwap;
      if (property === 'executeAtomicSwap') return port.executeAtomicSwap;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  }) as L & AtomicSwapPort;
}
