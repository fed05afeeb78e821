/**
 * The environment a store belongs to (docs/spec/protocol.md#environments, migration
 * 0006). The first service to open a
 * store records its environment there; afterwards a process of the other environment is refused
 * before it reads anything, because a mainnet service on a devnet store would serve devnet portal
 * sessions and list `pp_test_` keys (and a devnet one on a mainnet store would mint test tokens
 * next to real intents).
 */
import type { Environment } from '@poolparty/core';
import type { Queryable } from './database.js';
import { StoreProblem } from './problems.js';

/** The store belongs to another environment than the process opening it. */
export class WrongEnvironmentProblem extends StoreProblem {
  constructor(message: string) {
    super(message, 'wrong_store_environment');
  }
}

/** The environment recorded in the store, or null while none is. */
export async function recordedEnvironment(db: Queryable): Promise<Environment | null> {
  const rows = await db.query<{ environment: Environment }>(
    'SELECT environment FROM store_environment',
  );
  return rows[0]?.environment ?? null;
}

/**
 * Records `environment` unless the store already has one (processes starting at once agree: the
 * first insert wins and the others read it), and answers the one now recorded.
 */
export async function claimStoreEnvironment(
  db: Queryable,
  environment: Environment,
  now: Date,
): Promise<Environment> {
  await db.query(
    'INSERT INTO store_environment (environment, recorded_at) VALUES ($1, $2) ON CONFLICT (singleton) DO NOTHING',
    [environment, now],
  );
  return (await recordedEnvironment(db)) ?? environment;
}

/** The one line refusing a store of `recorded` to a process of `wanted`, or null when they agree. */
export function environmentMismatch(
  store: string,
  recorded: Environment | null,
  wanted: Environment,
): string | null {
  if (recorded === null || recorded === wanted) return null;
  return `${store} belongs to ${recorded}, not ${wanted} (POOLPARTY_ENV=${wanted}): a store serves one environment; point this process at a ${wanted} store`;
}

/** Claims (serve) or checks (operator commands) the store's environment; throws on a mismatch. */
export async function requireStoreEnvironment(
  db: Queryable,
  store: string,
  wanted: Environment,
  options: { readonly claim: boolean; readonly now: Date },
): Promise<void> {
  const recorded = options.claim
    ? await claimStoreEnvironment(db, wanted, options.now)
    : await recordedEnvironment(db);
  const problem = environmentMismatch(store, recorded, wanted);
  if (problem !== null) throw new WrongEnvironmentProblem(problem);
}
