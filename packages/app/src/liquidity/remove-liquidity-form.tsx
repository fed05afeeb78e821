/**
 * Removing liquidity: a share of the position (25, 50, 75 or 100 %) or an amount of units, what
 * they pay at the reserves now, and the least accepted of each token at the slippage set (below
 * it, nothing is burned). "Remove" creates the withdrawal; the caller follows its payouts.
 */
import { minimumUnits, planBurn, unitsOfShare } from '@poolparty/core/liquidity';
import type { Pool } from '@poolparty/sdk';
import { useId, useState } from 'preact/hooks';
import { parseAmount, parseSlippagePercent } from '../decimal.js';
import { formatAmount } from '../format.js';
import { poolLiquidity } from './liquidity-preview.js';
import { useLiquiditySubmission } from './liquidity-submission.js';
import type { Liquidity, Position, WithdrawalObject } from './party-liquidity.js';

const SHARES = [2_500, 5_000, 7_500, 10_000] as const;
const DEFAULT_SLIPPAGE = '0.5';

export function RemoveLiquidityForm(props: {
  pool: Pool;
  position: Position;
  client: Liquidity;
  onCreated(withdrawal: WithdrawalObject): void;
}) {
  const { pool } = props;
  const form = useRemoveForm(props.pool, props.position);
  const { busy, error, submit } = useLiquiditySubmission(
    () => (form.body === null ? null : props.client.withdraw(form.body)),
    props.onCreated,
  );
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        submit();
      }}
    >
      <h4>Remove liquidity</h4>
      <ShareChoice form={form} />
      <RemoveFields form={form} />
      {form.payout && form.minimum && (
        <dl class="breakdown" data-testid="burn-preview">
          <dt>You receive (expected)</dt>
          <dd>
            {formatAmount(form.payout.payA.toString())} {pool.tokenA.name} +{' '}
            {formatAmount(form.payout.payB.toString())} {pool.tokenB.name}
          </dd>
          <dt>At least</dt>
          <dd>
            {formatAmount(form.minimum.a.toString())} {pool.tokenA.name} +{' '}
            {formatAmount(form.minimum.b.toString())} {pool.tokenB.name}
          </dd>
        </dl>
      )}
      <button type="submit" disabled={busy || form.body === null}>
        {busy ? 'Removing…' : 'Remove'}
      </button>
      {form.problem && <p class="hint">{form.problem}</p>}
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
    </form>
  );
}

type RemoveForm = ReturnType<typeof useRemoveForm>;

/** A share or units (choosing one clears the other), the slippage, and what they pay. */
function useRemoveForm(pool: Pool, position: Position) {
  const [shareBps, setShareBps] = useState<number | null>(5_000);
  const [unitsText, setUnitsText] = useState('');
  const [slippageText, setSlippageText] = useState(DEFAULT_SLIPPAGE);
  const held = parseAmount(position.units);
  const typed = parseAmount(unitsText);
  const units = held === null ? null : shareBps !== null ? unitsOfShare(held, shareBps) : typed;
  const slippage = parseSlippagePercent(slippageText);
  const payout = units === null ? null : planBurn(poolLiquidity(pool), units);
  // The slippage comes off what each token pays as off an intent's units: rounded down.
  const minimum =
    payout && slippage.ok
      ? {
          a: minimumUnits(payout.payA, slippage.bps),
          b: minimumUnits(payout.payB, slippage.bps),
        }
      : null;
  const tooMany = held !== null && units?.gt(held) === true;
  const problem = !slippage.ok
    ? slippage.message
    : tooMany
      ? `Your position holds ${formatAmount(position.units)} units.`
      : payout === null
        ? 'Choose a share or enter units to remove.'
        : null;
  const body =
    problem !== null || minimum === null
      ? null
      : {
          poolId: pool.poolId,
          ...(shareBps !== null ? { shareBps } : { units: unitsText.trim() }),
          minimumA: minimum.a.toString(),
          minimumB: minimum.b.toString(),
        };
  const chooseShare = (bps: number) => {
    setShareBps(bps);
    setUnitsText('');
  };
  const typeUnits = (text: string) => {
    setUnitsText(text);
    setShareBps(null);
  };
  return {
    shareBps,
    chooseShare,
    unitsText,
    typeUnits,
    slippageText,
    setSlippageText,
    slippage,
    payout,
    minimum,
    problem,
    body,
  };
}

function ShareChoice(props: { form: RemoveForm }) {
  const { form } = props;
  return (
    <fieldset class="period-picker">
      <legend>Share of your position</legend>
      {SHARES.map((bps) => (
        <label class="period-option" key={bps}>
          <input
            type="radio"
            name="remove-share"
            checked={form.shareBps === bps}
            onChange={() => form.chooseShare(bps)}
          />
          {bps / 100} %
        </label>
      ))}
    </fieldset>
  );
}

function RemoveFields(props: { form: RemoveForm }) {
  const { form } = props;
  const unitsId = useId();
  const slippageId = useId();
  return (
    <div class="row">
      <div>
        <label for={unitsId}>Or units</label>
        <input
          id={unitsId}
          inputMode="decimal"
          autocomplete="off"
          value={form.unitsText}
          onInput={(event) => form.typeUnits(event.currentTarget.value)}
        />
      </div>
      <div>
        <label for={slippageId}>Slippage tolerance (%)</label>
        <input
          id={slippageId}
          inputMode="decimal"
          value={form.slippageText}
          onInput={(event) => form.setSlippageText(event.currentTarget.value)}
        />
      </div>
    </div>
  );
}
