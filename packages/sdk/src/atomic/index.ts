/**
 * @poolparty/sdk/atomic: atomic swaps — both legs of a swap in one ledger transaction the wallet
 * signs, so the pool never holds the input unpaid — in an entry of its own, so that an app that
 * only uses the deposit flow does not carry the prepared-transaction reader.
 * `withAtomicSwaps(pp)` gives a client `pp.atomicSwaps`.
 *
 * @example
 * const pp = withAtomicSwaps(new PoolParty({ apiKey, walletToken }));
 * const swap = await pp.atomicSwaps.create({ fromToken, toToken, amount, keyFingerprint });
 * await swap.verify(); // the legs it really holds, or a ValidationError: do not sign
 * const done = await swap.execute(signer); // completed, or ended with nothing moved
 */
import type { PoolParty } from '../client.js';
import { withEntry } from '../client-parts.js';
import { AtomicSwaps } from '../resources/atomic-swaps.js';

export type {
  AtomicSwaps,
  CreateAtomicSwapParams,
  DisclosedHolding,
} from '../resources/atomic-swaps.js';
export type {
  AtomicSwap,
  AtomicSwapHistoryEntry,
  AtomicSwapLeg,
  AtomicSwapState,
  AtomicSwapStatus,
} from '../types.js';
export {
  AtomicSwapObject,
  type VerifiedLegs,
  type VerifyOptions,
  verifyAtomicSwap,
  type WalletSigner,
} from './atomic-swap.js';
export { type PreparedTransfer, transfersOf } from './prepared-transaction.js';

/** A client with `atomicSwaps`: what `withAtomicSwaps` returns. */
export type WithAtomicSwaps<Client extends PoolParty = PoolParty> = Client & {
  /** Atomic swaps of the wallet party: prepare, verify and sign, follow, cancel. */
  readonly atomicSwaps: AtomicSwaps;
};

/**
 * Gives `client` an `atomicSwaps` property — over the client's own API key, wallet token,
 * `fetch`, timeouts and retries — and returns the same client, typed with it. Calling it again
 * returns it unchanged. Throws `ValidationError` for anything that is not a PoolParty client.
 */
export function withAtomicSwaps<Client extends PoolParty>(client: Client): WithAtomicSwaps<Client> {
  return withEntry(client, 'atomicSwaps', ({ sender, follow }) => new AtomicSwaps(sender, follow));
}
