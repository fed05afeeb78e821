/**
 * The swap form's state (`/swap`, swap.tsx draws it): the pools and the pair chosen from their
 * tokens, the live quote for the amount, and starting the swap once the user confirms.
 */
import type { Pool, Quote } from '@poolparty/sdk';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import type { parseSlippagePercent } from '../decimal.js';
import { requestDeposit } from '../deposit-request.js';
import { describeError } from '../describe-error.js';
import { useServices } from '../services.js';
import {
  choiceFromKey,
  choiceKey,
  counterparts,
  poolFor,
  type TokenChoice,
  tradableTokens,
} from '../token-choice.js';

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
  /** The pool that trades the pair. */
  readonly pool: Pool | null;
  readonly loadError: string | null;
  setFromKey(key: string): void;
  setToKey(key: string): void;
}

export type Slippage = ReturnType<typeof parseSlippagePercent>;

/** The pools, listed once, and the pair chosen from their tokens (the first ones until chosen). */
export function usePair(): Pair {
  const { pp } = useServices();
  const [pools, setPools] = useState<Pool[] | null>(null);
  const [fromKey, setFromKey] = useState('');
  const [toKey, setToKey] = useState('');
  const [loadError, setLoadError] = useState<string | null>(null);

  useEffect(() => {
    pp?.pools.list().then(
      ({ pools: listed }) => setPools(listed),
      (caught: unknown) => setLoadError(describeError(caught)),
    );
  }, [pp]);

  const tokens = useMemo(() => tradableTokens(pools ?? []), [pools]);
  const from = choiceFromKey(fromKey) ?? tokens[0] ?? null;
  const targets = useMemo(
    () => (from === null ? [] : counterparts(pools ?? [], from)),
    [pools, from?.name, from?.admin],
  );
  const chosenTo = choiceFromKey(toKey);
  const to =
    (chosenTo && targets.find((t) => choiceKey(t) === choiceKey(chosenTo))) ?? targets[0] ?? null;
  const pool = from && to ? poolFor(pools ?? [], from, to) : null;
  return { tokens, targets, from, to, pool, loadError, setFromKey, setToKey };
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
 * Starting the swap: the wallet signs the service's challenge, the intent is created, and the
 * progress page takes over (it sends the deposit). `phase` says what is under way.
 */
export function useSwapStart(pair: Pair, amount: string, slippage: Slippage, quote: Quote | null) {
  const { pp, wallet, session } = useServices();
  const { route } = useLocation();
  const { from, to, pool } = pair;
  const [phase, setPhase] = useState<string | null>(null);
  const [swapError, setSwapError] = useState<string | null>(null);

  const canSwap =
    pp !== null &&
    wallet !== null &&
    quote !== null &&
    quote.settlementSafety === null &&
    slippage.ok &&
    phase === null;

  const startSwap = async () => {
    if (!canSwap || from === null || to === null || pool === null || !slippage.ok) return;
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
      route(`/swaps/${encodeURIComponent(swap.intentId)}`);
    } catch (caught) {
      setSwapError(describeError(caught));
    } finally {
      setPhase(null);
    }
  };

  return { canSwap, phase, swapError, startSwap };
}
