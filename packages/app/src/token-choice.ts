/**
 * The token pickers' options: a symbol can exist under several admins
 * (docs/spec/protocol.md#tokens-and-pools), so an option is
 * a (symbol, admin) pair, labelled with the admin only where the symbol alone would be ambiguous,
 * and a pair of choices names one pool.
 */
import type { Pool } from '@poolparty/sdk';
import { shortParty } from './format.js';

export interface TokenChoice {
  readonly name: string;
  readonly admin: string;
}

export function choiceKey(token: TokenChoice): string {
  return `${token.name}|${token.admin}`;
}

export function choiceFromKey(key: string): TokenChoice | null {
  const bar = key.indexOf('|');
  return bar <= 0 ? null : { name: key.slice(0, bar), admin: key.slice(bar + 1) };
}

function sameToken(a: TokenChoice, b: TokenChoice): boolean {
  return a.name === b.name && a.admin === b.admin;
}

/** Every token of an active pool, once, ordered by symbol. */
export function tradableTokens(pools: readonly Pool[]): TokenChoice[] {
  const seen = new Map<string, TokenChoice>();
  for (const pool of pools) {
    if (pool.status !== 'active') continue;
    for (const side of [pool.tokenA, pool.tokenB]) {
      const choice = { name: side.name, admin: side.admin };
      seen.set(choiceKey(choice), choice);
    }
  }
  return [...seen.values()].sort(
    (a, b) => a.name.localeCompare(b.name) || a.admin.localeCompare(b.admin),
  );
}

/** The tokens `from` can be swapped to: the other side of each active pool holding it. */
export function counterparts(pools: readonly Pool[], from: TokenChoice): TokenChoice[] {
  return tradableTokens(
    pools.filter((pool) => sameToken(pool.tokenA, from) || sameToken(pool.tokenB, from)),
  ).filter((token) => !sameToken(token, from));
}

/** The active pools that trade `from` for `to`, in the service's order. */
export function poolsFor(pools: readonly Pool[], from: TokenChoice, to: TokenChoice): Pool[] {
  return pools.filter(
    (pool) =>
      pool.status === 'active' &&
      ((sameToken(pool.tokenA, from) && sameToken(pool.tokenB, to)) ||
        (sameToken(pool.tokenA, to) && sameToken(pool.tokenB, from))),
  );
}

/** The active pool that trades `from` for `to`; null when none. */
export function poolFor(pools: readonly Pool[], from: TokenChoice, to: TokenChoice): Pool | null {
  return poolsFor(pools, from, to)[0] ?? null;
}

/**
 * A pool's pair for people, e.g. `Amulet/USDCx`, with each side's issuer where another pool
 * trades the same symbol under another admin (`Amulet/USDCx (usdx-bridge)`).
 */
export function pairLabel(pool: Pool, pools: readonly Pool[]): string {
  const all = pools.flatMap((other) => [other.tokenA, other.tokenB]);
  const side = (token: TokenChoice) => {
    const issuer = issuerLabel(token, all);
    return issuer === null ? token.name : `${token.name} (${issuer})`;
  };
  return `${side(pool.tokenA)}/${side(pool.tokenB)}`;
}

/** The option's text: the symbol, and its admin when another admin has the same symbol. */
export function choiceLabel(token: TokenChoice, all: readonly TokenChoice[]): string {
  const issuer = issuerLabel(token, all);
  return issuer === null ? token.name : `${token.name} (issued by ${issuer})`;
}

/** The admin to name beside the symbol; null when no other admin has the symbol. */
export function issuerLabel(token: TokenChoice, all: readonly TokenChoice[]): string | null {
  const namesakes = all.filter((other) => other.name === token.name && other.admin !== token.admin);
  if (namesakes.length === 0) return null;
  // The admin's readable hint tells them apart unless two admins share it too.
  const hint = hintOf(token.admin);
  return namesakes.some((other) => hintOf(other.admin) === hint) ? shortParty(token.admin) : hint;
}

function hintOf(party: string): string {
  return party.split('::')[0] ?? party;
}
