/**
 * `/swap`: pick the pair and amount, read the live quote, set the slippage limit, and swap: the
 * wallet signs the service's challenge, the intent is created, the wallet sends the deposit, and
 * the progress page takes over. Below, the party's earlier swaps. The form's state is in
 * swap-form-state.ts, its parts in swap-form-fields.tsx.
 */
import { useState } from 'preact/hooks';
import { SwapHistory } from '../components/swap-history.js';
import { WalletPanel } from '../components/wallet-panel.js';
import { parseAmount, parseSlippagePercent } from '../decimal.js';
import { useServices } from '../services.js';
import {
  AmountField,
  PairPickers,
  QuoteArea,
  SlippageField,
  SwapButton,
} from './swap-form-fields.js';
import { useLiveQuote, usePair, useSwapStart } from './swap-form-state.js';

const DEFAULT_SLIPPAGE = '1';

export function SwapPage() {
  const { wallet } = useServices();
  return (
    <>
      <h1>Swap</h1>
      <SwapForm />
      {wallet?.partyId && <SwapHistory partyId={wallet.partyId} />}
    </>
  );
}

function SwapForm() {
  const { pp, wallet } = useServices();
  const pair = usePair();
  const [amount, setAmount] = useState('100');
  const [slippageText, setSlippageText] = useState(DEFAULT_SLIPPAGE);
  const slippage = parseSlippagePercent(slippageText);
  const amountValid = parseAmount(amount)?.isPositive() === true;
  const { quote, quoteError } = useLiveQuote(pair, amount, amountValid);
  const { canSwap, phase, swapError, startSwap } = useSwapStart(pair, amount, slippage, quote);

  return (
    <>
      {pp === null && (
        <p role="alert" class="error">
          This service has no API key configured for its pages, so it cannot quote or swap.
        </p>
      )}
      {pair.loadError && (
        <p role="alert" class="error">
          Could not load the pools: {pair.loadError}
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
            <PairPickers pair={pair} />
            <div class="row">
              <AmountField
                token={pair.from?.name ?? null}
                value={amount}
                valid={amountValid}
                onInput={setAmount}
              />
              <SlippageField value={slippageText} slippage={slippage} onInput={setSlippageText} />
            </div>
            <QuoteArea
              quote={quote}
              quoteError={quoteError}
              slippage={slippage}
              waiting={amountValid && pair.pool !== null}
            />
            <SwapButton
              walletConnected={wallet !== null}
              canSwap={canSwap}
              phase={phase}
              swapError={swapError}
            />
          </form>
        </section>
        <WalletPanel />
      </div>
    </>
  );
}
