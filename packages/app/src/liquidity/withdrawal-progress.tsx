/**
 * A withdrawal followed until both payouts are paid: read every few seconds, each payout's state
 * in words, and Accept for a payout that arrived as an offer (a party without a pre-approval).
 * The service does not list withdrawals nor name a payout's offer, so the withdrawal's id is kept
 * in this browser until it ends (a reload finds it again), and the devnet wallet finds the offer
 * among its own by the payout's reason.
 */
import type { Pool } from '@poolparty/sdk';
import { useEffect, useState } from 'preact/hooks';
import { formatAmount } from '../format.js';
import { useServices } from '../services.js';
import { BrowserDevnetWallet } from '../wallets/devnet-wallet.js';
import { describeLiquidityError } from './liquidity-errors.js';
import type { Liquidity, Withdrawal } from './party-liquidity.js';

const REFRESH_MS = 1_500;

type Payout = Withdrawal['payoutA'];

const PAYOUT_TEXT: Readonly<Record<Payout['state'], string>> = {
  pending: 'on its way',
  offered: 'offered to you: accept it',
  paid: 'paid',
  flagged: 'held back: an operator will pay it',
  none: 'nothing to pay',
};

export function WithdrawalProgress(props: {
  client: Liquidity;
  pool: Pool;
  withdrawal: Withdrawal;
  onEnded(): void;
  onDismiss(): void;
}) {
  const { pool } = props;
  const { current, error, reload } = useFollowedWithdrawal(props.client, props.withdrawal);
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

function useFollowedWithdrawal(client: Liquidity, first: Withdrawal) {
  const [current, setCurrent] = useState(first);
  const [error, setError] = useState<string | null>(null);
  const [tick, setTick] = useState(0);
  const ended = current.status !== 'paying';
  useEffect(() => {
    if (ended) return;
    const timer = setTimeout(() => {
      client.withdrawal(current.withdrawalId).then(
        (next) => {
          setCurrent(next);
          setError(null);
        },
        (caught: unknown) =>
          setError(`Could not read the withdrawal: ${describeLiquidityError(caught)}`),
      );
    }, REFRESH_MS);
    return () => clearTimeout(timer);
  }, [client, current, ended, tick]);
  return { current, error, reload: () => setTick((t) => t + 1) };
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
