/**
 * The swap form's parts (`/swap`, swap.tsx puts them together): the pair's pickers, the amount and
 * slippage fields, the quote as it arrives, and the Swap button with what it is doing.
 */
import type { Quote } from '@poolparty/sdk';
import type { ComponentChildren } from 'preact';
import { useId } from 'preact/hooks';
import { QuoteView } from '../components/quote-view.js';
import { TokenPicker } from '../components/token-picker.js';
import { SLIPPAGE_PERCENT_MAX, SLIPPAGE_PERCENT_MIN } from '../decimal.js';
import { formatAmount, formatPercent, formatUsdBeside } from '../format.js';
import type { SwapBlock } from '../swap-blocker.js';
import { pairLabel, type TokenChoice } from '../token-choice.js';
import type { QuoteUsdFigures } from '../usd-values.js';
import type { Spendable } from '../wallets/wallet.js';
import { type Pair, type Slippage, spendableOf } from './swap-form-state.js';

/**
 * The two sides of the card: what is sent (the amount field, the token beside it, the balance and
 * Max) and what comes back (the live output, the token beside it), with Flip between them.
 */
export function PairPickers(props: {
  pair: Pair;
  spendable: readonly Spendable[] | null;
  /** The amount field of the sending side. */
  amount: ComponentChildren;
  /** The live output of the receiving side. */
  output: ComponentChildren;
  /** Flip: the pair turns and the received amount becomes the sent one. */
  onFlip: () => void;
  /** Max: the whole balance of the sent token as the amount; absent without a wallet. */
  onMax?: ((balance: string) => void) | undefined;
  /** Each side's amount in USD, from the quote; null without one. */
  usd: QuoteUsdFigures | null;
}) {
  const { tokens, targets, from, to, setFromKey, setToKey } = props.pair;
  return (
    <div class="pair">
      <TokenSide
        label="You send"
        choices={tokens}
        tokens={tokens}
        value={from}
        onChange={setFromKey}
        spendable={props.spendable}
        usd={props.usd?.input ?? null}
        onMax={props.onMax}
      >
        {props.amount}
      </TokenSide>
      <button
        type="button"
        class="flip"
        onClick={props.onFlip}
        disabled={from === null || to === null}
        aria-label="Flip: send what you would receive"
        title="Flip the pair"
      >
        ⇅
      </button>
      <TokenSide
        label="You receive"
        choices={targets}
        tokens={tokens}
        value={to}
        onChange={setToKey}
        spendable={props.spendable}
        usd={props.usd?.output ?? null}
      >
        {props.output}
      </TokenSide>
    </div>
  );
}

function TokenSide(props: {
  label: string;
  choices: readonly TokenChoice[];
  /** Every token listed, to tell apart the symbols several admins issue. */
  tokens: readonly TokenChoice[];
  value: TokenChoice | null;
  onChange: (key: string) => void;
  spendable: readonly Spendable[] | null;
  /** The amount (or output) shown beside the token. */
  children: ComponentChildren;
  /** The side's amount in USD, under it; null without a quote or a price. */
  usd: string | null;
  /** Max on the balance line: the whole balance as the amount (the sending side only). */
  onMax?: ((balance: string) => void) | undefined;
}) {
  const { onMax, usd, value } = props;
  const balance = spendableOf(props.spendable, value);
  const balanceId = useId();
  const known = balance !== null && value !== null;
  return (
    <div class="token-side">
      <div class="token-side-row">
        {props.children}
        <TokenPicker
          label={props.label}
          choices={props.choices}
          tokens={props.tokens}
          value={value}
          onChange={props.onChange}
          spendable={props.spendable}
          describedBy={known ? balanceId : undefined}
        />
      </div>
      <p class="hint token-side-foot">
        <span class="usd" data-testid={`usd-${props.label}`}>
          {usd === null ? '' : formatUsdBeside(usd)}
        </span>
        {known && (
          <span class="balance-line">
            <span id={balanceId} data-testid={`balance-${props.label}`}>
              Balance: {formatAmount(balance)} {value.name}
            </span>
            {onMax && (
              <button
                type="button"
                class="max"
                onClick={() => onMax(balance)}
                disabled={balance === '0'}
                aria-label={`Max: the whole balance, ${formatAmount(balance)} ${value.name}`}
              >
                Max
              </button>
            )}
          </span>
        )}
      </p>
    </div>
  );
}

