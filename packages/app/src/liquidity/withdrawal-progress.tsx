/**
 * A withdrawal followed until both payouts are paid, through its event stream (reading it every
 * few seconds only when the stream is unavailable, and saying so), each payout's state in words,
 * and Accept for a payout that arrived as an offer (a party without a pre-approval). The
 * withdrawal's id is kept in this browser until it ends (a reload finds it again), and the devnet
 * wallet finds the offer among its own by the payout's reason.
 */
import type { Pool } from '@poolparty/sdk';
import { WITHDRAWAL_EVENTS } from '@poolparty/sdk/liquidity';
import { useEffect, useState } from 'preact/hooks';
import { formatAmount } from '../format.js';
import { useServices } from '../services.js';
import { BrowserDevnetWallet } from '../wallets/devnet-wallet.js';
import { describeLiquidityError } from './liquidity-errors.js';
import type { Withdrawal, WithdrawalObject } from './party-liquidity.js';

type Payout = Withdrawal['payoutA'];

const PAYOUT_TEXT: Readonly<Record<Payout['state'], string>> = {
  pending: 'on its way',
  offered: 'offered to you: accept it',
  paid: 'paid',
  flagged: 'held back: an operator will pay it',
  none: 'nothing to pay',
};

export function WithdrawalProgress(props: {
  pool: Pool;
  /** The SDK's object of the withdrawal, as the burn or a read of it answered. */
  withdrawal: WithdrawalObject;
  onEnded(): void;
  onDismiss(): void;
}) {
  const { pool } = props;
  const { current, error, polling, reload } = useFollowedWithdrawal(props.withdrawal);
  const ended = current.status !== 'paying';
  useEffect(() => {
    if (ended) props.onEnded();
  }, [ended]);
  return (
    <div data-testid="withdrawal" data-state={current.status}>
      <h4 aria-live="polite">{headlineOf(current)}</h4>
      <p>{formatAmount(current.units)} units burned.</p>
      <ul class="plain-list">
        {(
          [
            ['a', current.payoutA, pool.tokenA],
            ['b', current.payoutB, pool.tokenB],
          ] as const
        ).map(([side, payout, token]) => (
          <li key={side} data-testid={`payout-${side}`} data-state={payout.state}>
            {formatAmount(payout.amount)} {token.name}: {PAYOUT_TEXT[payout.state]}
            {payout.state === 'offered' && (
              <AcceptPayout withdrawal={current} token={token} onAccepted={reload} />
            )}
          </li>
        ))}
      </ul>
      {polling && !ended && (
        <p role="status" class="hint" data-testid="withdrawal-polling">
          Live updates are unavailable: checking the withdrawal every few seconds.
        </p>
      )}
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {ended && (
        <button type="button" onClick={props.onDismiss}>
          Done
        </button>
      )}
    </div>
  );
}

function headlineOf(withdrawal: Withdrawal): string {
  if (withdrawal.status === 'completed') return 'Liquidity removed: both payouts arrived';
  if (withdrawal.status === 'flagged') return 'Liquidity removed; a payout waits for an operator';
  return 'Removing liquidity…';
}

function AcceptPayout(props: {
  withdrawal: Withdrawal;
  token: Pool['tokenA'];
  onAccepted(): void;
}) {
  const { wallet } = useServices();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  if (!(wallet instanceof BrowserDevnetWallet)) {
    return <p class="hint">Accept the offer of {props.token.name} in your wallet.</p>;
  }
  const accept = async () => {
    setBusy(true);
    setError(null);
    try {
      await acceptPayoutOffer(wallet, props.withdrawal.withdrawalId, props.token);
      props.onAccepted();
    } catch (caught) {
      setError(describeLiquidityError(caught));
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      {' '}
      <button type="button" disabled={busy} onClick={accept}>
        Accept {props.token.name}
      </button>
      {error && (
        <span role="alert" class="error">
          {' '}
          {error}
        </span>
      )}
    </>
  );
}

/** The payout's offer is the one to the party with the withdrawal's reason, of that token. */
async function acceptPayoutOffer(
  wallet: BrowserDevnetWallet,
  withdrawalId: string,
  token: Pool['tokenA'],
): Promise<void> {
  const offers = await wallet.offers();
  const offer = offers.find(
    (o) =>
      o.reason === `withdraw:${withdrawalId}` && o.token === token.name && o.admin === token.admin,
  );
  if (offer === undefined) throw new Error(`No offer of ${token.name} for this withdrawal yet.`);
  await wallet.acceptOffer(offer.offerId, token.admin);
}

/**
 * The withdrawal as last seen, followed until it ends through the SDK's withdrawal object: its
 * event stream (`GET /v1/liquidity/withdrawals/{id}/events`), reconnecting with `Last-Event-ID`
 * when it drops, and reading the withdrawal every few seconds only when the stream is unavailable
 * (`polling` then). `reload` reads it at once (after an offer was accepted here).
 */
function useFollowedWithdrawal(followed: WithdrawalObject) {
  const [current, setCurrent] = useState<Withdrawal>(followed.latest);
  const [error, setError] = useState<string | null>(null);
  const [polling, setPolling] = useState(false);
  const ended = current.status !== 'paying';
  useEffect(() => {
    if (ended) return;
    let live = true;
    const seen = (next: Withdrawal) => {
      if (!live) return;
      setCurrent(next);
      setError(null);
      setPolling(followed.followedBy === 'poll');
    };
    const failed = (caught: unknown) =>
      live && setError(`Could not follow the withdrawal: ${describeLiquidityError(caught)}`);
    for (const event of WITHDRAWAL_EVENTS) followed.on(event, seen);
    followed.on('error', failed);
    // An end reached before the listeners (a payout paid meanwhile) is in `latest` already.
    seen(followed.latest);
    return () => {
      live = false;
      for (const event of WITHDRAWAL_EVENTS) followed.off(event, seen);
      followed.off('error', failed);
    };
  }, [followed, ended]);
  const reload = () => {
    followed
      .get()
      .then(setCurrent, (caught: unknown) =>
        setError(`Could not read the withdrawal: ${describeLiquidityError(caught)}`),
      );
  };
  return { current, error, polling, reload };
}

const KEPT = 'poolparty.withdrawal.';

/** The withdrawal this browser is following for a party and pool, kept until it ends. */
export const keptWithdrawal = {
  get(partyId: string, poolId: string): string | null {
    return localStorage.getItem(`${KEPT}${partyId}.${poolId}`);
  },
  set(partyId: string, poolId: string, withdrawalId: string | null): void {
    const key = `${KEPT}${partyId}.${poolId}`;
    if (withdrawalId === null) localStorage.removeItem(key);
    else localStorage.setItem(key, withdrawalId);
  },
};
