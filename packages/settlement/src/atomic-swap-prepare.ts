/**
 * Preparing an atomic swap (docs/spec/atomic-swaps.md#flow), read → plan → write:
 * - read: the quote (the route's); under the pool's reservation lock, the pool's swap-party
 *   holdings from the ledger;
 * - plan: the signed amounts (core's `signedAmounts`), the holdings the output leg names (core's
 *   `pickOutputHoldings`, among those no live swap reserves), `expiresAt` on the ledger's clock;
 * - write: under the same lock, the port prepares the transaction and the swap is stored with
 *   its reservations — and the answer under the request's idempotency key — in one transaction,
 *   so a reservation exists exactly when its swap does.
 *
 * The reservation lock serialises only the prepares of one pool and the holdings keeper's splits
 * of it (pool-holdings.ts): a prepare moves no books, so it never waits for the pool's
 * executions, and they never wait for it.
 */
import {
  Amount,
  ATOMIC_SWAP_ID_PREFIX,
  atomicSwapExpiry,
  type DisclosedHolding,
  DomainError,
  type HoldingPick,
  instrumentKey,
  pickOutputHoldings,
  signedAmounts,
} from '@poolparty/core';
import {
  type AtomicSwapPort,
  type Holding,
  LedgerError,
  type PreparedAtomicSwap,
} from '@poolparty/ledger';
import {
  type AtomicSwapPreparation,
  type AtomicSwapRecord,
  type Database,
  insertAtomicSwap,
  lockPoolReservations,
  type NewAtomicSwap,
  type Queryable,
  reservedHoldingIds,
} from '@poolparty/store';
import { randomCrockford } from './identifiers.js';
import type { OpeningAnswer } from './intent-opening.js';
import { type IntentOrigin, type PricedSwap, refuseUnsafeTrade } from './swap-intents.js';

/** 26 symbols × 5 bits = 130 bits, as a swap intent's id: ids are never guessed. */
const ATOMIC_SWAP_ID_SYMBOLS = 26;

export function newAtomicSwapId(): string {
  return ATOMIC_SWAP_ID_PREFIX + randomCrockford(ATOMIC_SWAP_ID_SYMBOLS);
}

/**
 * The command id of a swap's `preparation`-th prepared transaction: deterministic, so every
 * execution of one prepared transaction (a retry, a restart) is the same command, which the
 * ledger commits at most once; a new preparation is a new command.
 */
export function atomicSwapCommandId(atomicSwapId: string, preparation: number): string {
  return `atomic-${atomicSwapId}-${preparation}`;
}

/** What prepares and executes atomic swaps: the store, the ledger's port, the clock. */
export interface AtomicSwapDeps {
  readonly db: Database;
  readonly ledger: { getHoldings(partyId: string): Promise<readonly Holding[]> };
  readonly atomicSwaps: AtomicSwapPort;
  readonly clock: { now(): Date };
}

export interface AtomicSwapOrigin extends IntentOrigin {
  /** The fingerprint of the trader's key that will sign (a registered key of the trader). */
  readonly keyFingerprint: string;
  /** How long the swap waits for its signature; core's default when absent. */
  readonly signingWindowMs?: number;
  /** The trader's holdings the input leg spends; the ledger picks when absent. */
  readonly inputHoldingIds?: readonly string[];
  /**
   * Those holdings as disclosed contracts, for a trader hosted on another participant (whose
   * holdings the pool's participant cannot read): the prepare discloses them.
   */
  readonly inputHoldings?: readonly DisclosedHolding[];
}

/** What a prepared swap's output leg may spend: the pool's unlocked holdings of the output. */
export function usableHoldings(
  holdings: readonly Holding[],
  owner: string,
  output: { readonly id: string; readonly admin: string },
) {
  const key = instrumentKey(output);
  return holdings.map((holding) => ({
    holdingId: holding.holdingId,
    amount: holding.amount,
    usable:
      holding.owner === owner && holding.lock === null && instrumentKey(holding.instrument) === key,
  }));
}

/**
 * The holdings a swap prepared now names for its output leg, under the pool's reservation lock:
 * core's pick among the pool's usable holdings that no live swap reserves and none this
 * process's transfers are spending. Read in this order: the reservations, then the ledger — a
 * swap's execution spends its holdings on the ledger before its reservations go, so a holding
 * found unreserved was never reserved or is gone from the ledger's answer (read the other way
 * round, a holding spent between the two reads is picked). Where the port sets holdings aside
 * (`setAsideForSwap`), the pick and its setting aside are one step, so no transfer of this
 * process names a picked holding before the swap ends, nor the swap one a transfer is spending.
 * `own`: holdings the swap itself reserves (a swap prepared again may name them again).
 */