/** The receiving side's figure: the quote's output as it arrives, or a dash. */
export function OutputFigure(props: { quote: Quote | null; waiting: boolean }) {
  const { quote } = props;
  return (
    <div class="amount-field">
      <span class="amount-label">Output</span>
      <output
        class="amount-big"
        aria-live="polite"
        data-testid={quote ? 'output-amount' : 'output-pending'}
      >
        {quote ? formatAmount(quote.outputAmount) : props.waiting ? '…' : '—'}
      </output>
    </div>
  );
}

/**
 * Where several active pools trade the chosen symbols (the output symbol issued by several
 * admins), which one to swap in: choosing a pool chooses the output token's issuer.
 */
export function PoolPicker(props: { pair: Pair }) {
  const id = useId();
  const { pools, pool, allPools, setPoolId } = props.pair;
  if (pools.length < 2) return null;
  return (
    <div>
      <label for={id}>Pool</label>
      <select
        id={id}
        value={pool?.poolId ?? ''}
        onChange={(event) => setPoolId(event.currentTarget.value)}
      >
        {pools.map((candidate) => (
          <option key={candidate.poolId} value={candidate.poolId}>
            {pairLabel(candidate, allPools)} · {candidate.poolId} · fee{' '}
            {formatPercent(candidate.fee)}
          </option>
        ))}
      </select>
      <p class="hint">Several pools trade these symbols, each with its own issuer and reserves.</p>
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
    <div class="amount-field">
      <label for={id} class="amount-label">
        Amount {props.token ? `(${props.token})` : ''}
      </label>
      <input
        id={id}
        class="amount-big"
        inputMode="decimal"
        autoComplete="off"
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

/**
 * The slippage limit behind a settings control, as traders expect it: closed, it says the
 * current limit (or that it is invalid, which the button then says too); Escape closes it and
 * gives the focus back to its toggle.
 */
export function SlippageSettings(props: {
  value: string;
  slippage: Slippage;
  onInput: (text: string) => void;
}) {
  const shown = props.slippage.ok ? `${props.value} %` : 'invalid';
  return (
    <details
      class="settings"
      onKeyDown={(event) => {
        if (event.key !== 'Escape') return;
        const details = event.currentTarget;
        details.open = false;
        details.querySelector('summary')?.focus();
      }}
    >
      <summary data-testid="slippage-toggle">Slippage {shown}</summary>
      <SlippageField {...props} />
    </details>
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
        {SLIPPAGE_PERCENT_MIN} to {SLIPPAGE_PERCENT_MAX} %. If the output at execution would be
        lower by more than this, the swap does not run (a deposit is refunded).
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
  /** Why the swap cannot start now; null when it can. */
  blocker: SwapBlock | null;
  phase: string | null;
  swapError: string | null;
  /** The one line on why the swap goes by deposit (swap-path.ts); null when atomic or unsaid. */
  note: string | null;
}) {
  const reasonId = useId();
  const { blocker } = props;
  const disabled = blocker !== null || props.phase !== null;
  return (
    <>
      <button
        type="submit"
        class="primary swap-button"
        data-testid="swap-button"
        disabled={disabled}
        aria-describedby={blocker === null ? undefined : reasonId}
      >
        {props.phase !== null ? 'Swapping…' : (blocker?.label ?? 'Swap')}
      </button>
      {blocker !== null && props.phase === null && (
        <p class="hint" id={reasonId} data-testid="swap-blocker">
          {blocker.detail}
        </p>
      )}
      {props.note && (
        <p class="hint" data-testid="swap-path-note">
          {props.note}
        </p>
      )}
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
