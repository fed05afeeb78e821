/**
 * A liquidity intent followed to its end through its event stream (polling only when the stream
 * is unavailable), each step drawn as reached or not, the deposits sent by the
 * connected wallet (at once for an intent just created on this page, else on "Send the
 * deposits"), Cancel while nothing has arrived, and the outcome in words.
 */
import {
  LIQUIDITY_STATES,
  type LiquidityEventName,
  type LiquidityIntentObject,
} from '@poolparty/sdk/liquidity';
import { useEffect, useRef, useState } from 'preact/hooks';
import { formatAmount } from '../format.js';
import { useServices } from '../services.js';
import { depositOf, isEnded, isGood, missingSides, stepsOf } from './intent-progress-model.js';
import { describeLiquidityError } from './liquidity-errors.js';
import type { Liquidity, LiquidityIntent } from './party-liquidity.js';

export function IntentProgress(props: {
  client: Liquidity;
  intent: LiquidityIntent;
  /** Send the deposits at once: the intent was just created here. */
  sendNow: boolean;
  onEnded(intent: LiquidityIntent): void;
  onDismiss(): void;
}) {
  const intent = useFollowedIntent(props.client, props.intent, props.onEnded);
  const deposits = useDeposits(props.client, intent.current, intent.replace, props.sendNow);
  const { current } = intent;
  return (
    <div data-testid="liquidity-intent" data-state={current.status}>
      <h4 aria-live="polite">{headlineOf(current)}</h4>
      <p>
        {formatAmount(current.expected.a)} {current.tokenA} and {formatAmount(current.expected.b)}{' '}
        {current.tokenB} for about {formatAmount(current.expectedUnits)} units (at least{' '}
        {formatAmount(current.minimumUnits)}).
      </p>
      <ol class="states">
        {stepsOf(current.status).map((step) => (
          <li
            key={step.status}
            data-reached={String(step.reached)}
            data-current={String(step.current)}
            {...(step.current && isEnded(step.status)
              ? { 'data-outcome': isGood(step.status) ? 'good' : 'bad' }
              : {})}
          >
            {step.label}
          </li>
        ))}
      </ol>
      <IntentOutcome intent={current} />
      <IntentActions intent={current} deposits={deposits} />
      {intent.polling && !isEnded(current.status) && (
        <p role="status" class="hint" data-testid="liquidity-polling">
          Live updates are unavailable: checking the intent every few seconds.
        </p>
      )}
      {intent.error && (
        <p role="alert" class="error">
          {intent.error}
        </p>
      )}
      {isEnded(current.status) && (
        <button type="button" onClick={props.onDismiss}>
          {isGood(current.status) ? 'Add more liquidity' : 'Try again'}
        </button>
      )}
    </div>
  );
}

function headlineOf(intent: LiquidityIntent): string {
  if (intent.status === 'completed') return 'Liquidity added';
  if (isEnded(intent.status)) return 'Liquidity not added';
  return 'Adding liquidity…';
}

function IntentOutcome(props: { intent: LiquidityIntent }) {
  const { intent } = props;
  if (intent.minted) {
    const { units, returned } = intent.minted;
    const excess = [
      returned.a !== '0' && `${formatAmount(returned.a)} ${intent.tokenA}`,
      returned.b !== '0' && `${formatAmount(returned.b)} ${intent.tokenB}`,
    ].filter(Boolean);
    return (
      <p class="success" data-testid="minted-units">
        {formatAmount(units)} units credited.
        {excess.length > 0 && ` The excess (${excess.join(' and ')}) was returned to you.`}
      </p>
    );
  }
  if (intent.failure) return <p class="error">{intent.failure.message}</p>;
  return null;
}

function IntentActions(props: {
  intent: LiquidityIntent;
  deposits: ReturnType<typeof useDeposits>;
}) {
  const { intent, deposits } = props;
  const { wallet } = useServices();
  const missing = missingSides(intent);
  const disabled = deposits.busy !== null || wallet === null;
  return (
    <>
      {missing.length > 0 && deposits.busy === null && (
        <p class="actions">
          <button type="button" class="primary" disabled={disabled} onClick={deposits.sendMissing}>
            Send the deposit{missing.length > 1 ? 's' : ''}
          </button>
          {intent.status === 'pending' && (
            <button type="button" disabled={disabled} onClick={deposits.cancel}>
              Cancel
            </button>
          )}
        </p>
      )}
      {deposits.busy && (
        <p role="status" data-testid="liquidity-busy">
          {deposits.busy}
        </p>
      )}
      {deposits.error && (
        <p role="alert" class="error">
          {deposits.error}
        </p>
      )}
    </>
  );
}

/**
 * The intent as last seen, followed until it ends through the SDK's intent object: its event
 * stream (`GET /v1/liquidity/intents/{id}/events`), reconnecting with `Last-Event-ID` when it
 * drops, and reading the intent every few seconds only when the stream is unavailable
 * (`polling` then, which the page says).
 */
function useFollowedIntent(
  client: Liquidity,
  first: LiquidityIntent,
  onEnded: (intent: LiquidityIntent) => void,
) {
  const [current, setCurrent] = useState(first);
  const [error, setError] = useState<string | null>(null);
  const [polling, setPolling] = useState(false);
  const ended = isEnded(current.status);
  const id = current.liquidityIntentId;
  useEffect(() => {
    if (ended) {
      onEnded(current);
      return;
    }
    let live = true;
    let followed: LiquidityIntentObject | null = null;
    const seen = (next: LiquidityIntent) => {
      if (!live) return;
      setCurrent(next);
      setError(null);
      setPolling(followed?.followedBy === 'poll');
    };
    const failed = (caught: unknown) =>
      live && setError(`Could not follow the intent: ${describeLiquidityError(caught)}`);
    client.get(id).then((object) => {
      if (!live) return;
      followed = object;
      seen(object);
      for (const event of FOLLOWED_EVENTS) object.on(event, seen);
      object.on('error', failed);
    }, failed);
    return () => {
      live = false;
      for (const event of FOLLOWED_EVENTS) followed?.off(event, seen);
      followed?.off('error', failed);
    };
  }, [client, id, ended]);
  return { current, error, polling, replace: setCurrent };
}

/** Every state an intent moves to after `pending`: each one is drawn as it arrives. */
const FOLLOWED_EVENTS = LIQUIDITY_STATES.filter(
  (state): state is LiquidityEventName => state !== 'pending',
);

/** Sending the missing deposits through the connected wallet, and cancelling. */
function useDeposits(
  client: Liquidity,
  intent: LiquidityIntent,
  replace: (intent: LiquidityIntent) => void,
  sendNow: boolean,
) {
  const { wallet } = useServices();
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const sent = useRef(false);

  const act = async (doing: string, work: () => Promise<void>) => {
    setBusy(doing);
    setError(null);
    try {
      await work();
      replace(await client.get(intent.liquidityIntentId));
    } catch (caught) {
      setError(describeLiquidityError(caught));
    } finally {
      setBusy(null);
    }
  };
  const sendMissing = () =>
    act('Sending your deposits: confirm in your wallet if it asks…', async () => {
      for (const side of missingSides(intent)) await wallet?.sendDeposit(depositOf(intent, side));
    });
  const cancel = () =>
    act('Cancelling…', async () => {
      // The SDK cancels through the intent's object, which a read of the intent gives.
      const found = await client.get(intent.liquidityIntentId);
      replace(await found.cancel());
    });

  useEffect(() => {
    if (!sendNow || sent.current || wallet === null) return;
    sent.current = true;
    void sendMissing();
  }, [sendNow, wallet]);

  return { busy, error, sendMissing, cancel };
}
