/**
 * The party's swaps still waiting for their deposit (`track` with status `pending`), each with
 * Cancel: a waiting swap blocks the next one of the same pool and input token until it expires,
 * so the page lets the user end it rather than wait a day.
 */
import type { SwapStatus } from '@poolparty/sdk';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { describeError } from '../describe-error.js';
import { formatAmount, formatTime } from '../format.js';
import { useServices } from '../services.js';

/** The connected party's waiting swaps; `reload` reads them again. */
export function useWaitingSwaps(partyId: string | null) {
  const { pp } = useServices();
  const [swaps, setSwaps] = useState<readonly SwapStatus[]>([]);
  const reload = useCallback(async () => {
    if (pp === null || partyId === null) {
      setSwaps([]);
      return;
    }
    try {
      const page = await pp.track(partyId, { kind: 'deposit', status: 'pending', limit: 10 });
      setSwaps(page.swaps);
    } catch {
      // The list is a convenience: the swap form still works without it.
      setSwaps([]);
    }
  }, [pp, partyId]);
  useEffect(() => {
    void reload();
  }, [reload]);
  return { swaps, reload };
}

export function WaitingSwaps(props: { swaps: readonly SwapStatus[]; onCancelled: () => void }) {
  if (props.swaps.length === 0) return null;
  return (
    <section class="card notice" aria-labelledby="waiting-heading" data-testid="waiting-swaps">
      <h2 id="waiting-heading">Waiting for your deposit</h2>
      <p class="hint">
        A swap waiting for its deposit blocks the next swap of the same token in the same pool.
        Cancel it if you no longer mean to send the deposit.
      </p>
      <ul class="plain-list">
        {props.swaps.map((swap) => (
          <WaitingSwap key={swap.intentId} swap={swap} onCancelled={props.onCancelled} />
        ))}
      </ul>
    </section>
  );
}

function WaitingSwap(props: { swap: SwapStatus; onCancelled: () => void }) {
  const { swap } = props;
  const { busy, error, cancel } = useCancel(swap.intentId, props.onCancelled);
  return (
    <li data-intent={swap.intentId}>
      <a href={`/swaps/${encodeURIComponent(swap.intentId)}`}>
        {formatAmount(swap.expectedAmount)} {swap.inputToken} → {swap.outputToken}
      </a>{' '}
      <span class="muted">until {formatTime(swap.expiresAt)}</span>{' '}
      <button type="button" onClick={cancel} disabled={busy}>
        {busy ? 'Cancelling…' : 'Cancel this swap'}
      </button>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
    </li>
  );
}

/** Cancelling one pending intent with the connected wallet's token. */
function useCancel(intentId: string, onCancelled: () => void) {
  const { pp } = useServices();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const cancel = async () => {
    if (pp === null) return;
    setBusy(true);
    setError(null);
    try {
      await pp.swaps.cancel(intentId);
      onCancelled();
    } catch (caught) {
      setError(describeError(caught));
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, cancel };
}
