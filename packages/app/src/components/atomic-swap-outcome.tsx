/**
 * Where an atomic swap is, as the swap card's result and the swap's progress page show it
 * (atomic-swap-model.ts words it): its state, what moved — both legs and the ledger update they
 * settled in, and the excess the LPs keep — or that nothing moved, and why.
 */
import { type AtomicSwapShown, atomicOutcome } from '../atomic-swap-model.js';
import { formatAmount, LEDGER_DECIMALS } from '../format.js';

export function AtomicSwapOutcome(props: { swap: AtomicSwapShown }) {
  const { swap } = props;
  const outcome = atomicOutcome(swap);
  const { input, output } = swap;
  return (
    <div data-testid="atomic-outcome" data-state={swap.status}>
      <h3 aria-live="polite">{outcome.title}</h3>
      <p>{outcome.detail}</p>
      {swap.status === 'completed' && (
        <p data-testid="atomic-moved">
          You sent exactly {formatAmount(input.amount, LEDGER_DECIMALS)} {input.token} and received{' '}
          {formatAmount(output.amount, LEDGER_DECIMALS)} {output.token}.
        </p>
      )}
      {swap.updateId !== null && (
        <p>
          Ledger update{' '}
          <span class="party" data-testid="atomic-update">
            {swap.updateId}
          </span>
        </p>
      )}
      {outcome.excess !== null && (
        <p class="hint" data-testid="atomic-excess">
          {outcome.excess}
        </p>
      )}
    </div>
  );
}
