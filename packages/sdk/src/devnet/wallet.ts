/**
 * A devnet party with its key: what a Canton wallet does for its user, on the local devnet —
 * sign the PoolParty challenge, send a swap's deposit, accept or reject offers, sign an atomic
 * swap's prepared transaction.
 */
import type { WalletSigner } from '../atomic/atomic-swap.js';
import { DepositRefusedError } from '../errors.js';
import type { CallOptions } from '../http/request-sender.js';
import type { VerifyChallengeParams } from '../resources/wallet-auth.js';
import type { DepositCheck } from '../swap/deposit-check.js';
import type { Challenge, LiquidityIntent, SwapIntent, WalletToken } from '../types.js';
import type { Devnet, SignedCallOptions, TransferParams } from './devnet.js';
import { fromBase64 } from './encoding.js';
import { keyFingerprint, type SignedMessage, type Signer } from './signer.js';
import type {
  DevnetBalance,
  DevnetFaucetResult,
  DevnetOffer,
  DevnetOfferActionResult,
  DevnetTransferResult,
} from './types.js';

/** The part of a `PoolParty` client that wallet authentication uses. */
export interface WalletAuthClient {
  readonly walletAuth: {
    requestChallenge(partyId: string, options?: CallOptions): Promise<Challenge>;
    verifyChallenge(params: VerifyChallengeParams, options?: CallOptions): Promise<WalletToken>;
  };
}

/**
 * What a swap's deposit needs from the intent (`swaps.create` returns all of it). A swap object
 * also brings its `canDeposit()`, which the deposit asks first.
 */
export type DepositTerms = Pick<
  SwapIntent,
  'depositAddress' | 'inputToken' | 'inputTokenAdmin' | 'expectedAmount' | 'depositReference'
> & {
  readonly canDeposit?: (options?: CallOptions) => Promise<DepositCheck>;
};

/** A devnet party and the key that signs for it. */
export class DevnetWallet {
  /** `<hint>::<fingerprint>`. */
  readonly partyId: string;
  /** Base64 of the raw 32-byte public key. */
  readonly publicKey: string;
  readonly signer: Signer;
  readonly #devnet: Devnet;

  constructor(devnet: Devnet, partyId: string, signer: Signer) {
    this.#devnet = devnet;
    this.partyId = partyId;
    this.signer = signer;
    this.publicKey = signer.publicKey;
  }

  /** Signs a challenge `message` as a Canton wallet's `signMessage` does. */
  signMessage(message: string): Promise<SignedMessage> {
    return this.signer.signMessage(message);
  }

  /**
   * Wallet authentication through `pp` (a `PoolParty` client): request a challenge, sign its
   * message, and exchange it for a wallet token (valid 15 minutes).
   */
  async authenticate(pp: WalletAuthClient, options?: CallOptions): Promise<WalletToken> {
    const challenge = await pp.walletAuth.requestChallenge(this.partyId, options);
    const signed = await this.signMessage(challenge.message);
    return pp.walletAuth.verifyChallenge(
      { partyId: this.partyId, nonce: challenge.nonce, ...signed },
      options,
    );
  }

  /**
   * This party as the signer of an atomic swap (`execute(signer)` of `@poolparty/sdk/atomic`):
   * its key's fingerprint, the `keyFingerprint` to prepare the swap for, and its signature of a
   * prepared transaction's hash.
   */
  async atomicSigner(): Promise<WalletSigner> {
    const publicKey = fromBase64(this.publicKey) ?? new Uint8Array();
    return {
      partyId: this.partyId,
      fingerprint: await keyFingerprint(publicKey),
      publicKey,
      signHash: (hash) => this.signer.sign(hash),
    };
  }

  /** Mints `amount` of `token` to this party. */
  fund(token: string, amount: string, admin?: string): Promise<DevnetFaucetResult> {
    return this.#devnet.faucet({
      partyId: this.partyId,
      token,
      amount,
      ...(admin !== undefined && { admin }),
    });
  }

  /** This party's balances. */
  holdings(): Promise<DevnetBalance[]> {
    return this.#devnet.holdings(this.partyId);
  }

  /** The spendable amount of `token` (under `admin`, when the symbol has several), '0' if none. */
  async balance(token: string, admin?: string): Promise<string> {
    const holdings = await this.holdings();
    const found = holdings.find((h) => h.token === token && (admin ?? h.admin) === h.admin);
    return found?.amount ?? '0';
  }

  /** A transfer from this party. */
  transfer(params: Omit<TransferParams, 'sender'>): Promise<DevnetTransferResult> {
    return this.#devnet.transfer(this.signer, { ...params, sender: this.partyId });
  }

  /**
   * Sends a swap's deposit: exactly `expectedAmount` of the input token to `depositAddress`, with
   * `depositReference` as the transfer reason. Given a swap object (`swaps.create`, `swaps.get`),
   * it first asks `swap.canDeposit()` and, when a deposit sent now could not complete the swap
   * (the price moved under `minOutput`, the intent is no longer pending, …), sends nothing and
   * throws `DepositRefusedError` with the figures. Plain terms are sent as they are.
   */
  async deposit(intent: DepositTerms, options?: CallOptions): Promise<DevnetTransferResult> {
    if (typeof intent.canDeposit === 'function') {
      const check = await intent.canDeposit(options);
      if (!check.ok) throw new DepositRefusedError(check);
    }
    return this.transfer({
      receiver: intent.depositAddress,
      token: intent.inputToken,
      admin: intent.inputTokenAdmin,
      amount: intent.expectedAmount,
      reason: intent.depositReference,
    });
  }

  /**
   * Sends one side of a liquidity intent: `amount` (by default what the intent expects) of the
   * side's token to the pool's LP party, with `depositReference` as the transfer reason. A token
   * the LP party does not pre-approve arrives as an offer, which the service accepts.
   */
  depositLiquidity(
    intent: Pick<
      LiquidityIntent,
      | 'depositAddress'
      | 'depositReference'
      | 'expected'
      | 'tokenA'
      | 'tokenAAdmin'
      | 'tokenB'
      | 'tokenBAdmin'
    >,
    side: 'a' | 'b',
    amount: string = intent.expected[side],
  ): Promise<DevnetTransferResult> {
    return this.transfer({
      receiver: intent.depositAddress,
      token: side === 'a' ? intent.tokenA : intent.tokenB,
      admin: side === 'a' ? intent.tokenAAdmin : intent.tokenBAdmin,
      amount,
      reason: intent.depositReference,
    });
  }

  /** Offers pending to this party. */
  offers(): Promise<DevnetOffer[]> {
    return this.#devnet.offers(this.partyId);
  }

  /** Accepts an offer to this party: the tokens become its holdings. */
  acceptOffer(offerId: string, options?: SignedCallOptions): Promise<DevnetOfferActionResult> {
    return this.#devnet.acceptOffer(this.signer, offerId, this.partyId, options);
  }

  /** Rejects an offer to this party: the tokens go back to the sender. */
  rejectOffer(offerId: string, options?: SignedCallOptions): Promise<DevnetOfferActionResult> {
    return this.#devnet.rejectOffer(this.signer, offerId, this.partyId, options);
  }
}
