/**
 * The atomic-swap object: the swap's data, `verify()` — the legs the
 * prepared transaction really holds, refused unless they are exactly the stated input out and at
 * least the stated output in —, `execute(signer)`, which verifies, has the wallet sign the hash
 * and sends the signature, `refresh()`, `wait()` and `cancel()` before signing.
 */
import { TimeoutError, ValidationError } from '../errors.js';
import type { Sleep } from '../http/abort.js';
import type { AtomicSwap, AtomicSwapState } from '../types.js';
import { decodeBase64, type PreparedTransfer, transfersOf } from './prepared-transaction.js';

/** The wallet's side of an atomic swap: who signs, with which key, and the signing itself. */
export interface WalletSigner {
  readonly partyId: string;
  /** The signing key's fingerprint (`1220…`), as the swap was prepared for. */
  readonly fingerprint: string;
  /** The raw 32-byte Ed25519 public key, which the service checks the signature against. */
  readonly publicKey: Uint8Array;
  /** An Ed25519 signature (64 bytes) of the prepared transaction's hash bytes. */
  signHash(hash: Uint8Array): Promise<Uint8Array> | Uint8Array;
}

export interface VerifyOptions {
  /**
   * Recomputes the prepared transaction's hash (e.g. `hashPreparedTransaction` of
   * `@canton-network/core-tx-visualizer`), to be sure the hash signed is this transaction's.
   */
  readonly hashPreparedTransaction?: (preparedTransaction: string) => Promise<string> | string;
}

/** What the transaction was found to move: exactly the stated input, at least the stated output. */
export interface VerifiedLegs {
  readonly input: PreparedTransfer;
  readonly output: PreparedTransfer;
  /** Whether the hash was recomputed (`hashPreparedTransaction` given) and matched. */
  readonly hashChecked: boolean;
}

/** What the object calls on its client. */
export interface AtomicSwapServices {
  get(atomicSwapId: string): Promise<AtomicSwap>;
  execute(
    atomicSwapId: string,
    body: { readonly signature: string; readonly publicKey: string },
  ): Promise<AtomicSwap>;
  cancel(atomicSwapId: string): Promise<AtomicSwap>;
  readonly pollIntervalMs: number;
  readonly sleep: Sleep;
}

const TERMINAL: readonly AtomicSwapState[] = [
  'completed',
  'price_moved',
  'rejected',
  'expired',
  'cancelled',
];
/** How many times `wait()` reads the swap at most: a swap ends within its signing window. */
const WAIT_READS_MAX = 10_000;
const DECIMALS = 10;

/** A decimal amount in units of 10^-10, for exact comparison. */
function units(amount: string): bigint {
  const [whole = '0', fraction = ''] = amount.split('.');
  return (
    BigInt(whole) * 10n ** BigInt(DECIMALS) +
    BigInt(fraction.padEnd(DECIMALS, '0').slice(0, DECIMALS) || '0')
  );
}

function refused(message: string): ValidationError {
  return new ValidationError(`The prepared transaction ${message}; do not sign it`, {
    code: 'validation_error',
  });
}

function sameToken(transfer: PreparedTransfer, leg: AtomicSwap['input']): boolean {
  return transfer.instrument.id === leg.token && transfer.instrument.admin === leg.tokenAdmin;
}

/**
 * The legs of the swap's transaction, checked: it holds two transfers, the trader's debit is
 * exactly the stated input to the stated receiver, and the trader's credit is at least the stated
 * output of the stated token. Anything else is refused (`ValidationError`): do not sign it.
 */
