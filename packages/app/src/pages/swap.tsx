/**
 * `/swap`: pick the pair (and the pool, where several trade it), the amount with the balance
 * beside it, read the live quote, set the slippage limit, and swap. With a wallet that signs
 * hashes the swap is atomic: its review (atomic-swap-review.tsx, loaded then) takes the card's
 * place until it ends. Otherwise, by deposit, saying so in one line: the wallet signs the
 * service's challenge, the intent is created, the wallet sends the deposit, and the progress page
 * takes over. The Swap button says why it cannot be pressed when it cannot; a swap still waiting
 * for its deposit can be cancelled here. Beside the card (under it on a phone), the chosen pool's
 * price chart and the wallet; below, the party's earlier swaps. The form's state is in
 * swap-form-state.ts, its parts in swap-form-fields.tsx.
 */
import { useState } from 'preact/hooks';
import { ErrorBoundary, lazy, useLocation } from 'preact-iso';
import { SwapHistory } from '../components/swap-history.js';
import { useWaitingSwaps, WaitingSwaps } from '../components/waiting-swaps.js';
import { WalletPanel } from '../components/wallet-panel.js';
import { parseAmount, parseSlippagePercent } from '../decimal.js';
import { amountAfterFlip } from '../flip-amount.js';
import { usePageTitle } from '../page-title.js';
import { useServices } from '../services.js';
import { swapBlock } from '../swap-blocker.js';
import { quoteUsdFigures } from '../usd-values.js';
import {
  AmountField,
  OutputFigure,
  PairPickers,
  PoolPicker,
  QuoteArea,
  SlippageSettings,
  SwapButton,
} from './swap-form-fields.js';
import {
  spendableOf,
  useLiveQuote,
  usePair,
  useSpendable,
  useSwapStart,
} from './swap-form-state.js';

// An atomic swap's review comes with the SDK's atomic entry, when a swap starts.
const AtomicSwapReview = lazy(() =>
  import('./atomic-swap-review.js').then((m) => m.AtomicSwapReview),
);
// The pool's price chart comes with the charts' chunk, after the card is drawn.
const SwapPoolChart = lazy(() =>
  import('../components/swap-pool-chart.js').then((m) => m.SwapPoolChart),
);

const DEFAULT_SLIPPAGE = '1';
const DEFAULT_AMOUNT = '100';

export function SwapPage() {
  usePageTitle('Swap');
  const { wallet } = useServices();
  const waiting = useWaitingSwaps(wallet?.partyId ?? null);
  const [version, setVersion] = useState(0);
  const refresh = () => {
    void waiting.reload();
    setVersion((v) => v + 1);
  };
  return (
    <>
      <h1>Swap</h1>
      <WaitingSwaps swaps={waiting.swaps} onCancelled={refresh} />
      <SwapForm waiting={waiting.swaps} version={version} onRefused={refresh} />
      {wallet?.partyId && <SwapHistory partyId={wallet.partyId} refreshKey={String(version)} />}
    </>
  );
}

/** Whether one of the party's waiting swaps holds the chosen pool and input token. */
function isWaiting(
  waiting: ReturnType<typeof useWaitingSwaps>['swaps'],
  pair: ReturnType<typeof usePair>,
): boolean {
  return waiting.some(
    (swap) =>
      swap.poolId === pair.pool?.poolId &&
      swap.inputToken === pair.from?.name &&
      swap.inputTokenAdmin === pair.from?.admin,
  );
}

interface SwapFormProps {
  readonly waiting: ReturnType<typeof useWaitingSwaps>['swaps'];
  readonly version: number;
  /** The swap was refused or the balances changed: read the waiting swaps and balances again. */
  onRefused(): void;
}

