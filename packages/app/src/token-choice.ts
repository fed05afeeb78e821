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

/** The most tokens the picker lists at once; a search narrows a longer list. */
export const TOKEN_OPTIONS_MAX = 50;

/**
 * The tokens a picker's search finds, best first: `query` (case and spaces around it ignored)
 * matched against the symbol, the issuer's readable hint and the whole admin id. An exact symbol
 * comes first, then symbols starting with the query, then any symbol holding it, then tokens
 * found by their issuer or admin; ties keep the list's own order. An empty query finds all.
 */
export function searchTokens(tokens: readonly TokenChoice[], query: string): TokenChoice[] {
  const wanted = query.trim().toLowerCase();
  if (wanted === '') return tokens.slice(0, TOKEN_OPTIONS_MAX);
  const ranked: { token: TokenChoice; rank: number; at: number }[] = [];
  for (const [at, token] of tokens.entries()) {
    const rank = matchRank(token, wanted);
    if (rank !== null) ranked.push({ token, rank, at });
  }
  ranked.sort((a, b) => a.rank - b.rank || a.at - b.at);
  return ranked.slice(0, TOKEN_OPTIONS_MAX).map((entry) => entry.token);
}

/** 0 exact symbol, 1 symbol prefix, 2 in the symbol, 3 in the issuer's hint or admin id. */
function matchRank(token: TokenChoice, wanted: string): number | null {
  const symbol = token.name.toLowerCase();
  if (symbol === wanted) return 0;
  if (symbol.startsWith(wanted)) return 1;
  if (symbol.includes(wanted)) return 2;
  return token.admin.toLowerCase().includes(wanted) ? 3 : null;
}

/**
 * The option an arrow key moves to, from `active` among `count` options, wrapping round; null for
 * any other key, which stays the search field's (Home and End move its caret).
 */
export function optionAfterKey(key: string, active: number, count: number): number | null {
  if (count === 0) return null;
  switch (key) {
    case 'ArrowDown':
      return (active + 1) % count;
    case 'ArrowUp':
      return (active - 1 + count) % count;
    default:
      return null;
  }
}
