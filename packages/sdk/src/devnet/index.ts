/**
 * @poolparty/sdk/devnet: a stand-in for a Canton wallet on a PoolParty devnet service (`npm start`)
 * — parties, faucet, holdings, signed deposits, offers — and an Ed25519 signer from the key
 * formats people hold, for the wallet challenge and an atomic swap's transaction. Web platform only (WebCrypto Ed25519): Node ≥ 20
 * and current browsers, no dependencies.
 *
 * @example
 * const devnet = new Devnet('http://127.0.0.1:8787');
 * const wallet = await devnet.createWallet({ partyHint: 'alice' });
 * await wallet.fund('Amulet', '1000');
 * const { token } = await wallet.authenticate(pp);
 * // … const swap = await pp.swaps.create(…);
 * await wallet.deposit(swap);
 */
export {
  type CreateWalletParams,
  DEFAULT_SIGNATURE_VALIDITY_MS,
  Devnet,
  type DevnetOptions,
  MAX_SIGNATURE_VALIDITY_MS,
  type SignedCallOptions,
  type TransferParams,
} from './devnet.js';
export {
  createSigner,
  generatePrivateKey,
  keyFingerprint,
  type SignedMessage,
  type Signer,
  type SigningKey,
} from './signer.js';
export { type DevnetSignedRequest, devnetSigningMessage } from './signing-message.js';
export type * from './types.js';
export { type DepositTerms, DevnetWallet, type WalletAuthClient } from './wallet.js';
