/**
 * The built-in devnet wallet: a devnet party whose Ed25519 key lives in this browser's
 * localStorage, so a newcomer can swap without installing anything. It signs the wallet challenge,
 * the devnet transfer and offer calls through `@poolparty/sdk/devnet`, and atomic swaps'
 * transaction hashes. The key can be exported (and imported elsewhere): it is the only thing that
 * controls the party.
 */
import type { WalletSigner } from '@poolparty/sdk/atomic';
import { type Devnet, type DevnetWallet, generatePrivateKey } from '@poolparty/sdk/devnet';
import type { DepositTerms, SignedChallenge, Spendable, Wallet } from './wallet.js';

const STORAGE_KEY = 'poolparty.devnetWallet';

/** What is stored and exported: the party and the hex of its 32-byte key seed. */
export interface DevnetKeyFile {
  readonly partyId: string;
  readonly privateKey: string;
}

/** Reads an exported key file; null when the text is not one. */
export function parseKeyFile(text: string): DevnetKeyFile | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const { partyId, privateKey } = value as Record<string, unknown>;
  if (typeof partyId !== 'string' || !/^[^:\s]+::[0-9a-f]+$/i.test(partyId)) return null;
  if (typeof privateKey !== 'string' || privateKey.length === 0) return null;
  return { partyId, privateKey };
}

export function storedKeyFile(storage: Storage = localStorage): DevnetKeyFile | null {
  const text = storage.getItem(STORAGE_KEY);
  return text === null ? null : parseKeyFile(text);
}

function forgetKeyFile(storage: Storage = localStorage): void {
  storage.removeItem(STORAGE_KEY);
}

/** A party hint from what the user typed: the ledger accepts letters, digits, `-` and `_`. */
function partyHintOf(name: string): string {
  const hint = name
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return hint.length > 0 ? hint.slice(0, 40) : 'web';
}

export class BrowserDevnetWallet implements Wallet {
  readonly kind = 'devnet' as const;
  readonly label = 'Devnet wallet (in this browser)';
  readonly devnet: Devnet;
  #wallet: DevnetWallet | null = null;
  #keyFile: DevnetKeyFile | null;
  readonly #storage: Storage;

  constructor(devnet: Devnet, keyFile: DevnetKeyFile | null, storage: Storage = localStorage) {
    this.devnet = devnet;
    this.#keyFile = keyFile;
    this.#storage = storage;
  }

  /** A new party with a key made here; `preapproval: false` makes its payouts offers. */
  static async create(
    devnet: Devnet,
    params: { name: string; preapproval: boolean },
    storage: Storage = localStorage,
  ): Promise<BrowserDevnetWallet> {
    const privateKey = generatePrivateKey();
    const created = await devnet.createWallet({
      partyHint: partyHintOf(params.name),
      preapproval: params.preapproval,
      key: privateKey,
    });
    const keyFile = { partyId: created.partyId, privateKey };
    storage.setItem(STORAGE_KEY, JSON.stringify(keyFile));
    const wallet = new BrowserDevnetWallet(devnet, keyFile, storage);
    wallet.#wallet = created;
    return wallet;
  }

  /** A wallet for an exported key file; kept in this browser from now on. */
  static async import(
    devnet: Devnet,
    keyFile: DevnetKeyFile,
    storage: Storage = localStorage,
  ): Promise<BrowserDevnetWallet> {
    const wallet = new BrowserDevnetWallet(devnet, keyFile, storage);
    await wallet.connect();
    storage.setItem(STORAGE_KEY, JSON.stringify(keyFile));
    return wallet;
  }

  get partyId(): string | null {
    return this.#wallet?.partyId ?? null;
  }

  /** The key file to export. */
  get keyFile(): DevnetKeyFile | null {
    return this.#keyFile;
  }

  async connect(): Promise<string> {
    if (this.#wallet === null) {
      if (this.#keyFile === null) throw new Error('Create or import a devnet party first.');
      this.#wallet = await this.devnet.wallet(this.#keyFile.partyId, this.#keyFile.privateKey);
      // The key must be the party's: the fingerprint after `::` names the public key.
    }
    return this.#wallet.partyId;
  }

  #connected(): DevnetWallet {
    if (this.#wallet === null) throw new Error('The devnet wallet is not connected.');
    return this.#wallet;
  }

  signMessage(message: string): Promise<SignedChallenge> {
    return this.#connected().signMessage(message);
  }

  /** The party's key, here in the browser, signs atomic swaps' transaction hashes. */
  hashSigner(): Promise<WalletSigner> {
    return this.#connected().atomicSigner();
  }

  async sendDeposit(terms: DepositTerms): Promise<void> {
    await this.#connected().deposit(terms);
  }

  /** On devnet the service's own endpoint accepts any token's offer. */
  async acceptOffer(offerId: string, _tokenAdmin?: string): Promise<void> {
    await this.#connected().acceptOffer(offerId);
  }

  /** The transfer offers waiting for the party to accept, with their reasons. */
  offers() {
    return this.#connected().offers();
  }

  /** Mints `amount` of a token for the party (the devnet faucet). */
  async fund(token: string, amount: string, admin?: string): Promise<void> {
    await this.#connected().fund(token, amount, admin);
  }

  async spendable(): Promise<readonly Spendable[]> {
    const balances = await this.holdings();
    return balances.map(({ token, admin, amount }) => ({ token, admin, amount }));
  }

  holdings() {
    return this.#connected().holdings();
  }

  async disconnect(): Promise<void> {
    this.#wallet = null;
    this.#keyFile = null;
    forgetKeyFile(this.#storage);
  }
}
