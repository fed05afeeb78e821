/**
 * Under a position: the Remove form, or the withdrawal under way until its payouts end. The
 * withdrawal's id is kept in this browser while it runs, so a reload follows it again.
 */
import type { Pool } from '@poolparty/sdk';
import { useEffect, useState } from 'preact/hooks';
import { useServices } from '../services.js';
import type { Liquidity, Position, WithdrawalObject } from './party-liquidity.js';
import { RemoveLiquidityForm } from './remove-liquidity-form.js';
import { keptWithdrawal, WithdrawalProgress } from './withdrawal-progress.js';

export function PositionRemoval(props: {
  pool: Pool;
  position: Position;
  client: Liquidity;
  onChanged(): void;
  /** Told whether a withdrawal is being followed, so the position stays in view meanwhile. */
  onFollowing(following: boolean): void;
}) {
  const { pool, client, onChanged, onFollowing } = props;
  const partyId = useServices().wallet?.partyId ?? '';
  const [withdrawal, setWithdrawal] = useState<WithdrawalObject | null>(null);
  useEffect(() => onFollowing(withdrawal !== null), [withdrawal]);
  useEffect(() => {
    const kept = keptWithdrawal.get(partyId, pool.poolId);
    if (kept === null) return;
    client.withdrawal(kept).then(
      (found) => setWithdrawal((now) => now ?? found),
      () => keptWithdrawal.set(partyId, pool.poolId, null),
    );
  }, [client, partyId, pool.poolId]);
  if (withdrawal !== null) {
    return (
      <WithdrawalProgress
        key={withdrawal.withdrawalId}
        pool={pool}
        withdrawal={withdrawal}
        onEnded={() => {
          keptWithdrawal.set(partyId, pool.poolId, null);
          onChanged();
        }}
        onDismiss={() => setWithdrawal(null)}
      />
    );
  }
  return (
    <RemoveLiquidityForm
      pool={pool}
      position={props.position}
      client={client}
      onCreated={(created) => {
        keptWithdrawal.set(partyId, pool.poolId, created.withdrawalId);
        setWithdrawal(created);
        // The units are burned at once: the position and the pool change now.
        onChanged();
      }}
    />
  );
}
