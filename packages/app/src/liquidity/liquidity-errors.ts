/**
 * The liquidity routes' refusals in plain words (docs/spec/liquidity.md). Kept beside the
 * liquidity pages rather than in `describe-error.ts`, which every page loads first; anything
 * else falls through to the common wording, over the service's detail where it sent one.
 */
import { PoolPartyError } from '@poolparty/sdk';
import { describeError, errorCode } from '../describe-error.js';

const PLAIN: Readonly<Record<string, string>> = {
  active_liquidity_intent_exists:
    'You already have liquidity on its way into this pool. Finish or cancel it, then add more.',
  liquidity_intent_not_cancellable:
    'This can no longer be cancelled: a deposit has arrived, or it has ended. What arrived is returned if it does not join the pool.',
  pool_has_no_price: 'This pool has no liquidity yet: enter both amounts, which set its price.',
  amount_out_of_range: 'That is more than the pool can take: enter smaller amounts.',
  first_deposit_too_small:
    'The first liquidity of a pool must be larger: enter more of both tokens.',
  position_not_found: 'Your party holds no units of this pool.',
  insufficient_units: 'Your position holds fewer units than that.',
  withdrawal_minimum_not_met:
    'The pool moved: those units now pay less than your minimums. Nothing was removed; try again or allow more slippage.',
  nothing_to_withdraw: 'Those units are worth nothing to pay out.',
  pool_paused: 'This pool is paused by its operator; liquidity waits until it reopens.',
};

export function describeLiquidityError(error: unknown): string {
  return PLAIN[errorCode(error) ?? ''] ?? describeError(detailed(error));
}

/**
 * The error with the service's detail as its message: a refusal's title only names it (`Invalid
 * request`), where the detail says what to change.
 */
function detailed(error: unknown): unknown {
  if (!(error instanceof PoolPartyError) || error.details === undefined) return error;
  return new PoolPartyError(error.details, {
    code: error.code,
    status: error.status,
    cause: error,
  });
}
