/**
 * The swap form's state (`/swap`, swap.tsx draws it): the pools and the pair chosen from their
 * tokens, the live quote for the amount, and starting the swap once the user confirms — atomically
 * where the wallet signs hashes (the review takes over the card), else by deposit.
 */
import type { Pool, Quote } from '@poolparty/sdk';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import type { parseSlippagePercent } from '../decimal.js';
import { requestDeposit } from '../deposit-request.js';
import { describeError, errorCode } from '../describe-error.js';
import { useServices } from '../services.js';
import { followSwapEnd } from '../swap-end-toasts.js';
import { type SwapPath, swapPath } from '../swap-path.js';
import {
  choiceFromKey,
  choiceKey,
  counterparts,
  poolsFor,
  type TokenChoice,
  tradableTokens,
} from '../token-choice.js';
import type { Spendable } from '../wallets/wallet.js';
import type { AtomicSwapRequest } from './atomic-swap-review.js';

/** Wait this long after the last keystroke before asking for a quote. */
const QUOTE_DEBOUNCE_MS = 350;
/** A quote is indicative for `expiresIn` seconds; read it again this often while shown. */
const QUOTE_REFRESH_MS = 10_000;

export interface Pair {
  /** Every token of an active pool: what the user can send. */
  readonly tokens: readonly TokenChoice[];
  /** What the chosen input can be swapped for. */
  readonly targets: readonly TokenChoice[];
  readonly from: TokenChoice | null;
  readonly to: TokenChoice | null;
  /**
   * Every active pool trading the chosen symbols from the chosen input token: several where the
   * output symbol is issued by several admins (e.g. two USDCx), one pool each.
   */
  readonly pools: readonly Pool[];
  /** Every pool listed, for telling apart same-named pairs. */
  readonly allPools: readonly Pool[];
  /** The pool that trades the pair. */
  readonly pool: Pool | null;
  readonly loadError: string | null;
  setFromKey(key: string): void;
  setToKey(key: string): void;
  /** Chooses the pool, and so the output token's admin. */
  setPoolId(poolId: string): void;
  /** Swaps the sides: what was received is now sent. */
  flip(): void;
}

export type Slippage = ReturnType<typeof parseSlippagePercent>;

/**
 * The pools, listed once, and the pair chosen from their tokens: from the page's query
 * (`?from=&to=`, as "swap again" links), else the first ones until chosen.
 */
export function usePair(): Pair {
  const { pp } = useServices();
  const { query } = useLocation();
  const [pools, setPools] = useState<Pool[] | null>(null);
  const [fromKey, setFromKey] = useState(query.from ?? '');
  const [toKey, setToKey] = useState(query.to ?? '');
  const [loadError, setLoadError] = useState<string | null>(null);

  useEffect(() => {
    pp?.pools.list().then(
      ({ pools: listed }) => setPools(listed),
      (caught: unknown) => setLoadError(describeError(caught)),
    );
  }, [pp]);

  const listed = pools ?? [];
  const tokens = useMemo(() => tradableTokens(listed), [pools]);
  const chosenFrom = choiceFromKey(fromKey);
  const from = (chosenFrom && tokens.find((t) => choiceKey(t) === fromKey)) ?? tokens[0] ?? null;
  const targets = useMemo(
    () => (from === null ? [] : counterparts(listed, from)),
    [pools, from?.name, from?.admin],
  );
  const to = targets.find((t) => choiceKey(t) === toKey) ?? targets[0] ?? null;
  const pool = from && to ? (poolsFor(listed, from, to)[0] ?? null) : null;
  const pairPools =
    from && to
      ? targets
          .filter((target) => target.name === to.name)
          .flatMap((target) => poolsFor(listed, from, target))
      : [];
  const setPoolId = (poolId: string) => {
    const chosen = pairPools.find((candidate) => candidate.poolId === poolId);
    if (chosen === undefined || from === null) return;
    const other = sameSide(chosen.tokenA, from) ? chosen.tokenB : chosen.tokenA;
    setToKey(choiceKey({ name: other.name, admin: other.admin }));
  };
  const flip = () => {
    if (from === null || to === null) return;
    setFromKey(choiceKey(to));
    setToKey(choiceKey(from));
  };
  return {
    tokens,
    targets,
    from,
    to,
    pools: pairPools,
    allPools: listed,
    pool,
    loadError,
    setFromKey,
    setToKey,
    setPoolId,
    flip,
  };
}

function sameSide(side: TokenChoice, token: TokenChoice): boolean {
  return side.name === token.name && side.admin === token.admin;
}

/** What the connected party can spend, read again when `version` changes. */
export function useSpendable(version: number): readonly Spendable[] | null {
  const { wallet } = useServices();
  const [spendable, setSpendable] = useState<readonly Spendable[] | null>(null);
  useEffect(() => {
    setSpendable(null);
    if (wallet === null) return;
    let live = true;
    wallet.spendable().then(
      (answer) => live && setSpendable(answer),
      // Unknown balances do not block a swap: the deposit's own check still applies.
      () => live && setSpendable(null),
    );
    return () => {
      live = false;
    };
  }, [wallet, version]);
  return spendable;
}

