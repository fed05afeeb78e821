/**
 * What the party can put into a pool: its spendable balance of each side (from the connected
 * wallet), and the reason "Add liquidity" cannot be pressed, in words, when it cannot.
 */
import type { Pool } from '@poolparty/sdk';
import { useEffect, useState } from 'preact/hooks';
import { parseAmount } from '../decimal.js';
import { formatAmount } from '../format.js';
import { useServices } from '../services.js';
import type { AddForm } from './add-liquidity-model.js';

/** Per side, the spendable amount; null while unknown (no wallet, or one that cannot list). */
export type Balances = { readonly a: string; readonly b: string } | null;

export function useBalances(pool: Pool, version: number): Balances {
  const { wallet } = useServices();
  const [balances, setBalances] = useState<Balances>(null);
  useEffect(() => {
    setBalances(null);
    if (wallet === null) return;
    let live = true;
    wallet.spendable().then(
      (held) => {
        const of = (side: Pool['tokenA']) =>
          held.find((h) => h.token === side.name && h.admin === side.admin)?.amount ?? '0';
        if (live) setBalances({ a: of(pool.tokenA), b: of(pool.tokenB) });
      },
      // A wallet that cannot list its holdings: the deposit's own check still applies.
      () => live && setBalances(null),
    );
    return () => {
      live = false;
    };
  }, [wallet, pool, version]);
  return balances;
}

export function addBlocker(pool: Pool, form: AddForm, balances: Balances): string | null {
  if (form.a === null || form.b === null || !form.a.isPositive() || !form.b.isPositive()) {
    return form.empty
      ? `Enter both amounts, ${pool.tokenA.name} and ${pool.tokenB.name}.`
      : `Enter an amount of ${pool.tokenA.name} or ${pool.tokenB.name}.`;
  }
  if (!form.slippage.ok) return form.slippage.message;
  if (form.preview === null) return 'These amounts are too small to mint any units.';
  for (const [side, amount, token] of [
    ['a', form.a, pool.tokenA.name],
    ['b', form.b, pool.tokenB.name],
  ] as const) {
    const spendable = balances === null ? null : parseAmount(balances[side]);
    if (spendable !== null && amount.gt(spendable)) {
      return spendable.isPositive()
        ? `Your party can spend ${formatAmount(spendable.toString())} ${token}; lower the amounts or get more ${token}.`
        : `Your party holds no ${token} it can spend. Get some ${token} first.`;
    }
  }
  return null;
}
