/**
 * `/swaps/{intentId}`: one swap followed to its end from its event stream (the SDK's swap object,
 * rebuilt by `swaps.get` so a reload resumes). Every lifecycle state is drawn as reached or not,
 * with what it means; an offer the user must accept has its Accept button; a refund or failure
 * says why and what came back (swap-status-view.tsx draws the status).
 */
import {
  LEG_EVENT_NAMES,
  NotFoundError,
  SWAP_EVENT_NAMES,
  type Swap,
  type SwapStatus,
  type SwapTerms,
} from '@poolparty/sdk';
import { useEffect, useState } from 'preact/hooks';
import { SwapHistory } from '../components/swap-history.js';
import { WalletPanel } from '../components/wallet-panel.js';
import { describeError } from '../describe-error.js';
import { useServices } from '../services.js';
import { SwapStatusView } from './swap-status-view.js';

export function SwapProgressPage(props: { intentId?: string; params?: { intentId?: string } }) {
  const intentId = props.params?.intentId ?? props.intentId ?? '';
  const { wallet, walletRestoring } = useServices();
  const { swap, status, setStatus, error, followError, balancesVersion } =
    useFollowedSwap(intentId);
  return (
    <>
      <h1>Swap progress</h1>
      <p class="hint">
        Swap <span class="party">{intentId}</span>. This page can be reloaded or bookmarked: it
        picks up where the swap is.
      </p>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <div class="grid">
        <div>
          {!wallet && !walletRestoring && (
            <p role="status">Connect the wallet that made this swap to follow it.</p>
          )}
          {wallet && !status && !error && <p role="status">Loading the swap…</p>}
          {status && swap && (
            <SwapStatusView
              status={status}
              onRefreshed={(next) => setStatus(next)}
              refresh={() => swap.refresh()}
            />
          )}
          {followError && (
            <p role="alert" class="error">
              Following the swap stopped: {followError}{' '}
              <button type="button" onClick={() => window.location.reload()}>
                Reload
              </button>
            </p>
          )}
        </div>
        <WalletPanel balancesVersion={balancesVersion} />
      </div>
      {wallet?.partyId && status && (
        <SwapHistory partyId={wallet.partyId} refreshKey={`${status.status}`} />
      )}
    </>
  );
}

/**
 * The swap object for this intent, rebuilt once a wallet can authenticate the reads, and its
 * status kept current from its events; `balancesVersion` counts the changes, for the balances.
 */
function useFollowedSwap(intentId: string) {
  const { pp, wallet } = useServices();
  const [swap, setSwap] = useState<Swap<SwapTerms> | null>(null);
  const [status, setStatus] = useState<SwapStatus | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [followError, setFollowError] = useState<string | null>(null);
  const [balancesVersion, setBalancesVersion] = useState(0);

  // Rebuild the swap object for this intent once a wallet can authenticate the reads.
  useEffect(() => {
    if (pp === null || wallet?.partyId == null) return;
    setError(null);
    setFollowError(null);
    setSwap(null);
    setStatus(null);
    let live = true;
    let current: Swap<SwapTerms> | null = null;
    const onChange = () => {
      if (!live || current === null) return;
      setStatus(current.latestStatus);
      setBalancesVersion((version) => version + 1);
    };
    const onError = (caught: unknown) => {
      if (live) setFollowError(describeError(caught));
    };
    (async () => {
      try {
        current = await pp.swaps.get(intentId);
        if (!live) return;
        setSwap(current);
        setStatus(current.latestStatus ?? (await current.refresh()));
        for (const name of [...SWAP_EVENT_NAMES, ...LEG_EVENT_NAMES]) current.on(name, onChange);
        current.on('error', onError);
      } catch (caught) {
        if (!live) return;
        // Another party's swap reads as not found: say which wallet can follow it.
        setError(
          caught instanceof NotFoundError
            ? `This swap is not one of ${wallet?.partyId}'s: connect the wallet that made it.`
            : describeError(caught),
        );
      }
    })();
    return () => {
      live = false;
      if (current === null) return;
      for (const name of [...SWAP_EVENT_NAMES, ...LEG_EVENT_NAMES]) current.off(name, onChange);
      current.off('error', onError);
    };
  }, [pp, wallet?.partyId, intentId]);

  return { swap, status, setStatus, error, followError, balancesVersion };
}
