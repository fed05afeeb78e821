/**
 * A devnet service's pools as liquidity route tests drive them over HTTP: the service's ledger
 * and seeded pools, a party funded with both of a pool's tokens, a liquidity intent's deposits
 * made and waited for, and a wallet's resource read until it reaches what the test waits for.
 */
import { randomUUID } from 'node:crypto';
import { Amount } from '@poolparty/core';
import { type LocalLedger, REASON_META_KEY } from '@poolparty/ledger';
import { beforeAll } from 'vitest';
import type { DevnetPoolInfo } from '../../src/devnet-bootstrap.js';
import { type Body, newDevnetParty, sharedTestService, type TestService } from './service.js';

/** A flow that has not ended by then is a failure, not a wait. */
export const FLOW_WAIT_MS = 30_000;
const POLL_MS = 50;
/** What a liquidity provider is funded with: the pool's token A, then its token B. */
const PROVIDER_FUNDS = ['10000', '2000'] as const;

/** The devnet ledger a service runs on, and its seeded pools of `poolIds`, in that order. */
export function devnetPools<const PoolIds extends readonly string[]>(
  t: TestService,
  ...poolIds: PoolIds
): {
  readonly ledger: LocalLedger;
  readonly pools: { readonly [K in keyof PoolIds]: DevnetPoolInfo };
} {
  const ledger = t.service.ctx.devnetLedger;
  const pools = poolIds.map((id) => t.service.devnet?.pools.find((p) => p.poolId === id));
  if (ledger === null || pools.some((pool) => pool === undefined))
    throw new Error('a devnet service with its pools');
  return { ledger, pools: pools as { readonly [K in keyof PoolIds]: DevnetPoolInfo } };
}

/**
 * The service a liquidity route suite shares, its devnet ledger and its pools `poolIds` (`pool`
 * the first): started before the first test and closed after the last, read in a hook or a test.
 */
export function sharedDevnetPools<const PoolIds extends readonly [string, ...string[]]>(
  ...poolIds: PoolIds
) {
  const t = sharedTestService();
  let found: ReturnType<typeof devnetPools<PoolIds>> | undefined;
  beforeAll(() => {
    found = devnetPools<PoolIds>(t, ...poolIds);
  });
  const started = () => {
    if (found === undefined)
      throw new Error('the devnet pools are read before the service started');
    return found;
  };
  return {
    t,
    get ledger(): LocalLedger {
      return started().ledger;
    },
    get pools() {
      return started().pools;
    },
    get pool(): DevnetPoolInfo {
      return started().pools[0];
    },
  };
}

/** A new party funded with both of `pool`'s tokens, and its wallet token. */
export async function fundedProvider(
  t: TestService,
  ledger: LocalLedger,
  pool: DevnetPoolInfo,
  hint: string,
) {
  const { party, token } = await newDevnetParty(t, hint);
  const [a, b] = PROVIDER_FUNDS;
  for (const [instrument, amount] of [
    [pool.tokenA, a],
    [pool.tokenB, b],
  ] as const) {
    await ledger.mint({ owner: party.partyId, instrument, amount: Amount.parse(amount) });
  }
  return { party, token };
}

/**
 * The wallet's deposits of both amounts the liquidity intent expects, to the pool's LP party
 * under the intent's reference, as the wallet sends them (one transfer per token).
 */
export async function depositBothSides(
  ledger: LocalLedger,
  pool: DevnetPoolInfo,
  walletParty: string,
  intent: Body,
): Promise<void> {
  for (const [instrument, amount] of [
    [pool.tokenA, intent.expected.a],
    [pool.tokenB, intent.expected.b],
  ] as const) {
    await ledger.submitTransfer({
      commandId: `wallet-${randomUUID()}`,
      sender: walletParty,
      receiver: pool.lpParty,
      instrument,
      amount: Amount.parse(amount),
      meta: { [REASON_META_KEY]: intent.depositReference },
    });
  }
}

/** The wallet's deposits of both amounts (`depositBothSides`), and the intent read until it completed. */
export async function completeLiquidityIntent(
  t: TestService,
  ledger: LocalLedger,
  pool: DevnetPoolInfo,
  wallet: { readonly partyId: string; readonly token: string },
  intent: Body,
): Promise<Body> {
  await depositBothSides(ledger, pool, wallet.partyId, intent);
  return untilAnswer(
    t,
    `/v1/liquidity/intents/${intent.liquidityIntentId}`,
    wallet.token,
    (body) => body.status === 'completed',
  );
}

/** The wallet's `path` read until `done` holds of it; throws once FLOW_WAIT_MS has passed. */
export async function untilAnswer(
  t: TestService,
  path: string,
  token: string,
  done: (body: Body) => boolean,
): Promise<Body> {
  const deadline = Date.now() + FLOW_WAIT_MS;
  for (;;) {
    const { body } = await t.call('GET', path, { walletToken: token });
    if (done(body)) return body;
    if (Date.now() > deadline)
      throw new Error(`${path} did not get there: ${JSON.stringify(body)}`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
