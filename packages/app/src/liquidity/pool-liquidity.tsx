/**
 * The pool page's liquidity section: the connected party's position in the pool with Remove,
 * adding liquidity (or the intent under way, found again after a reload), and the wallet panel
 * beside them to connect, fund and watch balances. `version` changes whenever the pool, the
 * position or the balances may have changed, and every part reads again.
 */
import type { Pool } from '@poolparty/sdk';
import { useEffect, useState } from 'preact/hooks';
import { WalletPanel } from '../components/wallet-panel.js';
import { describeError } from '../describe-error.js';
import { formatPercent } from '../format.js';
import { useServices } from '../services.js';
import { AddLiquidityForm } from './add-liquidity-form.js';
import { IntentProgress } from './intent-progress.js';
import { openIntentOf } from './intent-progress-model.js';
import {
  type Liquidity,
  type LiquidityIntent,
  type Position,
  usePartyLiquidity,
} from './party-liquidity.js';
import { holdsUnits, PositionFigures } from './position-figures.js';
import { PositionRemoval } from './position-removal.js';

/** How often the position is read again while the page is open. */
const POSITION_REFRESH_MS = 15_000;

/** The part of the pool fee that goes to liquidity providers (75 %, fixed by the service). */
const LP_SHARE = 0.75;

export function PoolLiquidity(props: { pool: Pool; version: number; onChanged(): void }) {
  const { pool } = props;
  const client = usePartyLiquidity();
  return (
    <section id="liquidity" class="lp" aria-labelledby="liquidity-heading" data-testid="liquidity">
      <h2 id="liquidity-heading">Liquidity</h2>
      <p class="hint">
        Deposit both tokens at the pool's ratio and receive units of the pool: they earn{' '}
        {formatPercent(pool.fee * LP_SHARE, 3)} of every swap, and redeem for both tokens whenever
        you remove them.
      </p>
      <div class="grid">
        <div>
          {client === null ? (
            <section class="card" aria-labelledby="add-heading">
              <h3 id="add-heading">Add liquidity</h3>
              <p data-testid="liquidity-needs-wallet">
                Connect a wallet (beside this) to add liquidity and see your position.
              </p>
            </section>
          ) : (
            <LiquidityCards {...props} client={client} />
          )}
        </div>
        <WalletPanel balancesVersion={props.version} onBalancesChanged={props.onChanged} />
      </div>
    </section>
  );
}

function LiquidityCards(props: {
  pool: Pool;
  client: Liquidity;
  version: number;
  onChanged(): void;
}) {
  const { pool, client, version, onChanged } = props;
  const { position, lastHeld, error } = usePosition(client, pool.poolId, version);
  // A withdrawal of the whole position stays in view until its payouts end.
  const [removing, setRemoving] = useState(false);
  const shown = position && holdsUnits(position) ? position : removing ? lastHeld : null;
  return (
    <>
      {error && (
        <p role="alert" class="error">
          Could not read your position: {error}
        </p>
      )}
      {shown && (
        <section class="card" aria-labelledby="position-heading">
          <h3 id="position-heading">Your position</h3>
          <PositionFigures position={position ?? shown} />
          <PositionRemoval
            pool={pool}
            position={shown}
            client={client}
            onChanged={onChanged}
            onFollowing={setRemoving}
          />
        </section>
      )}
      <section class="card" aria-labelledby="add-heading">
        <h3 id="add-heading">Add liquidity</h3>
        <AddLiquidity {...props} heldUnits={position?.units ?? null} />
      </section>
    </>
  );
}

function AddLiquidity(props: {
  pool: Pool;
  client: Liquidity;
  version: number;
  heldUnits: string | null;
  onChanged(): void;
}) {
  const { pool, client } = props;
  const partyId = useServices().wallet?.partyId;
  const [following, setFollowing] = useState<{ intent: LiquidityIntent; sendNow: boolean } | null>(
    null,
  );
  // An intent still open from an earlier visit is followed again (its deposits on request); the
  // party's id, not the client, changes with the wallet.
  useEffect(() => {
    client.list().then(
      (intents) => {
        const open = openIntentOf(intents, pool.poolId);
        if (open) setFollowing((now) => now ?? { intent: open, sendNow: false });
      },
      () => {},
    );
  }, [client, partyId, pool.poolId]);
  if (following !== null) {
    return (
      <IntentProgress
        key={following.intent.liquidityIntentId}
        client={client}
        intent={following.intent}
        sendNow={following.sendNow}
        onEnded={props.onChanged}
        onDismiss={() => setFollowing(null)}
      />
    );
  }
  return (
    <AddLiquidityForm
      pool={pool}
      client={client}
      heldUnits={props.heldUnits}
      balancesVersion={props.version}
      onCreated={(intent) => setFollowing({ intent, sendNow: true })}
    />
  );
}

function usePosition(client: Liquidity, poolId: string, version: number) {
  const { wallet } = useServices();
  const [position, setPosition] = useState<Position | null>(null);
  const [lastHeld, setLastHeld] = useState<Position | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    const read = () =>
      client.positions().then(
        (positions) => {
          if (!live) return;
          const found = positions.find((p) => p.poolId === poolId) ?? null;
          setPosition(found);
          if (found && holdsUnits(found)) setLastHeld(found);
          setError(null);
        },
        (caught: unknown) => live && setError(describeError(caught)),
      );
    void read();
    // Others' swaps move its value and fees: read again as the pool figures are.
    const timer = setInterval(read, POSITION_REFRESH_MS);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [client, poolId, version, wallet]);
  return { position, lastHeld, error };
}
