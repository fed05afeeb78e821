/**
 * Adding liquidity: type one side and the other follows the pool's ratio (an empty pool needs
 * both: they set its price), see the units expected, the share of the pool after and the fewest
 * units accepted at the slippage set, then "Add liquidity" creates the intent; the caller follows
 * it and has the wallet send both deposits.
 */
import type { Side } from '@poolparty/core';
import type { Pool } from '@poolparty/sdk';
import { useId } from 'preact/hooks';
import { parseAmount } from '../decimal.js';
import { formatAmount, formatPercent } from '../format.js';
import { type AddForm, useAddForm } from './add-liquidity-model.js';
import { addBlocker, type Balances, useBalances } from './liquidity-funds.js';
import { useLiquiditySubmission } from './liquidity-submission.js';
import type { Liquidity, LiquidityIntent } from './party-liquidity.js';

export function AddLiquidityForm(props: {
  pool: Pool;
  client: Liquidity;
  /** The party's units of this pool now, for its share after. */
  heldUnits: string | null;
  /** Changes when the party's balances may have changed. */
  balancesVersion: number;
  onCreated(intent: LiquidityIntent): void;
}) {
  const { pool } = props;
  const form = useAddForm(pool, parseAmount(props.heldUnits ?? '0') ?? undefined);
  const balances = useBalances(pool, props.balancesVersion);
  const blocker = addBlocker(pool, form, balances);
  const { busy, error, submit } = useLiquiditySubmission(
    () => props.client.create(form.body()),
    props.onCreated,
  );
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        if (blocker === null) submit();
      }}
    >
      {form.empty && (
        <p class="notice card">
          This pool has no liquidity yet: enter both amounts. Their ratio sets the pool's price.
        </p>
      )}
      <div class="row">
        <SideField side="a" pool={pool} form={form} balances={balances} />
        <SideField side="b" pool={pool} form={form} balances={balances} />
      </div>
      <SlippageInput form={form} />
      <MintPreviewList pool={pool} form={form} />
      <button type="submit" class="primary" disabled={blocker !== null || busy}>
        {busy ? 'Creating…' : 'Add liquidity'}
      </button>
      {blocker && (
        <p class="hint" data-testid="add-blocker">
          {blocker}
        </p>
      )}
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
    </form>
  );
}

function SideField(props: { side: Side; pool: Pool; form: AddForm; balances: Balances }) {
  const { side, pool, form, balances } = props;
  const id = useId();
  const token = side === 'a' ? pool.tokenA : pool.tokenB;
  const balance = balances?.[side];
  return (
    <div>
      <label for={id}>{token.name}</label>
      <input
        id={id}
        inputMode="decimal"
        autocomplete="off"
        value={form.texts[side]}
        onInput={(event) => form.type(side, event.currentTarget.value)}
        aria-describedby={`${id}-balance`}
      />
      <p class="hint" id={`${id}-balance`} data-testid={`lp-balance-${side}`}>
        {balance === undefined ? '\u00a0' : `Balance: ${formatAmount(balance)} ${token.name}`}
      </p>
    </div>
  );
}

function SlippageInput(props: { form: AddForm }) {
  const { form } = props;
  const id = useId();
  return (
    <div>
      <label for={id}>Slippage tolerance (%)</label>
      <input
        id={id}
        inputMode="decimal"
        value={form.slippageText}
        onInput={(event) => form.setSlippageText(event.currentTarget.value)}
        aria-describedby={`${id}-hint`}
      />
      <p class="hint" id={`${id}-hint`}>
        {form.slippage.ok
          ? 'Fewer units than this allows at completion and both sides come back to you.'
          : form.slippage.message}
      </p>
    </div>
  );
}

function MintPreviewList(props: { pool: Pool; form: AddForm }) {
  const { preview, minimum } = props.form;
  if (preview === null) return null;
  return (
    <dl class="breakdown" data-testid="mint-preview">
      <dt>Units you receive (expected)</dt>
      <dd data-testid="expected-units">{formatAmount(preview.units.toString())}</dd>
      <dt>At least</dt>
      <dd>{minimum ? formatAmount(minimum.toString()) : '—'}</dd>
      <dt>Your share of the pool after</dt>
      <dd data-testid="share-after">{formatPercent(preview.shareAfter, 4)}</dd>
    </dl>
  );
}
