/**
 * One swap's status on its progress page (swap-progress.tsx): the outcome so far, the action the
 * user must take (send the deposit or cancel, accept an offer), every lifecycle state reached or
 * not, why a refund or failure happened and what came back, and "Swap again" at the end. Read-only
 * (no actions) for a visitor without the swap's wallet.
 */
import type { SwapProgress } from '@poolparty/core';
import type { SwapStatus } from '@poolparty/sdk';
import { useEffect, useState } from 'preact/hooks';
import { depositRefusal } from '../deposit-check.js';
import { takeDepositRequest } from '../deposit-request.js';
import { describeError } from '../describe-error.js';
import { formatAmount, formatTime } from '../format.js';
import { useServices } from '../services.js';
import {
  type RequiredAction,
  requiredAction,
  stateText,
  timelineOf,
} from '../swap-progress-model.js';

/** What the view draws: a swap's status, or the read-only progress anyone with its id sees. */
type ShownStatus = SwapStatus | SwapProgress;

type StatusViewProps =
  | {
      status: SwapStatus;
      readOnly?: false;
      refresh: () => Promise<SwapStatus>;
      onRefreshed: (status: SwapStatus) => void;
    }
  | { status: SwapProgress; readOnly: true };

type OfferAction = Extract<RequiredAction, { kind: 'accept' }>;

export function SwapStatusView(props: StatusViewProps) {
  const { status } = props;
  const outcome = stateText(status.status);
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
      <SwapAmounts status={status} />
      {!props.readOnly && <StatusActions {...props} />}
      <Timeline status={status} />
      <LegOutcomes status={status} />
      {status.terminal && <SwapAgain status={status} />}
    </section>
  );
}

/** What the swap's own wallet can do now: send the deposit or cancel, accept an offer. */
function StatusActions(props: Extract<StatusViewProps, { readOnly?: false }>) {
  const { status } = props;
  const { wallet, action, busy, actionError, act } = useStatusActions(props);
  const { pp } = useServices();
  const disabled = busy !== null || wallet === null;
  return (
    <>
      {action?.kind === 'deposit' && (
        <DepositDue
          status={status}
          disabled={disabled}
          onSend={() =>
            act('Checking the price, then sending your deposit…', async () => {
              await refuseBelowMinimum(pp, status);
              await wallet?.sendDeposit(status);
            })
          }
          onCancel={() =>
            act('Cancelling the swap…', async () => {
              await pp?.swaps.cancel(status.intentId);
            })
          }
        />
      )}
      {action?.kind === 'accept' && (
        <OfferToAccept
          action={action}
          disabled={disabled}
          onAccept={() =>
            act('Accepting the offer…', async () =>
              wallet?.acceptOffer(action.offerId, action.tokenAdmin),
            )
          }
        />
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
    </>
  );
}

/**
 * Quotes the waiting swap again and throws, sending nothing, when its output now would be under
 * the intent's minimum (deposit-check.ts). A quote that cannot be had does not block: the
 * service's own slippage check still refunds such a deposit.
 */
async function refuseBelowMinimum(pp: ReturnType<typeof useServices>['pp'], status: ShownStatus) {
  if (pp === null) return;
  const quote = await pp.quotes
    .get({
      from: status.inputToken,
      to: status.outputToken,
      amount: status.expectedAmount,
      poolId: status.poolId,
      fromAdmin: status.inputTokenAdmin,
      toAdmin: status.outputTokenAdmin,
    })
    .catch(() => null);
  const refusal = quote === null ? null : depositRefusal(status, quote.outputAmount);
  if (refusal !== null) throw new Error(refusal);
}

/**
 * The action the status asks of the user, and running it: `busy` says what is under way, and the
 * status is read again after. A swap just created on the swap page has its deposit sent at once.
 */
function useStatusActions(props: Extract<StatusViewProps, { readOnly?: false }>) {
  const { status } = props;
  const { wallet } = useServices();
  const [busy, setBusy] = useState<string | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);
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

  return { wallet, action, busy, actionError, act };
}

/** At the end, the same swap again: the swap page opens with its pair (so its pool) and amount. */
/** "Swap again": the swap page with the same pair and amount (an atomic swap's too). */
export function SwapAgain(props: {
  status: Pick<
    ShownStatus,
    'inputToken' | 'inputTokenAdmin' | 'outputToken' | 'outputTokenAdmin' | 'expectedAmount'
  >;
}) {
  const { status } = props;
  const query = new URLSearchParams({
    from: `${status.inputToken}|${status.inputTokenAdmin}`,
    to: `${status.outputToken}|${status.outputTokenAdmin}`,
    amount: status.expectedAmount,
  });
  return (
    <p class="actions">
      <a class="button primary" href={`/swap?${query.toString()}`} data-testid="swap-again">
        Swap again
      </a>
    </p>
  );
}

function SwapAmounts(props: { status: ShownStatus }) {
  const { status } = props;
  return (
    <p>
      {formatAmount(status.expectedAmount, 10)} {status.inputToken} →{' '}
      {status.actualOutput !== null
        ? `${formatAmount(status.actualOutput, 10)} ${status.outputToken}`
        : `about ${formatAmount(status.expectedOutput, 10)} ${status.outputToken} (at least ${formatAmount(status.minOutput, 10)})`}
    </p>
  );
}

function DepositDue(props: {
  status: SwapStatus;
  disabled: boolean;
  onSend: () => void;
  onCancel: () => void;
}) {
  const { status } = props;
  return (
    <div class="card">
      <p>
        Send exactly {status.expectedAmount} {status.inputToken} to the pool before{' '}
        {formatTime(status.expiresAt)}. If you no longer mean to, cancel the swap: nothing was taken
        yet.
      </p>
      <p class="actions">
        <button type="button" class="primary" disabled={props.disabled} onClick={props.onSend}>
          Send the deposit
        </button>
        <button type="button" disabled={props.disabled} onClick={props.onCancel}>
          Cancel this swap
        </button>
      </p>
    </div>
  );
}

function OfferToAccept(props: { action: OfferAction; disabled: boolean; onAccept: () => void }) {
  const { action } = props;
  return (
    <section class="card" aria-labelledby="offer-heading" data-testid="offer">
      <h3 id="offer-heading">
        {action.leg === 'payout' ? 'Your payout is waiting' : 'Your refund is waiting'}
      </h3>
      <p>
        Your party does not accept transfers automatically, so the{' '}
        {action.leg === 'payout' ? 'output' : 'refund'} of {formatAmount(action.amount, 10)}{' '}
        {action.token} was offered to you. Accept it
        {action.expiresAt ? ` before ${formatTime(action.expiresAt)}` : ''}; unanswered, the offer
        lapses{action.leg === 'payout' ? ' and the swap is reversed' : ''}.
      </p>
      <button type="button" class="primary" disabled={props.disabled} onClick={props.onAccept}>
        Accept {formatAmount(action.amount, 10)} {action.token}
      </button>
    </section>
  );
}

function Timeline(props: { status: ShownStatus }) {
  return (
    <ol class="states" aria-label="Progress">
      {timelineOf(props.status).map((step) => (
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
  );
}

/** Why the swap failed, and the refund and payout with where each stands. */
function LegOutcomes(props: { status: ShownStatus }) {
  const { status } = props;
  return (
    <>
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
    </>
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