export async function pickFreeHoldings(
  tx: Queryable,
  deps: Pick<AtomicSwapDeps, 'ledger' | 'atomicSwaps'>,
  swap: {
    readonly pool: { readonly poolId: string; readonly swapParty: string };
    readonly output: { readonly id: string; readonly admin: string };
    readonly amount: Amount;
    /** How long the swap can execute: its holdings stay aside that long at most. */
    readonly forMs: number;
    readonly own?: readonly string[];
  },
): Promise<HoldingPick> {
  const { pool, output, amount } = swap;
  const reserved = await reservedHoldingIds(tx, pool.poolId);
  for (const id of swap.own ?? []) reserved.delete(id);
  const holdings = usableHoldings(
    await deps.ledger.getHoldings(pool.swapParty),
    pool.swapParty,
    output,
  );
  const pickWithout = (taken: (holdingId: string) => boolean) =>
    pickOutputHoldings(
      holdings,
      new Set([...reserved, ...holdings.map((h) => h.holdingId).filter(taken)]),
      amount,
    );
  const { atomicSwaps } = deps;
  if (atomicSwaps.setAsideForSwap === undefined) return pickWithout(() => false);
  let pick: HoldingPick = { kind: 'no_free_holdings', free: Amount.ZERO };
  atomicSwaps.setAsideForSwap(
    pool.swapParty,
    (taken) => {
      pick = pickWithout(taken);
      return pick.kind === 'picked' ? pick.holdingIds : [];
    },
    swap.forMs,
  );
  return pick;
}

/**
 * The swap ended without executing (cancelled, refused before submission, expired): the holdings
 * set aside for it in this process (`pickFreeHoldings`) are free again at once, not only once its
 * signing window has passed.
 */
export function endSetAside(
  deps: { readonly atomicSwaps?: Pick<AtomicSwapPort, 'endSetAside'> | null },
  swap: AtomicSwapRecord,
): void {
  deps.atomicSwaps?.endSetAside?.(swap.preparation.outputHoldingIds);
}

/**
 * The port's refusal of a prepare, as the catalogue's error; null for one it does not know. A
 * side's inputs are refused naming their sender: the pool's swap party's are the pool's holdings
 * (busy: spent since they were picked), any other the trader's funds.
 */
function prepareRefusal(error: unknown, poolParty: string): DomainError | null {
  if (!(error instanceof LedgerError)) return null;
  switch (error.code) {
    case 'insufficient_holdings':
    case 'invalid_inputs':
      return error.message.includes(poolParty)
        ? new DomainError('pool_holdings_busy', `The pool's holdings: ${error.message}; try again.`)
        : new DomainError('insufficient_funds', `The trader's holdings: ${error.message}`);
    case 'unknown_contract':
      return new DomainError(
        'input_holdings_unknown',
        `The pool's participant knows no such holding of the trader (${error.message}): it is gone, or the trader is hosted on another participant and passes it in inputHoldings.`,
      );
    case 'invalid_disclosure':
      return new DomainError(
        'invalid_input_holdings',
        `A disclosed input holding is not the contract its id names: ${error.message}`,
      );
    case 'not_authorized':
    case 'unknown_party':
      return new DomainError('validation_error', `The swap cannot be prepared: ${error.message}`);
    default:
      return null;
  }
}

/**
 * Prepares the swap a priced quote becomes and answers `view` of it (stored under the request's
 * idempotency key with the swap when `answer` is given).
 */
