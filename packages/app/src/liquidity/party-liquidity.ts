/**
 * The liquidity routes (`/v1/liquidity`, docs/spec/liquidity.md) for the pool pages: intents,
 * withdrawals and positions of the connected wallet's party, through the SDK's entry
 * `@poolparty/sdk/liquidity` over the pages' own client (its API key and the wallet token). Only
 * the liquidity pages import it, so the pages that only swap load none of it.
 */
import { type Liquidity, withLiquidity } from '@poolparty/sdk/liquidity';
import { useServices } from '../services.js';

export type {
  Liquidity,
  LiquidityIntent,
  Position,
  Withdrawal,
  WithdrawalObject,
} from '@poolparty/sdk/liquidity';

/**
 * The connected party's liquidity; null without a wallet or without the pages' key. It is the
 * same object whichever party is connected (each call asks the wallet token of the party then),
 * so a read of the party's own goes again on the party's id, not on this object.
 */
export function usePartyLiquidity(): Liquidity | null {
  const { pp, wallet } = useServices();
  const partyId = wallet?.partyId ?? null;
  return pp === null || partyId === null ? null : withLiquidity(pp).liquidity;
}