/** The party's spendable amount of `token`: "0" when it holds none, null while unknown. */
export function spendableOf(
  spendable: readonly Spendable[] | null,
  token: TokenChoice | null,
): string | null {
  if (spendable === null || token === null) return null;
  const held = spendable.find((s) => s.token === token.name && s.admin === token.admin);
  return held?.amount ?? '0';
}

/** The live quote: asked again after each change (debounced) and every few seconds. */
export function useLiveQuote(pair: Pair, amount: string, amountValid: boolean) {
  const { pp, wallet } = useServices();
  const { from, to, pool } = pair;
  const [quote, setQuote] = useState<Quote | null>(null);
  const [quoteError, setQuoteError] = useState<string | null>(null);

  useEffect(() => {
    setQuote(null);
    setQuoteError(null);
    if (pp === null || from === null || to === null || pool === null || !amountValid) return;
    const controller = new AbortController();
    const ask = () =>
      pp.quotes
        .get(
          {
            from: from.name,
            to: to.name,
            amount,
            poolId: pool.poolId,
            fromAdmin: from.admin,
            toAdmin: to.admin,
            ...(wallet?.partyId && { receiverParty: wallet.partyId }),
          },
          { signal: controller.signal },
        )
        .then(
          (answer) => {
            setQuote(answer);
            setQuoteError(null);
          },
          (caught: unknown) => {
            if (controller.signal.aborted) return;
            setQuote(null);
            setQuoteError(describeError(caught));
          },
        );
    const first = setTimeout(ask, QUOTE_DEBOUNCE_MS);
    const again = setInterval(ask, QUOTE_REFRESH_MS);
    return () => {
      controller.abort();
      clearTimeout(first);
      clearInterval(again);
    };
  }, [
    pp,
    from?.name,
    from?.admin,
    to?.name,
    to?.admin,
    pool?.poolId,
    amount,
    amountValid,
    wallet?.partyId,
  ]);

  return { quote, quoteError };
}

/**
 * Whether the service answered `atomic_swaps_unavailable` though its configuration said its
 * ledger prepares atomic swaps: the card swaps by deposit from then on, not asking again.
 */
let unavailableAnswered = false;

/**
 * Starting the swap by deposit: the wallet signs the service's challenge, the intent is created,
 * and the progress page takes over (it sends the deposit). `phase` says what is under way;
 * `onRefused` hears the service's code when it refuses, so the page can show the swap that
 * blocks this one.
 */
function useDepositStart(
  pair: Pair,
  amount: string,
  slippage: Slippage,
  onRefused: (code: string | null) => void,
) {
  const { pp, session } = useServices();
  const { route } = useLocation();
  const { from, to, pool } = pair;
  const [phase, setPhase] = useState<string | null>(null);
  const [swapError, setSwapError] = useState<string | null>(null);

  const startDeposit = async () => {
    if (pp === null || from === null || to === null || pool === null || !slippage.ok) return;
    setSwapError(null);
    try {
      setPhase('Confirm in your wallet: signing in…');
      await session.token();
      setPhase('Creating the swap…');
      const swap = await pp.swaps.create({
        fromToken: from.name,
        toToken: to.name,
        fromAdmin: from.admin,
        toAdmin: to.admin,
        poolId: pool.poolId,
        amount,
        slippageTolerance: slippage.bps / 10_000,
      });
      // The progress page sends the deposit, so the user watches the swap from its first state.
      requestDeposit(swap.intentId);
      followSwapEnd(swap.intentId);
      route(`/swaps/${encodeURIComponent(swap.intentId)}`);
    } catch (caught) {
      setSwapError(describeError(caught));
      onRefused(errorCode(caught));
    } finally {
      setPhase(null);
    }
  };
  return { phase, swapError, setSwapError, startDeposit };
}

/**
 * Starting the swap the way `path` says: atomically, the review of the swap prepared takes over
 * the card (`review`); by deposit, as `useDepositStart` does.
 */
export function useSwapStart(
  pair: Pair,
  amount: string,
  slippage: Slippage,
  onRefused: (code: string | null) => void,
) {
  const { wallet, config } = useServices();
  const { from, to, pool } = pair;
  const { phase, swapError, setSwapError, startDeposit } = useDepositStart(
    pair,
    amount,
    slippage,
    onRefused,
  );
  const [review, setReview] = useState<AtomicSwapRequest | null>(null);
  const path: SwapPath = swapPath({
    walletSignsHashes: wallet === null ? null : wallet.hashSigner !== undefined,
    serviceDepositOnly: unavailableAnswered || !config.atomicSwaps,
  });

  const startSwap = async () => {
    if (path.kind === 'deposit') return startDeposit();
    if (from === null || to === null || pool === null || !slippage.ok) return;
    setSwapError(null);
    setReview({
      ...{ fromToken: from.name, fromAdmin: from.admin, toToken: to.name, toAdmin: to.admin },
      ...{ poolId: pool.poolId, amount, slippageBps: slippage.bps },
    });
  };

  /** The service prepares no atomic swaps: the swap asked for goes by deposit, now and after. */
  const depositInstead = () => {
    unavailableAnswered = true;
    setReview(null);
    void startDeposit();
  };
  const closeReview = () => setReview(null);
  return { phase, swapError, startSwap, path, review, closeReview, depositInstead };
}
