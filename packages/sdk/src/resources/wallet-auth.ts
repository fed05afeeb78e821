/**
 * Wallet authentication: the service's challenge, the wallet's signature over its message, and
 * the wallet token that proves the party to wallet-authenticated calls for 15 minutes.
 */
import type { CallOptions, RequestSender } from '../http/request-sender.js';
import type { Challenge, WalletToken } from '../types.js';
import { checkText } from '../validation.js';

/** Parameters of `walletAuth.verifyChallenge`. */
export interface VerifyChallengeParams {
  /** The party that signed, `<hint>::<fingerprint>`. */
  readonly partyId: string;
  /** From the challenge. */
  readonly nonce: string;
  /** The wallet's Ed25519 signature over the challenge `message`: base64 (or hex). */
  readonly signature: string;
  /** The wallet's public key: base64 (or hex) of the raw 32 bytes, or base64 DER SPKI. */
  readonly publicKey: string;
}

/** `client.walletAuth`. */
export class WalletAuth {
  readonly #sender: RequestSender;

  /** @param sender - The client's request sender. */
  constructor(sender: RequestSender) {
    this.#sender = sender;
  }

  /** Asks for a challenge: the wallet signs its `message`; `nonce` goes back with the signature. */
  async requestChallenge(partyId: string, options?: CallOptions): Promise<Challenge> {
    checkText('partyId', partyId);
    return this.#sender.send({
      method: 'POST',
      path: '/v1/wallet-auth/challenge',
      body: { partyId },
      // Another challenge is harmless: nonces are single-use and expire.
      retrySafe: true,
      options,
    });
  }

  /**
   * Exchanges the signed challenge for a short-lived wallet token; pass `token` as the client's
   * `walletToken`. Not retried: the nonce is consumed by the first attempt that arrives.
   */
  async verifyChallenge(
    params: VerifyChallengeParams,
    options?: CallOptions,
  ): Promise<WalletToken> {
    for (const field of ['partyId', 'nonce', 'signature', 'publicKey'] as const) {
      checkText(field, params[field]);
    }
    const { partyId, nonce, signature, publicKey } = params;
    return this.#sender.send({
      method: 'POST',
      path: '/v1/wallet-auth/verify',
      body: { partyId, nonce, signature, publicKey },
      retrySafe: false,
      options,
    });
  }
}
