/**
 * What the swap app needs from a wallet, whichever it is: the built-in devnet wallet or a Canton
 * wallet reached through the dApp API (CIP-0103). The pages speak only to this interface.
 */
import type { SwapTerms } from '@poolparty/sdk';
import type { WalletSigner } from '@poolparty/sdk/atomic';

/** `signMessage`'s answer, as `walletAuth.verifyChallenge` takes it. */
export interface SignedChallenge {
  /** Base64 (or hex) of the 64-byte Ed25519 signature. */
  readonly signature: string;
  /** Base64 (or hex, or base64 DER SPKI) of the party's public key. */
  readonly publicKey: string;
}

/** The deposit a swap asks for: exactly `expectedAmount` to `depositAddress`. */
export type DepositTerms = Pick<
  SwapTerms,
  | 'intentId'
  | 'depositAddress'
  | 'depositReference'
  | 'expectedAmount'
  | 'inputToken'
  | 'inputTokenAdmin'
  | 'expiresAt'
>;

/** What a party can spend of one token now: its unlocked holdings, summed. */
export interface Spendable {
  readonly token: string;
  readonly admin: string;
  readonly amount: string;
}

export interface Wallet {
  /** `devnet` or `canton`: which implementation, for the page to say so. */
  readonly kind: 'devnet' | 'canton';
  /** For people, e.g. "Devnet wallet" or the dApp API provider's name. */
  readonly label: string;
  /** Connects (asking the user where the wallet does) and answers the party it acts for. */
  connect(): Promise<string>;
  /** The connected party; null before `connect`. */
  readonly partyId: string | null;
  /** Signs the wallet challenge's UTF-8 text with the party's key. */
  signMessage(message: string): Promise<SignedChallenge>;
  /** The party's unlocked holdings per token, for the balances beside the swap form. */
  spendable(): Promise<readonly Spendable[]>;
  /**
   * Signs an atomic swap's prepared transaction hash with the party's own key
   * (docs/spec/atomic-swaps.md); absent for a wallet that can only send transfers, which swaps
   * by deposit instead.
   */
  hashSigner?(): Promise<WalletSigner>;
  /** Sends a swap's deposit from the party. */
  sendDeposit(terms: DepositTerms): Promise<void>;
  /**
   * Accepts a payout or refund offer made to the party; `tokenAdmin` is the offered token's
   * admin, whose registry gives the accept context on Canton.
   */
  acceptOffer(offerId: string, tokenAdmin: string): Promise<void>;
  /** Forgets the connection. */
  disconnect(): Promise<void>;
}
