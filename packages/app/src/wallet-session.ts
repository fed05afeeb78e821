/**
 * The wallet token the swap calls send (docs/spec/auth.md#wallet-tokens): got by having the
 * connected wallet sign the service's challenge, and got again shortly before it expires, so a swap
 * followed for longer than the token's 15 minutes keeps its event stream.
 */
import type { PoolParty } from '@poolparty/sdk';
import type { Wallet } from './wallets/wallet.js';

/** Renew this long before expiry, so a request never leaves with a token about to lapse. */
const RENEW_MARGIN_MS = 60_000;

export class WalletSession {
  #wallet: Wallet | null = null;
  #token: { partyId: string; token: string; expiresAtMs: number } | null = null;
  #pending: Promise<string> | null = null;
  #pp: PoolParty | null = null;

  /** Set once the client exists (the client reads the token through `token()`). */
  bind(pp: PoolParty): void {
    this.#pp = pp;
  }

  use(wallet: Wallet | null): void {
    if (wallet !== this.#wallet) this.#token = null;
    this.#wallet = wallet;
  }

  /** A valid wallet token for the connected party, signing a new challenge when needed. */
  token(): Promise<string> {
    const wallet = this.#wallet;
    const partyId = wallet?.partyId;
    if (!wallet || !partyId) return Promise.reject(new Error('Connect a wallet first.'));
    const held = this.#token;
    if (held && held.partyId === partyId && held.expiresAtMs - RENEW_MARGIN_MS > Date.now()) {
      return Promise.resolve(held.token);
    }
    // Concurrent calls share one challenge: a wallet asks its user once.
    this.#pending ??= this.#authenticate(wallet, partyId).finally(() => {
      this.#pending = null;
    });
    return this.#pending;
  }

  async #authenticate(wallet: Wallet, partyId: string): Promise<string> {
    const pp = this.#pp;
    if (pp === null) throw new Error('The service client is not ready.');
    const challenge = await pp.walletAuth.requestChallenge(partyId);
    const signed = await wallet.signMessage(challenge.message);
    const { token, expiresAt } = await pp.walletAuth.verifyChallenge({
      partyId,
      nonce: challenge.nonce,
      signature: signed.signature,
      publicKey: signed.publicKey,
    });
    this.#token = { partyId, token, expiresAtMs: Date.parse(expiresAt) };
    return token;
  }
}
