/**
 * `/swaps/{intentId}`: one swap followed to its end from its event stream (the SDK's swap object,
 * rebuilt by `swaps.get` so a reload resumes). Every lifecycle state is drawn as reached or not,
 * with what it means; an offer the user must accept has its Accept button; a refund or failure
 * says why and what came back.
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
import { takeDepositRequest } from '../deposit-request.js';
import { describeError } from '../describe-error.js';
import { formatAmount, formatTime } from '../format.js';
import { useServices } from '../services.js';
import { requiredAction, stateText, timelineOf } from '../swap-progress-model.js';

export function SwapProgressPage(props: { intentId?: string; params?: { intentId?: string } }) {
  const intentId = props.params?.intentId ?? props.intentId ?? '';
  const { pp, wallet, walletRestoring } = useServices();
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

function SwapStatusView(props: {
  status: SwapStatus;
  refresh: () => Promise<SwapStatus>;
  onRefreshed: (status: SwapStatus) => void;
}) {
  const { status } = props;
  const { wallet } = useServices();
  const [busy, setBusy] = useState<string | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);
  const outcome = stateText(status.status);
  const action = requiredAction(status);

  const act = async (doing: string, work: () => Promise<void>) => {
    setBusy(doing);
    setActionError(null);
    try {
      await work();
      props.onRefreshed(await props.refresh());
    } catch (caught) {
      setActionError(describeError(caught));
    } finally {
      setBusy(null);
    }
  };

  // A swap just created on the swap page: send its deposit now, once.
  const depositDue = action?.kind === 'deposit' && wallet?.partyId === status.outputAddress;
  useEffect(() => {
    if (!depositDue || wallet === null || !takeDepositRequest(status.intentId)) return;
    void act('Sending your deposit: confirm in your wallet if it asks…', () =>
      wallet.sendDeposit(status),
    );
  }, [depositDue, wallet, status.intentId]);

  return (
    <section
      class="card"
      aria-labelledby="status-heading"
      data-testid="swap-status"
      data-state={status.status}
    >
      <h2 id="status-heading" aria-live="polite">
        {outcome.title}
      </h2>
      <p>
        {formatAmount(status.expectedAmount, 10)} {status.inputToken} →{' '}
        {status.actualOutput !== null
          ? `${formatAmount(status.actualOutput, 10)} ${status.outputToken}`
          : `about ${formatAmount(status.expectedOutput, 10)} ${status.outputToken} (at least ${formatAmount(status.minOutput, 10)})`}
      </p>
      {action?.kind === 'deposit' && (
        <div class="card">
          <p>
            Send exactly {status.expectedAmount} {status.inputToken} to the pool before{' '}
            {formatTime(status.expiresAt)}.
          </p>
          <button
            type="button"
            class="primary"
            disabled={busy !== null || wallet === null}
            onClick={() => act('Sending your deposit…', async () => wallet?.sendDeposit(status))}
          >
            Send the deposit
          </button>
        </div>
      )}
      {action?.kind === 'accept' && (
        <section class="card" aria-labelledby="offer-heading" data-testid="offer">
          <h3 id="offer-heading">
            {action.leg === 'payout' ? 'Your payout is waiting' : 'Your refund is waiting'}
          </h3>
          <p>
            Your party does not accept transfers automatically, so the{' '}
            {action.leg === 'payout' ? 'output' : 'refund'} of {formatAmount(action.amount, 10)}{' '}
            {action.token} was offered to you. Accept it
            {action.expiresAt ? ` before ${formatTime(action.expiresAt)}` : ''}; unanswered, the
            offer lapses{action.leg === 'payout' ? ' and the swap is reversed' : ''}.
          </p>
          <button
            type="button"
            class="primary"
            disabled={busy !== null || wallet === null}
            onClick={() =>
              act('Accepting the offer…', async () =>
                wallet?.acceptOffer(action.offerId, action.tokenAdmin),
              )
            }
          >
            Accept {formatAmount(action.amount, 10)} {action.token}
          </button>
        </section>
      )}
      {busy && (
        <p role="status" data-testid="action-busy">
          {busy}
        </p>
      )}
      {actionError && (
        <p role="alert" class="error">
          {actionError}
        </p>
      )}
      <ol class="states" aria-label="Progress">
        {timelineOf(status).map((step) => (
          <li
            key={step.state}
            data-state={step.state}
            data-reached={String(step.at !== null)}
            data-current={String(step.current)}
            data-outcome={step.current && step.text.tone !== 'neutral' ? step.text.tone : undefined}
            aria-current={step.current ? 'step' : undefined}
          >
            {step.text.title}
            {step.at && <span class="muted"> · {formatTime(step.at)}</span>}
            {step.current && <p class="hint">{step.text.detail}</p>}
          </li>
        ))}
      </ol>
      {status.failureReason && (
        <p data-testid="failure-reason">
          Why: {status.failureReason.message}{' '}
          <span class="muted">({status.failureReason.code})</span>
        </p>
      )}
      {status.refund && (
        <p data-testid="refund">
          Refund: {formatAmount(status.refund.amount, 10)} {status.inputToken} (
          {legStateText(status.refund.state)}; network fee kept{' '}
          {formatAmount(status.refund.networkFeeAmount, 10)} {status.inputToken})
        </p>
      )}
      {status.payout && (
        <p data-testid="payout">
          Payout: {formatAmount(status.payout.amount, 10)} {status.outputToken} (
          {legStateText(status.payout.state)})
        </p>
      )}
    </section>
  );
}

function legStateText(state: string): string {
  switch (state) {
    case 'offered':
      return 'offered, waiting for you to accept';
    case 'committed':
      return 'arrived in your party';
    case 'rejected':
      return 'rejected';
    case 'expired':
      return 'the offer expired unanswered';
    default:
      return state;
  }
}
