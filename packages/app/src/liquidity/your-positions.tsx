/**
 * "Your positions" on the pools page: every pool the connected party holds units of, in the same
 * figures as on the pool's own page, where Remove is. Shown only with a wallet connected.
 */
import type { Pool } from '@poolparty/sdk';
import { useEffect, useState } from 'preact/hooks';
import { describeError } from '../describe-error.js';
import { useServices } from '../services.js';
import { pairLabel } from '../token-choice.js';
import { type Position, usePartyLiquidity } from './party-liquidity.js';
import { holdsUnits, PositionFigures } from './position-figures.js';

export function YourPositions(props: { pools: readonly Pool[] }) {
  const client = usePartyLiquidity();
  const partyId = useServices().wallet?.partyId;
  const [positions, setPositions] = useState<Position[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  // Read again for another party: the client stays the same object when the wallet changes.
  useEffect(() => {
    if (client === null) return;
    client.positions().then(
      (items) => setPositions(items.filter(holdsUnits)),
      (caught: unknown) => setError(describeError(caught)),
    );
  }, [client, partyId]);
  if (client === null) return null;
  return (
    <section class="lp" aria-labelledby="positions-heading" data-testid="your-positions">
      <h2 id="positions-heading">Your positions</h2>
      {error && (
        <p role="alert" class="error">
          Could not read your positions: {error}
        </p>
      )}
      {positions === null && !error && <p role="status">Loading your positions…</p>}
      {positions?.length === 0 && (
        <p>Your party holds no liquidity yet: open a pool to add some.</p>
      )}
      <div class="positions">
        {positions?.map((position) => {
          const pool = props.pools.find((p) => p.poolId === position.poolId);
          return (
            <section
              class="card"
              key={position.poolId}
              aria-label={`Position in ${position.poolId}`}
            >
              <h3>
                <a href={`/pools/${encodeURIComponent(position.poolId)}`}>
                  {pool ? pairLabel(pool, props.pools) : position.poolId}
                </a>{' '}
                <span class="muted">{position.poolId}</span>
              </h3>
              <PositionFigures position={position} />
            </section>
          );
        })}
      </div>
    </section>
  );
}