export async function prepareAtomicSwap<V>(
  deps: AtomicSwapDeps,
  request: { readonly priced: PricedSwap; readonly origin: AtomicSwapOrigin },
  respond: {
    readonly view: (swap: AtomicSwapRecord) => V;
    readonly answer: OpeningAnswer | null;
  },
): Promise<V> {
  const { priced, origin } = request;
  refuseUnsafeTrade(priced);
  const { quote, trade, pool } = priced;
  const amounts = signedAmounts(
    { input: trade.fees.amount, quotedOutput: trade.outputAmount },
    origin.slippageTolerance,
  );
  if (amounts.kind !== 'signable') {
    throw new DomainError(
      'validation_error',
      `The slippage tolerance leaves no output to sign for the quoted ${amounts.quotedOutput}.`,
    );
  }
  const output = { id: quote.outputToken, admin: quote.outputTokenAdmin };
  const atomicSwapId = newAtomicSwapId();
  const expiresAt = atomicSwapExpiry(deps.clock.now(), origin.signingWindowMs);
  try {
    return await deps.db.transaction(async (tx) => {
      await lockPoolReservations(tx, pool.poolId);
      // Under the lock: the holdings keeper splits a pool's holdings under it too.
      const pick = await pickFreeHoldings(tx, deps, {
        pool,
        output,
        amount: amounts.output,
        forMs: expiresAt.getTime() - deps.clock.now().getTime(),
      });
      if (pick.kind !== 'picked') throw holdingsBusy(pool.poolId, output.id, pick.free);
      const prepared = await deps.atomicSwaps.prepareAtomicSwap({
        commandId: atomicSwapCommandId(atomicSwapId, 1),
        trader: origin.walletParty,
        pool: pool.swapParty,
        input: {
          instrument: { id: quote.inputToken, admin: quote.inputTokenAdmin },
          amount: amounts.input,
          ...(origin.inputHoldingIds !== undefined && { holdingIds: origin.inputHoldingIds }),
          ...(origin.inputHoldings !== undefined && { disclosedHoldings: origin.inputHoldings }),
        },
        output: { instrument: output, amount: amounts.output, holdingIds: pick.holdingIds },
        expiresAt,
      });
      const swap = await insertAtomicSwap(tx, {
        ...newAtomicSwapOf(request, atomicSwapId, amounts),
        preparation: preparationOf(prepared, prepared.commandId, expiresAt),
      });
      return answered(tx, swap, respond);
    });
  } catch (error) {
    throw prepareRefusal(error, pool.swapParty) ?? error;
  }
}

async function answered<V>(
  tx: Queryable,
  swap: AtomicSwapRecord,
  respond: { readonly view: (swap: AtomicSwapRecord) => V; readonly answer: OpeningAnswer | null },
): Promise<V> {
  const view = respond.view(swap);
  if (respond.answer !== null) await respond.answer(tx, { status: 201, body: view });
  return view;
}

function holdingsBusy(poolId: string, instrument: string, free: Amount): DomainError {
  return new DomainError(
    'pool_holdings_busy',
    `Pool ${poolId} has ${free} ${instrument} in holdings no prepared swap reserves, too little for this swap; try again when one ends.`,
  );
}

/** The swap's row but its preparation: the signed amounts and the quote's fee breakdown. */
function newAtomicSwapOf(
  request: { readonly priced: PricedSwap; readonly origin: AtomicSwapOrigin },
  atomicSwapId: string,
  amounts: { readonly input: Amount; readonly output: Amount; readonly quotedOutput: Amount },
): Omit<NewAtomicSwap, 'preparation'> {
  const { quote, trade, pool } = request.priced;
  const { origin } = request;
  const { fees } = trade;
  return {
    atomicSwapId,
    poolId: pool.poolId,
    apiKeyId: origin.apiKeyId,
    developerParty: origin.developerParty,
    traderParty: origin.walletParty,
    keyFingerprint: origin.keyFingerprint,
    inputToken: quote.inputToken,
    inputTokenAdmin: quote.inputTokenAdmin,
    outputToken: quote.outputToken,
    outputTokenAdmin: quote.outputTokenAdmin,
    inputAmount: amounts.input,
    outputAmount: amounts.output,
    quotedOutput: amounts.quotedOutput,
    slippageTolerance: origin.slippageTolerance,
    networkFeeAmount: fees.networkFeeAmount,
    poolFeeAmount: fees.poolFeeAmount,
    lpFeeAmount: fees.lpFeeAmount,
    platformFeeAmount: fees.platformFeeAmount,
    inputAmountAfterPoolFee: fees.inputAmountAfterPoolFee,
    networkFeePolicy: quote.networkFeePolicy,
    platformFeePolicy: quote.platformFeePolicy,
    createdAt: origin.now,
  };
}

/** What the store keeps of a transaction the ledger prepared, under the command id it used. */
export function preparationOf(
  prepared: PreparedAtomicSwap,
  commandId: string,
  expiresAt: Date,
): AtomicSwapPreparation {
  return {
    commandId,
    inputHoldingIds: prepared.input.holdingIds,
    outputHoldingIds: prepared.output.holdingIds,
    preparedTransaction: prepared.preparedTransaction,
    preparedTransactionHash: prepared.preparedTransactionHash,
    hashingSchemeVersion: prepared.hashingSchemeVersion,
    expiresAt,
  };
}
