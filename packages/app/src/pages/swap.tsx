/**
 * `/swap`: pick the pair and amount, read the live quote, set the slippage limit, and swap: the
 * wallet signs the service's challenge, the intent is created, the wallet sends the deposit, and
 * the progress page takes over. Below, the party's earlier swaps.
 */
import type { Pool, Quote } from '@poolparty/sdk';
import { useEffect, useId, useMemo, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { QuoteView } from '../components/quote-view.js';
import { SwapHistory } from '../components/swap-history.js';
import { WalletPanel } from '../components/wallet-panel.js';
import {
  parseAmount,
  parseSlippagePercent,
  SLIPPAGE_PERCENT_MAX,
  SLIPPAGE_PERCENT_MIN,
} from '../decimal.js';
import { requestDeposit } from '../deposit-request.js';
import { describeError } from '../describe-error.js';
import { useServices } from '../services.js';
import {
  choiceFromKey,
  choiceKey,
  choiceLabel,
  counterparts,
  poolFor,
  tradableTokens,
} from '../token-choice.js';

/** Wait this long after the last keystroke before asking for a quote. */
const QUOTE_DEBOUNCE_MS = 350;
/** A quote is indicative for `expiresIn` seconds; read it again this often while shown. */
const QUOTE_REFRESH_MS = 10_000;

const DEFAULT_SLIPPAGE = '1';

export function SwapPage() {
  const { pp, wallet, session } = useServices();
  const { route } = useLocation();
  const ids = {
    from: useId(),
    to: useId(),
    amount: useId(),
    slippage: useId(),
    slippageHint: useId(),
  };
  const [pools, setPools] = useState<Pool[] | null>(null);
  const [fromKey, setFromKey] = useState('');
  const [toKey, setToKey] = useState('');
  const [amount, setAmount] = useState('100');
  const [slippageText, setSlippageText] = useState(DEFAULT_SLIPPAGE);
  const [quote, setQuote] = useState<Quote | null>(null);
  const [quoteError, setQuoteError] = useState<string | null>(null);
  const [phase, setPhase] = useState<string | null>(null);
  const [swapError, setSwapError] = useState<string | null>(null);
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
  const slippage = parseSlippagePercent(slippageText);
  const amountValid = parseAmount(amount)?.isPositive() === true;

  // The live quote: asked again after each change (debounced) and every few seconds.
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

  return (
    <>
      <h1>Swap</h1>
      {pp === null && (
        <p role="alert" class="error">
          This service has no API key configured for its pages, so it cannot quote or swap.
        </p>
      )}
      {loadError && (
        <p role="alert" class="error">
          Could not load the pools: {loadError}
        </p>
      )}
      <div class="grid">
        <section class="card" aria-labelledby="swap-heading">
          <h2 id="swap-heading">Your swap</h2>
          <form
            onSubmit={(event) => {
              event.preventDefault();
              void startSwap();
            }}
          >
            <div class="row">
              <div>
                <label for={ids.from}>You send</label>
                <select
                  id={ids.from}
                  value={from ? choiceKey(from) : ''}
                  onChange={(event) => setFromKey(event.currentTarget.value)}
                >
                  {tokens.map((token) => (
                    <option key={choiceKey(token)} value={choiceKey(token)}>
                      {choiceLabel(token, tokens)}
                    </option>
                  ))}
                </select>
              </div>
              <div>
                <label for={ids.to}>You receive</label>
                <select
                  id={ids.to}
                  value={to ? choiceKey(to) : ''}
                  onChange={(event) => setToKey(event.currentTarget.value)}
                >
                  {targets.map((token) => (
                    <option key={choiceKey(token)} value={choiceKey(token)}>
                      {choiceLabel(token, tokens)}
                    </option>
                  ))}
                </select>
              </div>
            </div>
            <div class="row">
              <div>
                <label for={ids.amount}>Amount {from ? `(${from.name})` : ''}</label>
                <input
                  id={ids.amount}
                  inputMode="decimal"
                  value={amount}
                  aria-invalid={!amountValid}
                  onInput={(event) => setAmount(event.currentTarget.value.trim())}
                />
                {!amountValid && (
                  <p class="error" role="alert">
                    Enter an amount above 0 with at most 10 decimals.
                  </p>
                )}
              </div>
              <div>
                <label for={ids.slippage}>Slippage limit (%)</label>
                <input
                  id={ids.slippage}
                  inputMode="decimal"
                  value={slippageText}
                  aria-describedby={ids.slippageHint}
                  aria-invalid={!slippage.ok}
                  onInput={(event) => setSlippageText(event.currentTarget.value)}
                />
                <p class="hint" id={ids.slippageHint}>
                  {SLIPPAGE_PERCENT_MIN} to {SLIPPAGE_PERCENT_MAX} %. If the output at execution is
                  lower by more than this, your deposit is refunded.
                </p>
                {!slippage.ok && (
                  <p class="error" role="alert">
                    {slippage.message}
                  </p>
                )}
              </div>
            </div>
            <div aria-live="polite">
              {quote && <QuoteView quote={quote} slippageBps={slippage.ok ? slippage.bps : null} />}
              {!quote && !quoteError && amountValid && pool && <p class="hint">Getting a quote…</p>}
            </div>
            {quoteError && (
              <p role="alert" class="error" data-testid="quote-error">
                {quoteError}
              </p>
            )}
            {wallet === null && <p class="hint">Connect a wallet to swap.</p>}
            <button type="submit" class="primary" disabled={!canSwap}>
              Swap
            </button>
            {phase && (
              <p role="status" data-testid="swap-phase">
                {phase}
              </p>
            )}
            {swapError && (
              <p role="alert" class="error" data-testid="swap-error">
                {swapError}
              </p>
            )}
          </form>
        </section>
        <WalletPanel />
      </div>
      {wallet?.partyId && <SwapHistory partyId={wallet.partyId} />}
    </>
  );
}
