/**
 * `/swaps/{atomicSwapId}`: an atomic swap (`atm_…`), where a toast or the party's swaps link it.
 * Anyone with the id sees both legs and where the swap is, from its progress
 * (`GET /v1/swaps/{id}/progress`), read again every few seconds until it ends, as a deposit-flow
 * swap's page shows it read-only. A chunk of its own.
 */
import { shownOfProgress } from '../atomic-swap-model.js';
import { AtomicSwapOutcome } from '../components/atomic-swap-outcome.js';
import { formatAmount } from '../format.js';
import { useProgressRead } from './progress-read.js';
import { SwapAgain } from './swap-status-view.js';

export function AtomicSwapProgress(props: { atomicSwapId: string }) {
  const { progress, error } = useProgressRead(props.atomicSwapId, (reads, id) =>
    reads.atomicSwapProgress(id),
  );
  if (error !== null) {
    return (
      <p role="alert" class="error">
        {error}
      </p>
    );
  }
  if (progress === null) return <p role="status">Loading the swap…</p>;
  return (
    <section class="card" aria-labelledby="atomic-status-heading" data-testid="atomic-status">
      <h2 id="atomic-status-heading">Atomic swap</h2>
      <p>
        {formatAmount(progress.expectedAmount, 10)} {progress.inputToken} →{' '}
        {formatAmount(progress.minOutput, 10)} {progress.outputToken}, both legs in one transaction
        its trader signs.
      </p>
      <AtomicSwapOutcome swap={shownOfProgress(progress)} />
      {progress.terminal && <SwapAgain status={progress} />}
    </section>
  );
}