export async function verifyAtomicSwap(
  swap: AtomicSwap,
  options: VerifyOptions = {},
): Promise<VerifiedLegs> {
  const transfers = transfersOf(swap.preparedTransaction);
  const trader = swap.traderParty;
  if (transfers.length !== 2) throw refused(`holds ${transfers.length} transfers, not 2`);
  const debits = transfers.filter((t) => t.sender === trader);
  const credits = transfers.filter((t) => t.receiver === trader);
  const [input] = debits;
  const [output] = credits;
  if (debits.length !== 1 || input === undefined) throw refused('debits the trader more than once');
  const inputOk =
    input.receiver === swap.input.receiver &&
    sameToken(input, swap.input) &&
    units(input.amount) === units(swap.input.amount);
  if (!inputOk)
    throw refused(`debits ${input.amount} ${input.instrument.id}, not the stated input`);
  if (credits.length !== 1 || output === undefined)
    throw refused('credits the trader more than once, or never');
  const outputOk =
    output.sender === swap.output.sender &&
    sameToken(output, swap.output) &&
    units(output.amount) >= units(swap.output.amount);
  if (!outputOk)
    throw refused(`credits ${output.amount} ${output.instrument.id}, less than the stated output`);
  const hasher = options.hashPreparedTransaction;
  if (
    hasher !== undefined &&
    (await hasher(swap.preparedTransaction)) !== swap.preparedTransactionHash
  ) {
    throw refused('does not have the stated hash');
  }
  return { input, output, hashChecked: hasher !== undefined };
}

function base64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** A live atomic swap: its data, and what the wallet and the app do with it. */
export class AtomicSwapObject {
  #data: AtomicSwap;
  readonly #services: AtomicSwapServices;

  constructor(data: AtomicSwap, services: AtomicSwapServices) {
    this.#data = data;
    this.#services = services;
  }

  /** The swap as last read. */
  get data(): AtomicSwap {
    return this.#data;
  }

  get atomicSwapId(): string {
    return this.#data.atomicSwapId;
  }

  get status(): AtomicSwapState {
    return this.#data.status;
  }

  /** The legs the transaction holds, checked against the stated ones (see `verifyAtomicSwap`). */
  verify(options?: VerifyOptions): Promise<VerifiedLegs> {
    return verifyAtomicSwap(this.#data, options);
  }

  /**
   * Verifies the transaction, has `signer` sign its hash and sends the signature. Resolves with
   * the swap as it ended: `completed`, or `price_moved` / `rejected` / `expired` with nothing
   * moved, or `prepared` again (an input was spent: call `execute` again to sign the new one).
   */
  async execute(signer: WalletSigner, options?: VerifyOptions): Promise<AtomicSwap> {
    const swap = this.#data;
    if (signer.partyId !== swap.traderParty || signer.fingerprint !== swap.keyFingerprint) {
      throw new ValidationError(
        `The signer is ${signer.partyId} with key ${signer.fingerprint}; the swap is ${swap.traderParty}'s with key ${swap.keyFingerprint}`,
        { code: 'validation_error' },
      );
    }
    await this.verify(options);
    const signature = await signer.signHash(decodeBase64(swap.preparedTransactionHash));
    this.#data = await this.#services.execute(swap.atomicSwapId, {
      signature: base64(signature),
      publicKey: base64(signer.publicKey),
    });
    return this.#data;
  }

  async refresh(): Promise<AtomicSwap> {
    this.#data = await this.#services.get(this.#data.atomicSwapId);
    return this.#data;
  }

  /** Cancels the swap before it is signed; a signed or ended swap throws `ConflictError`. */
  async cancel(): Promise<AtomicSwap> {
    this.#data = await this.#services.cancel(this.#data.atomicSwapId);
    return this.#data;
  }

  /** Resolves once the swap has ended (`completed` or nothing moved), reading it every interval. */
  async wait(): Promise<AtomicSwap> {
    for (let read = 0; read < WAIT_READS_MAX; read++) {
      if (TERMINAL.includes(this.#data.status)) return this.#data;
      await this.#services.sleep(this.#services.pollIntervalMs);
      await this.refresh();
    }
    throw new TimeoutError(`Atomic swap ${this.#data.atomicSwapId} did not end`, {
      code: 'timeout',
    });
  }
}
