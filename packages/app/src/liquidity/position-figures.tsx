/**
 * A liquidity position in figures (docs/spec/liquidity.md#positions): what it is worth now, its
 * share of the pool, what went in, the LP fees its units earned (per side, with their USD value
 * when both sides have one), its value against simply holding what went in ("value vs holding":
 * the fees, less any loss from the price moving), and the units. Values are in the pool's token
 * B, as the service gives them.
 */
import { parseAmount } from '../decimal.js';
import { formatAmount, formatPercent, formatUsdBeside } from '../format.js';
import type { Position } from './party-liquidity.js';

/**
 * The fees' USD value, both sides added; null when either side has no USD price, so a total never
 * leaves a side out.
 */
export function feesEarnedUsd(fees: Position['feesEarned']): string | null {
  if (fees.aUsd === null || fees.bUsd === null) return null;
  const [a, b] = [parseAmount(fees.aUsd), parseAmount(fees.bUsd)];
  return a === null || b === null ? null : a.add(b).toString();
}

export function PositionFigures(props: { position: Position }) {
  const { position: p } = props;
  const earned = p.earnedInB.startsWith('-') ? 'bad' : 'good';
  return (
    <>
      <PositionList position={p} earned={earned} />
      <p class="hint">
        Fees earned: the LP fee share of every swap since the units joined, in the token each was
        paid in. They are already in the pool's reserves, so removing liquidity pays them with the
        rest. Value vs holding: the value now less simply holding what went in, both at today's
        price — the fees earned, less any loss from the price moving (rounding favours the pool by a
        hair).
      </p>
    </>
  );
}

function PositionList(props: { position: Position; earned: 'good' | 'bad' }) {
  const { position: p, earned } = props;
  return (
    <dl class="breakdown" data-testid={`position-${p.poolId}`}>
      <dt>Value now</dt>
      <dd data-testid="position-value">
        {formatAmount(p.valueInB)} {p.tokenB}
      </dd>
      <dt class="sub">redeems for</dt>
      <dd>
        {formatAmount(p.redeemable.a)} {p.tokenA} + {formatAmount(p.redeemable.b)} {p.tokenB}
      </dd>
      <dt>Share of the pool</dt>
      <dd data-testid="position-share">{formatPercent(p.shareOfSupply, 4)}</dd>
      <dt>What went in</dt>
      <dd>
        {formatAmount(p.deposited.a)} {p.tokenA} + {formatAmount(p.deposited.b)} {p.tokenB}
      </dd>
      <dt class="sub">worth now</dt>
      <dd>
        {formatAmount(p.depositedInB)} {p.tokenB}
      </dd>
      <FeesEarned position={p} />
      <dt>Value vs holding</dt>
      <dd data-testid="position-earned" data-sign={earned} data-value={p.earnedInB}>
        {formatAmount(p.earnedInB)} {p.tokenB}
      </dd>
      <dt>Units</dt>
      <dd data-testid="position-units">{formatAmount(p.units)}</dd>
    </dl>
  );
}

function FeesEarned(props: { position: Position }) {
  const { position: p } = props;
  const fees = p.feesEarned;
  const usd = feesEarnedUsd(fees);
  return (
    <>
      <dt>Fees earned</dt>
      <dd data-testid="position-fees" data-a={fees.a} data-b={fees.b}>
        {formatAmount(fees.a)} {p.tokenA} + {formatAmount(fees.b)} {p.tokenB}
        {usd === null ? '' : ` (${formatUsdBeside(usd)})`}
      </dd>
    </>
  );
}

/** A position worth showing: one with units left. */
export function holdsUnits(position: Position): boolean {
  return /[1-9]/.test(position.units);
}
