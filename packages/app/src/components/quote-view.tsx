/**
 * A quote as the user reads it before swapping: what they send, every fee taken from it (network
 * fee, pool fee split into the LP and platform shares, any discount), what they get, the least
 * they may get under their slippage setting, the price impact, and the settlement-safety verdict.
 */
import type { Quote } from '@poolparty/sdk';
import { minOutputOf } from '../decimal.js';
import { discountOf, formatAmount, formatPercent } from '../format.js';

/** Above this price impact the page warns, well before the service's own cap refuses. */
const PRICE_IMPACT_WARNING = 0.01;

export function QuoteView(props: { quote: Quote; slippageBps: number | null }) {
  const { quote, slippageBps } = props;
  const minOutput = slippageBps === null ? null : minOutputOf(quote.outputAmount, slippageBps);
  const impact = Number(quote.priceImpact);
  const platformPolicy = quote.platformFeePolicy;
  return (
    <section aria-labelledby="quote-heading" data-testid="quote">
      <h3 id="quote-heading">Quote</h3>
      {quote.settlementSafety && (
        <p role="alert" class="warning" data-testid="settlement-safety">
          This swap cannot be made now: {quote.settlementSafety.message}
        </p>
      )}
      <dl class="breakdown">
        <dt>You send</dt>
        <dd class="total">
          {formatAmount(quote.totalInputAmount, 10)} {quote.inputToken}
        </dd>
        <FeeLines quote={quote} />
        <OutputLines quote={quote} minOutput={minOutput} />
      </dl>
      {impact > PRICE_IMPACT_WARNING && (
        <p class="warning">
          This swap moves the pool's price by {formatPercent(quote.priceImpact)} (the service
          refuses above {formatPercent(quote.maxPriceImpact)}). A smaller amount gets a better rate.
        </p>
      )}
      {platformPolicy && (
        <p class="hint">
          Platform fee rate {formatPercent(platformPolicy.chargedPlatformFeeRate, 3)} instead of{' '}
          {formatPercent(platformPolicy.fullPlatformFeeRate, 3)}.
        </p>
      )}
    </section>
  );
}

/** Every fee taken from the input, each discount shown against the full fee. */
function FeeLines(props: { quote: Quote }) {
  const { quote } = props;
  const input = quote.inputToken;
  const networkPolicy = quote.networkFeePolicy;
  const platformPolicy = quote.platformFeePolicy;
  return (
    <>
      <dt>
        Network fee (payout transfer)
        {networkPolicy && <span class="badge">{discountOf(networkPolicy.chargeBps)}</span>}
      </dt>
      <dd data-testid="network-fee">
        {networkPolicy && networkPolicy.estimatedNetworkFeeAmount !== quote.networkFeeAmount && (
          <s>
            <span class="visually-hidden">before the discount: </span>
            {formatAmount(networkPolicy.estimatedNetworkFeeAmount, 10)}
          </s>
        )}{' '}
        {formatAmount(quote.networkFeeAmount, 10)} {input}
      </dd>
      <dt>Pool fee ({formatPercent(quote.fee)})</dt>
      <dd data-testid="pool-fee">
        {formatAmount(quote.poolFeeAmount, 10)} {input}
      </dd>
      <dt class="sub">· to liquidity providers</dt>
      <dd data-testid="lp-fee">
        {formatAmount(quote.lpFeeAmount, 10)} {input}
      </dd>
      <dt class="sub">
        · to the platform
        {platformPolicy && <span class="badge">{discountOf(platformPolicy.chargeBps)}</span>}
      </dt>
      <dd data-testid="platform-fee">
        {formatAmount(quote.platformFeeAmount, 10)} {input}
      </dd>
    </>
  );
}

/** What is swapped and what comes out: at this price, at least, the rate and the impact. */
function OutputLines(props: { quote: Quote; minOutput: string | null }) {
  const { quote, minOutput } = props;
  const input = quote.inputToken;
  const output = quote.outputToken;
  return (
    <>
      <dt>Swapped in the pool</dt>
      <dd>
        {formatAmount(quote.inputAmountAfterPoolFee, 10)} {input}
      </dd>
      <dt>You receive (at this price)</dt>
      <dd class="total" data-testid="output-amount">
        {formatAmount(quote.outputAmount, 10)} {output}
      </dd>
      {minOutput !== null && (
        <>
          <dt>At least (after slippage)</dt>
          <dd data-testid="min-output">
            {formatAmount(minOutput, 10)} {output}
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
