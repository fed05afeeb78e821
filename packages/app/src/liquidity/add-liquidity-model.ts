/**
 * The add-liquidity form's state: both amounts (one typed, the other following the pool's ratio,
 * or both typed on a pool without a price), the slippage, what they mint, and the intent they ask
 * for. Apart from the form, so that what the party's funds allow (`liquidity-funds.ts`) reads it
 * without importing the form.
 */
import type { Side } from '@poolparty/core';
import type { Amount } from '@poolparty/core/amount';
import { hasPrice, minimumUnits, pairedAmount } from '@poolparty/core/liquidity';
import type { Pool } from '@poolparty/sdk';
import { useState } from 'preact/hooks';
import { parseAmount, parseSlippagePercent } from '../decimal.js';
import { poolLiquidity, previewMint } from './liquidity-preview.js';

/** The liquidity routes' default tolerance, 0.5 %. */
const DEFAULT_SLIPPAGE = '0.5';

export type AddForm = ReturnType<typeof useAddForm>;

/** Both amounts (one typed, the other following), the slippage, and what they mint. */
export function useAddForm(pool: Pool, held?: Amount) {
  const liquidity = poolLiquidity(pool);
  const empty = !hasPrice(liquidity);
  const [texts, setTexts] = useState({ a: '', b: '' });
  const [typed, setTyped] = useState<Side>('a');
  const [slippageText, setSlippageText] = useState(DEFAULT_SLIPPAGE);
  const type = (side: Side, text: string) => {
    setTyped(side);
    const amount = parseAmount(text);
    const paired = amount === null || empty ? null : pairedAmount(liquidity, side, amount);
    const other = side === 'a' ? 'b' : 'a';
    setTexts((now) => ({
      ...now,
      [side]: text,
      [other]: paired?.toString() ?? (empty ? now[other] : ''),
    }));
  };
  const a = parseAmount(texts.a);
  const b = parseAmount(texts.b);
  const slippage = parseSlippagePercent(slippageText);
  const preview = a && b ? previewMint(liquidity, a, b, held) : null;
  const minimum = preview && slippage.ok ? minimumUnits(preview.units, slippage.bps) : null;
  const body = () => ({
    poolId: pool.poolId,
    // On a priced pool only the typed side is sent: the service pairs it at the reserves then.
    ...((empty || typed === 'a') && { amountA: texts.a.trim() }),
    ...((empty || typed === 'b') && { amountB: texts.b.trim() }),
    ...(slippage.ok && { slippageBps: slippage.bps }),
  });
  return {
    empty,
    texts,
    type,
    a,
    b,
    slippageText,
    setSlippageText,
    slippage,
    preview,
    minimum,
    body,
  };
}
