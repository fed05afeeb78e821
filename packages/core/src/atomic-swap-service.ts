/**
 * The service's decisions about atomic swaps (docs/spec/atomic-swaps.md), beside the protocol's
 * own in atomic-swap.ts, each a pure function over plain data:
 * - `pickOutputHoldings`: which of the pool's holdings a new swap's output leg names — unlocked,
 *   of the output instrument, reserved by no other live swap — largest first, as few as cover it.
 * - `signatureProblem`: whether a signature is the one the swap was prepared for (its shape, the
 *   trader's key the swap names, a valid Ed25519 signature of the prepared hash).
 * - `atomicSwapMovements`: what an executed swap moves in the pool's books — exactly the signed
 *   amounts, the excess left in the output reserve.
 * - `ledgerRefusalOutcome`: what a ledger's refusal of an execution makes of the swap; a spent
 *   input is prepared again, never submitted again.
 */
import { Amount } from './amount.js';
import { fingerprint } from './fingerprint.js';
import { credit, debit, type Movement, type Side } from './pool-books.js';
import { chooseFreeHoldings } from './pool-holdings.js';
import { verifyEd25519 } from './signing.js';

/** The most holdings one output leg names: a transaction of many inputs is slow to validate. */
export const OUTPUT_HOLDINGS_PER_SWAP_MAX = 20;

/** A holding of the pool's swap party as the pick sees it. */
export interface PoolHolding {
  readonly holdingId: string;
  readonly amount: Amount;
  /** The holding is of the swap's output instrument and unlocked. */
  readonly usable: boolean;
}

export type HoldingPick =
  | { readonly kind: 'picked'; readonly holdingIds: readonly string[]; readonly total: Amount }
  /**
   * The unreserved holdings cannot cover the output within the limit: the pool has too few
   * holdings free for the swaps prepared at once (or too little of the instrument).
   */
  | { readonly kind: 'no_free_holdings'; readonly free: Amount };

/**
 * The holdings the output leg names: among the usable ones no live swap reserves, the largest
 * first until they cover `amount`, at most `OUTPUT_HOLDINGS_PER_SWAP_MAX` (`chooseFreeHoldings`).
 * Largest first leaves the small change for later swaps and keeps the leg's inputs few.
 */
export function pickOutputHoldings(
  holdings: readonly PoolHolding[],
  reserved: ReadonlySet<string>,
  amount: Amount,
): HoldingPick {
  const free = holdings.filter((holding) => holding.usable && !reserved.has(holding.holdingId));
  const pick = chooseFreeHoldings(free, () => false, amount, OUTPUT_HOLDINGS_PER_SWAP_MAX);
  if (pick.total.lt(amount)) {
    return { kind: 'no_free_holdings', free: Amount.sum(free.map((holding) => holding.amount)) };
  }
  return { kind: 'picked', ...pick };
}

const ED25519_SIGNATURE_BYTES = 64;
const ED25519_KEY_BYTES = 32;

/**
 * Why a signature does not authorise the swap, or null when it does: it must be 64 bytes by a
 * 32-byte key whose fingerprint is the one the swap was prepared for, and verify over the
 * prepared transaction's hash. Checked before anything is sent, so a bad one moves nothing and
 * leaves the swap waiting for a good one. `verify` is the Ed25519 check, core's portable one unless
 * a caller on Node gives its own (strict RFC 8032 as this one, and a fraction of its cost).
 */
export function signatureProblem(
  input: {
    readonly hash: Uint8Array;
    readonly signature: Uint8Array;
    readonly publicKey: Uint8Array;
    readonly keyFingerprint: string;
  },
  verify: (
    message: Uint8Array,
    signature: Uint8Array,
    publicKey: Uint8Array,
  ) => boolean = verifyEd25519,
): string | null {
  const { hash, signature, publicKey } = input;
  if (signature.length !== ED25519_SIGNATURE_BYTES) {
    return `an Ed25519 signature has ${ED25519_SIGNATURE_BYTES} bytes, not ${signature.length}`;
  }
  if (publicKey.length !== ED25519_KEY_BYTES) {
    return `an Ed25519 public key has ${ED25519_KEY_BYTES} bytes, not ${publicKey.length}`;
  }
  if (fingerprint(publicKey) !== input.keyFingerprint) {
    return `the signing key is not the key ${input.keyFingerprint} the swap was prepared for`;
  }
  if (!verify(hash, signature, publicKey)) {
    return "the signature is not one of the prepared transaction's hash by that key";
  }
  return null;
}

/**
 * An executed swap in the pool's books: on the input side the reserve gains the priced input and
 * the LP fee and the fees bucket the platform and network fees (together the signed input, all of
 * which the swap party received); the output reserve gives up the signed output, nothing more —
 * the excess stays in it. Nothing passes through `inflight` or `outgoing`: both legs settled in
 * the one update.
 */
export function atomicSwapMovements(swap: {
  readonly inputSide: Side;
  readonly inputReserveAdded: Amount;
  readonly feesCollected: Amount;
  readonly paid: Amount;
}): Movement[] {
  const outputSide: Side = swap.inputSide === 'a' ? 'b' : 'a';
  return [
    credit(swap.inputSide, 'reserve', swap.inputReserveAdded),
    credit(swap.inputSide, 'fees', swap.feesCollected),
    debit(outputSide, 'reserve', swap.paid),
  ];
}

/**
 * The ledger's answers after which the command may or may not have committed (no answer in
 * time, a dropped stream, a closed port, a refusal it asks to retry).
 */
const UNRESOLVED_CODES: readonly string[] = ['timeout', 'stream_dropped', 'closed', 'rejected'];

export type LedgerRefusalOutcome =
  /** A holding the transaction names was spent: prepare again, for a new signature. */
  | { readonly kind: 'prepare_again' }
  /**
   * Not known whether it committed: the swap stays `executing`, and the same command id is
   * looked up (and executed again, which the ledger deduplicates) until it is known.
   */
  | { readonly kind: 'unresolved' }
  /** The swap ends with nothing moved, in `state`, with the catalogue's `code`. */
  | {
      readonly kind: 'end';
      readonly state: 'expired' | 'rejected';
      readonly code: string;
      readonly message: string;
    };

/**
 * What a ledger refusal of the execution (a `LedgerError` code) makes of an `executing` swap.
 * An answer that leaves the outcome open keeps it `executing`. The other refusals are all before
 * or instead of a commit, so nothing moved: a spent input is prepared
 * again (the old transaction is never submitted again); a passed deadline is `expired`; a
 * signature the participant refuses, or anything else it refuses, is `rejected`.
 */
export function ledgerRefusalOutcome(code: string, message: string): LedgerRefusalOutcome {
  if (UNRESOLVED_CODES.includes(code)) return { kind: 'unresolved' };
  if (code === 'invalid_inputs') return { kind: 'prepare_again' };
  if (code === 'deadline_passed') {
    return { kind: 'end', state: 'expired', code: 'atomic_swap_expired', message };
  }
  if (code === 'signature_invalid') {
    return { kind: 'end', state: 'rejected', code: 'invalid_transaction_signature', message };
  }
  return { kind: 'end', state: 'rejected', code: 'ledger_rejected', message };
}
