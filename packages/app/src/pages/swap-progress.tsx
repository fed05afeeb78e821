/**
 * `/swaps/{intentId}`: one swap followed to its end from its event stream (the SDK's swap object,
 * rebuilt by `swaps.get` so a reload resumes). Every lifecycle state is drawn as reached or not,
 * with what it means; an offer the user must accept has its Accept button, a swap waiting for
 * its deposit its Cancel; a refund or failure says why and what came back (swap-status-view.tsx
 * draws the status). Without the swap's own wallet the page shows the same status read-only,
 * from the id alone (`GET /v1/swaps/{intentId}/progress`, read every few seconds). An atomic
 * swap's id (`atm_…`) opens its own view (atomic-swap-progress.tsx, loaded then).
 */

import type { SwapProgress } from '@poolparty/core';
import {
  LEG_EVENT_NAMES,
  NotFoundError,
  SWAP_EVENT_NAMES,
  type Swap,
  type SwapStatus,
  type SwapTerms,
} from '@poolparty/sdk';
import { useEffect, useState } from 'preact/hooks';
import { ErrorBoundary, lazy } from 'preact-iso';
import { SwapHistory } from '../components/swap-history.js';
import { WalletPanel } from '../components/wallet-panel.js';
import { describeError } from '../describe-error.js';
import { usePageTitle } from '../page-title.js';
import { useServices } from '../services.js';
import { useProgressRead } from './progress-read.js';
import { SwapStatusView } from './swap-status-view.js';

/** How an atomic swap's id begins (the service's `atm_` ids), told apart from an intent's. */
const ATOMIC_SWAP_ID_PREFIX = 'atm_';

const AtomicSwapProgress = lazy(() =>
  import('./atomic-swap-progress.js').then((m) => m.AtomicSwapProgress),
);

export function SwapProgressPage(props: { intentId?: string; params?: { intentId?: string } }) {
  const id = props.params?.intentId ?? props.intentId ?? '';
  usePageTitle(`Swap ${id.slice(0, 12)}`);
  return id.startsWith(ATOMIC_SWAP_ID_PREFIX) ? (
    <>
      <h1>Swap progress</h1>
      <div class="grid">
        <ErrorBoundary>
          <AtomicSwapProgress atomicSwapId={id} />
        </ErrorBoundary>
        <WalletPanel balancesVersion={0} />
      </div>
    </>
  ) : (
    <IntentProgress intentId={id} />
  );
}

function IntentProgress(props: { intentId: string }) {
  const { intentId } = props;
  const { wallet, walletRestoring } = useServices();
  const { swap, status, setStatus, error, notOwn, followError, balancesVersion } =
    useFollowedSwap(intentId);
  // Without the swap's own wallet, the page still shows where the swap is, read-only.
  const readOnly = !walletRestoring && (wallet === null || notOwn);
  const publicView = usePublicProgress(intentId, readOnly);
  return (
    <>
      <h1>Swap progress</h1>
      <p class="hint">
        Swap <span class="party">{intentId}</span>. This page can be reloaded, bookmarked or shared:
        it picks up where the swap is. <CopyLink />
      </p>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <div class="grid">
        <div>
          {!readOnly && !status && !error && <p role="status">Loading the swap…</p>}
          {!readOnly && status && swap && (
            <SwapStatusView
              status={status}
              onRefreshed={(next) => setStatus(next)}
              refresh={() => swap.refresh()}
            />
          )}
          {readOnly && <ReadOnlyProgress view={publicView} walletConnected={wallet !== null} />}
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

/** Copies this page's address: anyone with it sees the swap's progress read-only. */
function CopyLink() {
  const [said, setSaid] = useState<string | null>(null);
  const copy = () =>
    navigator.clipboard.writeText(window.location.href).then(
      () => setSaid('Link copied.'),
      () => setSaid('Could not copy: copy the address bar instead.'),
    );
  return (
    <>
      <button type="button" class="copy-link" onClick={() => void copy()}>
        Copy link
      </button>{' '}
      {said && (
        <span role="status" data-testid="copy-link-status">
          {said}
        </span>
      )}
    </>
  );
}

function ReadOnlyProgress(props: {
  view: ReturnType<typeof usePublicProgress>;
  walletConnected: boolean;
}) {
  const { progress, error } = props.view;
  return (
    <>
      <p class="hint" data-testid="read-only-note">
        {props.walletConnected
          ? 'The connected wallet did not make this swap: you see its progress, read-only.'
          : 'You see this swap read-only. Connect the wallet that made it to act on it.'}
      </p>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {!progress && !error && <p role="status">Loading the swap…</p>}
      {progress && <SwapStatusView status={progress} readOnly />}
    </>
  );
}

/** Any swap's progress by its id, read again every few seconds until it ends. */
function usePublicProgress(intentId: string, enabled: boolean) {
  return useProgressRead<SwapProgress>(intentId, (reads, id) => reads.swapProgress(id), enabled);
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
  const [notOwn, setNotOwn] = useState(false);
  const [balancesVersion, setBalancesVersion] = useState(0);

  // Rebuild the swap object for this intent once a wallet can authenticate the reads.
  useEffect(() => {
    if (pp === null || wallet?.partyId == null) return;
    setError(null);
    setNotOwn(false);
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
        // Another party's swap (or an unknown id) reads as not found: show it read-only.
        if (caught instanceof NotFoundError) setNotOwn(true);
        else setError(describeError(caught));
      }
    })();
    return () => {
      live = false;
      if (current === null) return;
      for (const name of [...SWAP_EVENT_NAMES, ...LEG_EVENT_NAMES]) current.off(name, onChange);
      current.off('error', onError);
    };
  }, [pp, wallet?.partyId, intentId]);

  return { swap, status, setStatus, error, notOwn, followError, balancesVersion };
}
