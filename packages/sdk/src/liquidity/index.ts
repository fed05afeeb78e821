/**
 * @poolparty/sdk/liquidity: liquidity intents, withdrawals and positions — an extension beside the
 * swap interface, in an entry of its own so that an app that only swaps does not carry it.
 * `withLiquidity(pp)` gives a client `pp.liquidity`.
 *
 * @example
 * const pp = withLiquidity(new PoolParty({ apiKey, walletToken }));
 * const intent = await pp.liquidity.create({ poolId, amountA: '100' });
 * // the wallet sends intent.expected.a and intent.expected.b to intent.depositAddress
 * const { minted } = await intent.wait();
 */
import type { PoolParty } from '../client.js';
import { withEntry } from '../client-parts.js';
import { Liquidity } from '../resources/liquidity.js';

export { LIQUIDITY_STATES, LIQUIDITY_TERMINAL_STATES } from '../catalogue.js';
export type { CreateLiquidityParams, Liquidity, WithdrawParams } from '../resources/liquidity.js';
export type {
  FeesEarned,
  LiquidityDeposit,
  LiquidityIntent,
  LiquidityMint,
  LiquidityState,
  Payout,
  Position,
  SideAmounts,
  Withdrawal,
} from '../types.js';
export type { WaitBounds } from './deadline.js';
export type {
  LiquidityErrorListener,
  LiquidityEventName,
  LiquidityIntentHandle,
  LiquidityIntentObject,
  LiquidityListener,
  LiquidityWaitOptions,
} from './intent.js';
export type {
  WithdrawalErrorListener,
  WithdrawalEventName,
  WithdrawalHandle,
  WithdrawalListener,
  WithdrawalObject,
} from './withdrawal.js';
export { WITHDRAWAL_EVENTS } from './withdrawal.js';

/** A client with `liquidity`: what `withLiquidity` returns. */
export type WithLiquidity<Client extends PoolParty = PoolParty> = Client & {
  /** Liquidity intents, withdrawals and positions of the wallet party. */
  readonly liquidity: Liquidity;
};

/**
 * Gives `client` a `liquidity` property — over the client's own API key, wallet token, `fetch`,
 * timeouts and retries — and returns the same client, typed with it. Calling it again on the same
 * client returns it unchanged. Throws `ValidationError` for anything that is not a PoolParty
 * client.
 */
export function withLiquidity<Client extends PoolParty>(client: Client): WithLiquidity<Client> {
  return withEntry(client, 'liquidity', ({ sender, follow }) => new Liquidity(sender, follow));
}
