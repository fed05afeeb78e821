/**
 * The swap form's parts (`/swap`, swap.tsx puts them together): the pair's pickers, the amount and
 * slippage fields, the quote as it arrives, and the Swap button with what it is doing.
 */
import type { Quote } from '@poolparty/sdk';
import { useId } from 'preact/hooks';
import { QuoteView } from '../components/quote-view.js';
import { SLIPPAGE_PERCENT_MAX, SLIPPAGE_PERCENT_MIN } from '../decimal.js';
import { choiceKey, choiceLabel, type TokenChoice } from '../token-choice.js';
import type { Pair, Slippage } from './swap-form-state.js';

export function PairPickers(props: { pair: Pair }) {
  const { tokens, targets, from, to, setFromKey, setToKey } = props.pair;
  return (
    <div class="row">
      <TokenPicker
        label="You send"
        choices={tokens}
        tokens={tokens}
        value={from}
        onChange={setFromKey}
      />
      <TokenPicker
        label="You receive"
        choices={targets}
        tokens={tokens}
        value={to}
        onChange={setToKey}
      />
    </div>
  );
}

function TokenPicker(props: {
  label: string;
  choices: readonly TokenChoice[];
  /** Every token listed, to tell apart the symbols several admins issue. */
  tokens: readonly TokenChoice[];
  value: TokenChoice | null;
  onChange: (key: string) => void;
}) {
  const id = useId();
  return (
    <div>
      <label for={id}>{props.label}</label>
      <select
        id={id}
        value={props.value ? choiceKey(props.value) : ''}
        onChange={(event) => props.onChange(event.currentTarget.value)}
      >
        {props.choices.map((token) => (
          <option key={choiceKey(token)} value={choiceKey(token)}>
            {choiceLabel(token, props.tokens)}
          </option>
        ))}
      </select>
    </div>
  );
}

export function AmountField(props: {
  token: string | null;
  value: string;
  valid: boolean;
  onInput: (amount: string) => void;
}) {
  const id = useId();
  return (
    <div>
      <label for={id}>Amount {props.token ? `(${props.token})` : ''}</label>
      <input
        id={id}
        inputMode="decimal"
        value={props.value}
        aria-invalid={!props.valid}
        onInput={(event) => props.onInput(event.currentTarget.value.trim())}
      />
      {!props.valid && (
        <p class="error" role="alert">
          Enter an amount above 0 with at most 10 decimals.
        </p>
      )}
    </div>
  );
}

export function SlippageField(props: {
  value: string;
  slippage: Slippage;
  onInput: (text: string) => void;
}) {
  const id = useId();
  const hintId = useId();
  const { slippage } = props;
  return (
    <div>
      <label for={id}>Slippage limit (%)</label>
      <input
        id={id}
        inputMode="decimal"
        value={props.value}
        aria-describedby={hintId}
        aria-invalid={!slippage.ok}
        onInput={(event) => props.onInput(event.currentTarget.value)}
      />
      <p class="hint" id={hintId}>
        {SLIPPAGE_PERCENT_MIN} to {SLIPPAGE_PERCENT_MAX} %. If the output at execution is lower by
        more than this, your deposit is refunded.
      </p>
      {!slippage.ok && (
        <p class="error" role="alert">
          {slippage.message}
        </p>
      )}
    </div>
  );
}

/** The quote, or that one is on its way (`waiting`: the amount and pair can be quoted). */
export function QuoteArea(props: {
  quote: Quote | null;
  quoteError: string | null;
  slippage: Slippage;
  waiting: boolean;
}) {
  const { quote, quoteError, slippage } = props;
  return (
    <>
      <div aria-live="polite">
        {quote && <QuoteView quote={quote} slippageBps={slippage.ok ? slippage.bps : null} />}
        {!quote && !quoteError && props.waiting && <p class="hint">Getting a quote…</p>}
      </div>
      {quoteError && (
        <p role="alert" class="error" data-testid="quote-error">
          {quoteError}
        </p>
      )}
    </>
  );
}

export function SwapButton(props: {
  walletConnected: boolean;
  canSwap: boolean;
  phase: string | null;
  swapError: string | null;
}) {
  return (
    <>
      {!props.walletConnected && <p class="hint">Connect a wallet to swap.</p>}
      <button type="submit" class="primary" disabled={!props.canSwap}>
        Swap
      </button>
      {props.phase && (
        <p role="status" data-testid="swap-phase">
          {props.phase}
        </p>
      )}
      {props.swapError && (
        <p role="alert" class="error" data-testid="swap-error">
          {props.swapError}
        </p>
      )}
    </>
  );
}
