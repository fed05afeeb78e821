/**
 * The connected party's swaps, newest first (`track`), each linking to its page: a deposit-flow
 * swap's progress, or an atomic swap's (`/swaps/atm_…`, the same path).
 */
import type { AnySwapStatus } from '@poolparty/sdk';
import { useEffect, useState } from 'preact/hooks';
import { describeError } from '../describe-error.js';
import { formatAmount, formatTime, LEDGER_DECIMALS } from '../format.js';
import { useServices } from '../services.js';
import { listedStateTitle } from '../swap-state-titles.js';

const HISTORY_PAGE = 10;

export function SwapHistory(props: { partyId: string; refreshKey?: string }) {
  const { pp } = useServices();
  const [swaps, setSwaps] = useState<AnySwapStatus[] | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    if (pp === null) return;
    let live = true;
    (async () => {
      try {
        const page = await pp.track(props.partyId, { limit: HISTORY_PAGE });
        if (live) setSwaps(page.swaps);
      } catch (caught) {
        if (live) setError(describeError(caught));
      }
    })();
    return () => {
      live = false;
    };
  }, [pp, props.partyId, props.refreshKey]);

  return (
    <section class="card" aria-labelledby="history-heading">
      <h2 id="history-heading">Your swaps</h2>
      {error && (
        <p role="alert" class="error">
          Could not load your swaps: {error}
        </p>
      )}
      {swaps === null && !error && <p role="status">Loading your swaps…</p>}
      {swaps !== null && swaps.length === 0 && <p>No swaps yet.</p>}
      {swaps !== null && swaps.length > 0 && (
        <ul class="history" data-testid="history">
          {swaps.map((swap) => (
            <li key={swap.intentId} data-kind={swap.kind}>
              <a href={`/swaps/${encodeURIComponent(swap.intentId)}`}>
                {formatAmount(swap.expectedAmount)} {swap.inputToken} → {swap.outputToken}
                {swap.kind === 'atomic' && ' (atomic)'}
              </a>{' '}
              <span data-state={swap.status}>{listedStateTitle(swap)}</span>
              {swap.status === 'completed' && swap.actualOutput !== null && (
                <span>
                  {' '}
                  {/* Every decimal the ledger keeps, as the swap's result says what it received. */}
                  · received {formatAmount(swap.actualOutput, LEDGER_DECIMALS)} {swap.outputToken}
                </span>
              )}
              <span class="muted"> · {formatTime(swap.createdAt)}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