/** The card's state: the pair, amount, slippage, live quote, what blocks the swap, Flip. */
function useSwapCard(props: SwapFormProps) {
  const { pp, wallet } = useServices();
  const { query } = useLocation();
  const pair = usePair();
  const spendable = useSpendable(props.version);
  const [amount, setAmount] = useState(query.amount ?? DEFAULT_AMOUNT);
  const [slippageText, setSlippageText] = useState(DEFAULT_SLIPPAGE);
  const slippage = parseSlippagePercent(slippageText);
  const amountValid = parseAmount(amount)?.isPositive() === true;
  const { quote, quoteError } = useLiveQuote(pair, amount, amountValid);
  const start = useSwapStart(pair, amount, slippage, props.onRefused);
  const fromSpendable = spendableOf(spendable, pair.from);
  const blocker = swapBlock({
    canQuote: pp !== null,
    walletConnected: wallet !== null,
    token: pair.from?.name ?? null,
    amount,
    spendable: fromSpendable,
    slippageOk: slippage.ok,
    quote,
    quoteError,
    waitingSwap: isWaiting(props.waiting, pair),
  });

  const onFlip = () => {
    setAmount(amountAfterFlip(amount, quote, pair.from, pair.to));
    pair.flip();
  };
  return {
    ...{ pair, spendable, amount, setAmount, amountValid, slippageText, setSlippageText },
    ...{ slippage, quote, quoteError, start, blocker, onFlip },
  };
}

/** The card's form: the pair, the amount, the slippage limit, the quote and Swap. */
function CardForm(props: { card: ReturnType<typeof useSwapCard>; hidden: boolean }) {
  const { wallet } = useServices();
  const { pair, spendable, amount, setAmount, amountValid, slippageText, setSlippageText } =
    props.card;
  const { slippage, quote, quoteError, start, blocker, onFlip } = props.card;
  const { phase, path } = start;
  return (
    <form
      hidden={props.hidden}
      onSubmit={(event) => {
        event.preventDefault();
        if (blocker === null && phase === null) void start.startSwap();
      }}
    >
      <div class="swap-card-head">
        <h2 id="swap-heading">Your swap</h2>
        <SlippageSettings value={slippageText} slippage={slippage} onInput={setSlippageText} />
      </div>
      <PairPickers
        pair={pair}
        spendable={spendable}
        onFlip={onFlip}
        onMax={wallet === null ? undefined : setAmount}
        usd={quote === null ? null : quoteUsdFigures(quote, null)}
        amount={
          <AmountField
            token={pair.from?.name ?? null}
            value={amount}
            valid={amountValid}
            onInput={setAmount}
          />
        }
        output={<OutputFigure quote={quote} waiting={amountValid && pair.pool !== null} />}
      />
      <PoolPicker pair={pair} />
      <SwapButton
        blocker={blocker}
        phase={phase}
        swapError={start.swapError}
        note={path.kind === 'deposit' ? path.note : null}
      />
      <QuoteArea
        quote={quote}
        quoteError={quoteError}
        slippage={slippage}
        waiting={amountValid && pair.pool !== null}
      />
    </form>
  );
}

function SwapForm(props: SwapFormProps) {
  const card = useSwapCard(props);
  const { pair, start } = card;
  const { review } = start;
  return (
    <>
      {pair.loadError && (
        <p role="alert" class="error">
          Could not load the pools: {pair.loadError}
        </p>
      )}
      <div class="swap-layout">
        <section
          class="card swap-card"
          aria-labelledby={review ? 'atomic-heading' : 'swap-heading'}
        >
          {review && (
            <ErrorBoundary>
              <AtomicSwapReview
                request={review}
                onDepositOnly={start.depositInstead}
                onClose={start.closeReview}
                onEnded={props.onRefused}
              />
            </ErrorBoundary>
          )}
          <CardForm card={card} hidden={review !== null} />
        </section>
        <div class="swap-aside">
          {pair.pool && (
            <ErrorBoundary>
              <SwapPoolChart pool={pair.pool} pools={pair.allPools} />
            </ErrorBoundary>
          )}
          <WalletPanel balancesVersion={props.version} onBalancesChanged={props.onRefused} />
        </div>
      </div>
    </>
  );
}
