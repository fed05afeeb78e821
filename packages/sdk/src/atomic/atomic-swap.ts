/**
 * The atomic-swap object: the swap's data, `verify()` — the legs the
 * prepared transaction really holds, refused unless they are exactly the stated input out and at
 * least the stated output in —, `execute(signer)`, which verifies, has the wallet sign the hash
 * and sends the signature, `refresh()`, `wait()` and `cancel()` before signing.
 */
import { ATOMIC_SWAP_STATES, ATOMIC_SWAP_TERMINAL_STATES } from '../catalogue.js';
import { ValidationError } from '../errors.js';
import { type WaitBounds, withinBounds } from '../liquidity/deadline.js';
import { Followers } from '../swap/followers.js';
import { type StatusOrigin, type StatusSource, StatusWatcher } from '../swap/status-watcher.js';
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

/** What the object calls on its client; the stream and the read it follows the swap by. */
export interface AtomicSwapServices extends StatusSource<AtomicSwap> {
  get(atomicSwapId: string): Promise<AtomicSwap>;
  execute(
    atomicSwapId: string,
    body: { readonly signature: string; readonly publicKey: string },
  ): Promise<AtomicSwap>;
  cancel(atomicSwapId: string): Promise<AtomicSwap>;
}

/** The states an atomic swap object tells its listeners of, as it reaches each: all of them. */
export const ATOMIC_SWAP_EVENTS = ATOMIC_SWAP_STATES satisfies readonly AtomicSwapState[];
export type AtomicSwapEventName = (typeof ATOMIC_SWAP_EVENTS)[number];
export type AtomicSwapListener = (swap: AtomicSwap) => void;
export type AtomicSwapErrorListener = (error: unknown) => void;

const TERMINAL: readonly AtomicSwapState[] = ATOMIC_SWAP_TERMINAL_STATES;
/**
 * How long `wait()` follows by default: a swap ends by its `expiresAt` (ten minutes at most
 * after prepare) plus the ledger-time tolerance in which a signed one may still commit.
 */
export const ATOMIC_SWAP_WAIT_MS = 15 * 60_000;
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
  readonly #watcher: StatusWatcher<AtomicSwap>;
  readonly #followers = new Followers<AtomicSwap>('atomic swap', ATOMIC_SWAP_EVENTS);
  #followedBy: StatusOrigin | null = null;

  constructor(data: AtomicSwap, services: AtomicSwapServices) {
    this.#data = data;
    this.#services = services;
    this.#watcher = new StatusWatcher(data.atomicSwapId, services, {
      onStatus: (observed, origin) => {
        this.#followedBy = origin;
        return this.#observe(observed);
      },
      onError: (error) => this.#followers.tell('error', error),
    });
    this.#followers.watchWith(this.#watcher);
  }

  /**
   * How the latest change came while following: `'stream'` from the swap's event stream,
   * `'poll'` from reading it because the stream is unavailable; null before any.
   */
  get followedBy(): StatusOrigin | null {
    return this.#followedBy;
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
    const ended = await this.#services.execute(swap.atomicSwapId, {
      signature: base64(signature),
      publicKey: base64(signer.publicKey),
    });
    this.#observe(ended);
    return this.#data;
  }

  async refresh(): Promise<AtomicSwap> {
    this.#observe(await this.#services.get(this.#data.atomicSwapId));
    return this.#data;
  }

  /** Cancels the swap before it is signed; a signed or ended swap throws `ConflictError`. */
  async cancel(): Promise<AtomicSwap> {
    this.#observe(await this.#services.cancel(this.#data.atomicSwapId));
    return this.#data;
  }

  /**
   * Calls `listener` when the swap reaches the state `event` names (`executing`, `completed`,
   * `price_moved`, …; `prepared` again after a spent input), or on `error`. The swap is followed
   * by its event stream (`Last-Event-ID` on reconnect), read only when the stream is unavailable,
   * until it ends or nobody listens or waits.
   */
  on(event: AtomicSwapEventName, listener: AtomicSwapListener): this;
  on(event: 'error', listener: AtomicSwapErrorListener): this;
  on(event: string, listener: AtomicSwapListener | AtomicSwapErrorListener): this {
    this.#followers.listen(event, listener, this.#ended);
    return this;
  }

  /** Removes a listener; following stops when nobody listens or waits. */
  off(event: string, listener: AtomicSwapListener | AtomicSwapErrorListener): this {
    this.#followers.unlisten(event, listener);
    return this;
  }

  /**
   * Resolves with the swap once it has ended: `completed`, or nothing moved (`price_moved`,
   * `rejected`, `expired`, `cancelled`). Rejects with `TimeoutError` after `timeoutMs` (default
   * 15 minutes, past any signing window) or with the signal's reason.
   */
  wait(bounds: WaitBounds = {}): Promise<AtomicSwap> {
    const what = `Atomic swap ${this.#data.atomicSwapId}`;
    return withinBounds<AtomicSwap>(what, bounds, ATOMIC_SWAP_WAIT_MS, (resolve) => {
      const check = (swap: AtomicSwap) => {
        if (TERMINAL.includes(swap.status)) resolve(swap);
      };
      check(this.#data);
      return this.#followers.wait(check, this.#ended);
    });
  }

  get #ended(): boolean {
    return TERMINAL.includes(this.#data.status);
  }

  /** Takes an observation from any source; true once the swap has ended. */
  #observe(next: AtomicSwap): boolean {
    const before = this.#data;
    // An ended swap stays as it ended: a late observation of an earlier state is dropped.
    if (TERMINAL.includes(before.status)) return true;
    this.#data = next;
    if (next.status !== before.status) this.#followers.tell(next.status, next);
    this.#followers.observed(next);
    const ended = TERMINAL.includes(next.status);
    if (ended) this.#watcher.stop();
    return ended;
  }
}
