/**
 * `/swaps/{atomicSwapId}`: an atomic swap (`atm_…`), where a toast or a list links it. Its
 * trader's wallet reads it (`GET /v1/atomic-swaps/{id}` answers the trader alone) and sees both
 * legs and where it is, read again every few seconds until it ends; anyone else is told whose it
 * is to read. A chunk of its own, with the SDK's atomic entry.
 */
import { type AtomicSwap, withAtomicSwaps } from '@poolparty/sdk/atomic';
import { useEffect, useState } from 'preact/hooks';
import { AtomicSwapOutcome } from '../components/atomic-swap-outcome.js';
import { describeError, errorCode } from '../describe-error.js';
import { formatAmount } from '../format.js';
import { useServices } from '../services.js';
import { SwapAgain } from './swap-status-view.js';

/** How often an atomic swap still under way is read again. */
const REFRESH_MS = 2_000;
/** Reads at most: a swap ends within its signing window (ten minutes at most). */
const READS_MAX = 300;

export function AtomicSwapProgress(props: { atomicSwapId: string }) {
  const { wallet, walletRestoring } = useServices();
  const { swap, error } = useAtomicSwapRead(props.atomicSwapId);
  if (!walletRestoring && wallet === null) {
    return (
      <p class="hint" data-testid="read-only-note">
        An atomic swap is its trader's to read: connect the wallet that made it.
      </p>
    );
  }
  if (error !== null) {
    return (
      <p role="alert" class="error">
        {error}
      </p>
    );
  }
  if (swap === null) return <p role="status">Loading the swap…</p>;
  const { input, output } = swap;
  return (
    <section class="card" aria-labelledby="atomic-status-heading" data-testid="atomic-status">
      <h2 id="atomic-status-heading">Atomic swap</h2>
      <p>
        {formatAmount(input.amount, 10)} {input.token} → {formatAmount(output.amount, 10)}{' '}
        {output.token}, both legs in one transaction you sign.
      </p>
      <AtomicSwapOutcome swap={swap} />
      {swap.status !== 'prepared' && swap.status !== 'executing' && (
        <SwapAgain
          status={{
            inputToken: input.token,
            inputTokenAdmin: input.tokenAdmin,
            outputToken: output.token,
            outputTokenAdmin: output.tokenAdmin,
            expectedAmount: input.amount,
          }}
        />
      )}
    </section>
  );
}

/** The swap as the connected wallet reads it, again until it ends. */
function useAtomicSwapRead(atomicSwapId: string) {
  const { pp, wallet } = useServices();
  const [swap, setSwap] = useState<AtomicSwap | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (pp === null || wallet?.partyId == null) return;
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const swaps = withAtomicSwaps(pp).atomicSwaps;
    const read = async (reads: number) => {
      try {
        const { data } = await swaps.get(atomicSwapId);
        if (!live) return;
        setSwap(data);
        const underWay = data.status === 'prepared' || data.status === 'executing';
        if (underWay && reads < READS_MAX) timer = setTimeout(() => read(reads + 1), REFRESH_MS);
      } catch (caught) {
        if (!live) return;
        setError(
          errorCode(caught) === 'not_found'
            ? 'The connected wallet has no atomic swap with this id.'
            : describeError(caught),
        );
      }
    };
    void read(1);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [pp, wallet?.partyId, atomicSwapId]);
  return { swap, error };
}
