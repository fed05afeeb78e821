/**
 * A liquidity position in figures (docs/spec/liquidity.md#positions): what it is worth now, its
 * share of the pool, what went in, its value against simply holding that ("value vs holding": the
 * LP fees, less any loss from the price moving — not the fees alone), and the units. Values are in the pool's token B, as the
 * service gives them.
 */
import { formatAmount, formatPercent } from '../format.js';
import type { Position } from './party-liquidity.js';

export function PositionFigures(props: { position: Position }) {
  const { position: p } = props;
  const earned = p.earnedInB.startsWith('-') ? 'bad' : 'good';
  return (
    <>
      <PositionList position={p} earned={earned} />
      <p class="hint">
        Value vs holding: the value now less simply holding what went in, both at today's price —
        the fees earned, less any loss from the price moving (rounding favours the pool by a hair).
        It is not the fees alone: the service does not report those per position.
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
      <dt>Value vs holding</dt>
      <dd data-testid="position-earned" data-sign={earned} data-value={p.earnedInB}>
        {formatAmount(p.earnedInB)} {p.tokenB}
      </dd>
      <dt>Units</dt>
      <dd data-testid="position-units">{formatAmount(p.units)}</dd>
    </dl>
  );
}

/** A position worth showing: one with units left. */
export function holdsUnits(position: Position): boolean {
  return /[1-9]/.test(position.units);
}
