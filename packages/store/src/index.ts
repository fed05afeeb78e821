/**
 * The store: PostgreSQL when a database URL is configured, otherwise PGlite in the data folder
 * (docs/spec/running.md#store). One set of migrations and one query layer serve both.
 */
import { type Database, openPglite, openPostgres } from './database.js';
import { migrate } from './migrate.js';
import { pgliteDirOf } from './presence.js';

export * from './admin-audit.js';
export * from './api-keys.js';
export * from './atomic-swaps.js';
export * from './collections.js';
export * from './columns.js';
export * from './command-queue.js';
export * from './data-folder-lock.js';
export * from './database.js';
export * from './deposit-intake.js';
export * from './deposits.js';
export * from './developer-earnings.js';
export * from './developers.js';
export * from './discounts.js';
export * from './fee-events.js';
export * from './fee-transfers.js';
export * from './flag-counts.js';
export * from './idempotency.js';
export * from './intent-history.js';
export * from './intent-legs.js';
export * from './intent-states.js';
export * from './intents.js';
export * from './leadership.js';
export * from './ledger-commands.js';
export * from './location.js';
export * from './migrate.js';
export * from './nonces.js';
export * from './offsets.js';
export * from './operator-flags.js';
export * from './party-swaps.js';
export * from './pglite-template.js';
export * from './pool-price-references.js';
export * from './pool-snapshots.js';
export * from './pools.js';
export * from './presence.js';
export * from './problems.js';
export * from './reconciliation.js';
export * from './resilient-listener.js';
export * from './revocations.js';
export * from './sessions.js';
export * from './sql.js';
export * from './store-environment.js';
export * from './treasury-sweeps.js';
export * from './webhooks.js';

export interface StoreSettings {
  /** `postgres://…`; absent: PGlite at `<dataDir>/db`. */
  readonly databaseUrl?: string;
  readonly dataDir: string;
  /** PostgreSQL schema to use; the server's default search path when absent. */
  readonly schema?: string;
  /** PostgreSQL connections the store opens at most; `openPostgres`'s default when absent. */
  readonly connectionsMax?: number;
  /** Apply pending migrations before returning (default true; safe with concurrent starts). */
  readonly migrate?: boolean;
}

export async function openStore(settings: StoreSettings): Promise<Database> {
  const db = settings.databaseUrl
    ? openPostgres(settings.databaseUrl, {
        ...(settings.schema ? { schema: settings.schema } : {}),
        ...(settings.connectionsMax !== undefined && { connectionsMax: settings.connectionsMax }),
      })
    : await openPglite(pgliteDirOf(settings.dataDir));
  return (settings.migrate ?? true) ? migrated(db) : db;
}

/** The store brought up to this version's schema; closed when that fails. */
export async function migrated(db: Database): Promise<Database> {
  try {
    await migrate(db);
  } catch (error) {
    await db.close();
    throw error;
  }
  return db;
}
export * from './liquidity-deposits.js';
export * from './liquidity-intents.js';
export * from './liquidity-positions.js';
export * from './liquidity-withdrawals.js';
export * from './service-secrets.js';
export * from './unavailable.js';
