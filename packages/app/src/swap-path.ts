/**
 * Which way the swap card swaps (docs/spec/atomic-swaps.md, "The web app"): atomically, both legs
 * in one transaction the wallet signs, whenever the wallet can sign a hash and the service
 * prepares such transactions; else by deposit, with the one line the card shows saying why. Pure.
 */

export type SwapPath =
  | { readonly kind: 'atomic' }
  | {
      readonly kind: 'deposit';
      /** The card's one line on why the swap goes by deposit; null when there is nothing to say. */
      readonly note: string | null;
    };

export interface SwapPathFacts {
  /** Whether the connected wallet signs hashes; null without a wallet. */
  readonly walletSignsHashes: boolean | null;
  /**
   * The service's ledger prepares nothing to sign: its configuration says so, or it answered
   * `atomic_swaps_unavailable`.
   */
  readonly serviceDepositOnly: boolean;
}

export const DEPOSIT_ONLY_SERVICE = 'This service swaps by deposit, refunded if the price moves.';
export const TRANSFER_ONLY_WALLET =
  'Your wallet only sends transfers: this swap goes by deposit, refunded if the price moves.';

export function swapPath(facts: SwapPathFacts): SwapPath {
  if (facts.walletSignsHashes === null) return { kind: 'deposit', note: null };
  if (facts.serviceDepositOnly) return { kind: 'deposit', note: DEPOSIT_ONLY_SERVICE };
  if (!facts.walletSignsHashes) return { kind: 'deposit', note: TRANSFER_ONLY_WALLET };
  return { kind: 'atomic' };
}
