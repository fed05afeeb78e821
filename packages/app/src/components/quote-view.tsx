/**
 * A quote as the user reads it before swapping: what they send, every fee taken from it (network
 * fee, pool fee split into the LP and platform shares, any discount), what they get, the least
 * they may get under their slippage setting, the price impact, and the settlement-safety verdict.
 */
import type { Quote } from '@poolparty/sdk';
import { minOutputOf, parseAmount } from '../decimal.js';
import { discountOf, formatAmount, formatPercent, formatUsdBeside } from '../format.js';
import {
  NETWORK_FEE_SHARE_NOTICE_BPS,
  type NetworkFeeWeight,
  networkFeeWeight,
} from '../network-fee.js';
import { type QuoteUsdFigures, quoteUsdFigures, usdAt } from '../usd-values.js';

/** Above this price impact the page warns (warning colour), well before the service's cap. */
export const PRICE_IMPACT_WARNING = 0.01;

/**
 * One line a trader reads at a glance (rate, total fee, price impact, least received) that opens
 * into the full breakdown, every field of the quote, one click away.
 */
export function QuoteView(props: { quote: Quote; slippageBps: number | null }) {
  const { quote, slippageBps } = props;
  const minOutput = slippageBps === null ? null : minOutputOf(quote.outputAmount, slippageBps);
  const impact = Number(quote.priceImpact);
  const platformPolicy = quote.platformFeePolicy;
  const weight = networkFeeWeight(quote);
  const usd = quoteUsdFigures(quote, minOutput);
  return (
    <section aria-label="Quote" data-testid="quote">
      {quote.settlementSafety && (
        <p role="alert" class="warning" data-testid="settlement-safety">
          This swap cannot be made now: {quote.settlementSafety.message}
        </p>
      )}
      {impact > PRICE_IMPACT_WARNING && (
        <p class="warning" data-testid="impact-warning">
          This swap moves the pool's price by {formatPercent(quote.priceImpact)} (the service
          refuses above {formatPercent(quote.maxPriceImpact)}). A smaller amount gets a better rate.
        </p>
      )}
      {weight?.heavy && <NetworkFeeNotice quote={quote} weight={weight} usd={usd} />}
      <details class="quote-details">
        <summary data-testid="quote-summary">
          <QuoteSummary
            quote={quote}
            minOutput={minOutput}
            usd={usd}
            impactHigh={impact > PRICE_IMPACT_WARNING}
          />
        </summary>
        <dl class="breakdown">
          <dt>You send</dt>
          <dd class="total">
            {formatAmount(quote.totalInputAmount, 10)} {quote.inputToken}
            <Usd value={usd.input} />
          </dd>
          <FeeLines quote={quote} weight={weight} usd={usd} />
          <OutputLines quote={quote} minOutput={minOutput} usd={usd} />
        </dl>
        {platformPolicy && (
          <p class="hint">
            Platform fee rate {formatPercent(platformPolicy.chargedPlatformFeeRate, 3)} instead of{' '}
            {formatPercent(platformPolicy.fullPlatformFeeRate, 3)}.
          </p>
        )}
      </details>
    </section>
  );
}

/**
 * The network fee told as a cost: its share of the input above the notice, its amount and USD,
 * and the least amount (with its USD) from which it weighs no more than the notice's share.
 */
function NetworkFeeNotice(props: { quote: Quote; weight: NetworkFeeWeight; usd: QuoteUsdFigures }) {
  const { quote, weight, usd } = props;
  const minimumUsd = usdAt(weight.sensibleMinimum, {
    amount: quote.totalInputAmount,
    usd: usd.input,
  });
  return (
    <p class="warning" data-testid="network-fee-notice">
      The network fee, {formatAmount(quote.networkFeeAmount)} {quote.inputToken}
      {usd.networkFee !== null && ` (${formatUsdBeside(usd.networkFee)})`}, is{' '}
      {formatPercent(weight.share, 1)} of this swap (above{' '}
      {formatPercent(Number(NETWORK_FEE_SHARE_NOTICE_BPS) / 10_000, 0)}): it is about the same
      whatever the amount, so from about {formatAmount(weight.sensibleMinimum)} {quote.inputToken}
      {minimumUsd !== null && ` (${formatUsdBeside(minimumUsd)})`} it weighs less.
    </p>
  );
}

/** An amount's USD beside it (in brackets within a sentence); nothing where there is no price. */
function Usd(props: { value: string | null; brackets?: boolean }) {
  if (props.value === null) return null;
  const shown = formatUsdBeside(props.value);
  return <span class="usd"> {props.brackets ? `(${shown})` : shown}</span>;
}

/** The closed line: 1 A = r B · fee f A · impact p · at least m B. */
function QuoteSummary(props: {
  quote: Quote;
  minOutput: string | null;
  usd: QuoteUsdFigures;
  impactHigh: boolean;
}) {
  const { quote, minOutput, usd } = props;
  const fees = totalFee(quote);
  return (
    <span class="quote-summary">
      <span>
        1 {quote.inputToken} = {formatAmount(quote.effectiveRate, 8)} {quote.outputToken}
      </span>
      <span>
        Fees {fees === null ? '—' : formatAmount(fees)} {quote.inputToken}
        <Usd value={usd.totalFee} brackets />
      </span>
      <span class={props.impactHigh ? 'impact-high' : undefined} data-testid="summary-impact">
        Impact {formatPercent(quote.priceImpact)}
      </span>
      {minOutput !== null && (
        <span>
          Min {formatAmount(minOutput)} {quote.outputToken}
          <Usd value={usd.minOutput} brackets />
        </span>
      )}
    </span>
  );
}

/** Network fee + pool fee, exactly: everything the input pays before it is swapped. */
function totalFee(quote: Quote): string | null {
  const network = parseAmount(quote.networkFeeAmount);
  const pool = parseAmount(quote.poolFeeAmount);
  return network === null || pool === null ? null : network.add(pool).toString();
}

/** Every fee taken from the input, each discount shown against the full fee. */
function FeeLines(props: { quote: Quote; weight: NetworkFeeWeight | null; usd: QuoteUsdFigures }) {
  const { quote, usd } = props;
  const input = quote.inputToken;
  const networkPolicy = quote.networkFeePolicy;
  const platformPolicy = quote.platformFeePolicy;
  return (
    <>
      <dt>
        Network fee{props.weight && ` (${formatPercent(props.weight.share, 1)})`} · payout transfer
        {networkPolicy && <span class="badge">{discountOf(networkPolicy.chargeBps)}</span>}
      </dt>
      <dd data-testid="network-fee" class={props.weight?.heavy ? 'fee-heavy' : undefined}>
        {networkPolicy && networkPolicy.estimatedNetworkFeeAmount !== quote.networkFeeAmount && (
          <s>
            <span class="visually-hidden">before the discount: </span>
            {formatAmount(networkPolicy.estimatedNetworkFeeAmount, 10)}
          </s>
        )}{' '}
        {formatAmount(quote.networkFeeAmount, 10)} {input}
        <Usd value={usd.networkFee} />
      </dd>
      <dt>Pool fee ({formatPercent(quote.fee)})</dt>
      <dd data-testid="pool-fee">
        {formatAmount(quote.poolFeeAmount, 10)} {input}
        <Usd value={usd.poolFee} />
      </dd>
      <dt class="sub">· to liquidity providers</dt>
      <dd data-testid="lp-fee">
        {formatAmount(quote.lpFeeAmount, 10)} {input}
        <Usd value={usd.lpFee} />
      </dd>
      <dt class="sub">
        · to the platform
        {platformPolicy && <span class="badge">{discountOf(platformPolicy.chargeBps)}</span>}
      </dt>
      <dd data-testid="platform-fee">
        {formatAmount(quote.platformFeeAmount, 10)} {input}
        <Usd value={usd.platformFee} />
      </dd>
    </>
  );
}

/** What is swapped and what comes out: at this price, at least, the rate and the impact. */
function OutputLines(props: { quote: Quote; minOutput: string | null; usd: QuoteUsdFigures }) {
  const { quote, minOutput, usd } = props;
  const input = quote.inputToken;
  const output = quote.outputToken;
  return (
    <>
      <dt>Swapped in the pool</dt>
      <dd>
        {formatAmount(quote.inputAmountAfterPoolFee, 10)} {input}
        <Usd value={usd.swappedInput} />
      </dd>
      <dt>You receive (at this price)</dt>
      <dd class="total" data-testid="breakdown-output">
        {formatAmount(quote.outputAmount, 10)} {output}
        <Usd value={usd.output} />
      </dd>
      {minOutput !== null && (
        <>
          <dt>At least (after slippage)</dt>
          <dd data-testid="min-output">
            {formatAmount(minOutput, 10)} {output}
            <Usd value={usd.minOutput} />
          </dd>
        </>
      )}
      <dt>Rate</dt>
      <dd>
        1 {input} = {formatAmount(quote.effectiveRate, 8)} {output} (all fees included)
      </dd>
      <dt>Price impact</dt>
      <dd data-testid="price-impact">{formatPercent(quote.priceImpact)}</dd>
    </>
  );
}
