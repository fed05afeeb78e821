/**
 * Removing what has served its purpose, so that no table grows without bound: wallet-challenge
 * nonces and portal sessions past their expiry, revocations of wallet tokens that have expired
 * anyway, idempotency records past their retention, and webhook deliveries ended longer than
 * their retention ago. A worker does it (the `api` role only
 * serves), every `HOUSEKEEPING_INTERVAL_MS`, in batches of `PURGE_BATCH_ROWS` and at most
 * `PURGE_BATCHES_PER_RUN` batches per table per run, so that a backlog (a store that ran a year
 * without this) is worked off over several runs instead of in one statement that holds locks and
 * writes for minutes.
 *
 * The rest of the store is the venue's record (intents and their events, deposits, ledger
 * commands, fee events, snapshots, the admin audit) and is kept: it is what reconciliation, stats
 * and an operator's questions read.
 */

import type { ServiceClock } from '@poolparty/settlement';
import type { Database, Queryable } from '@poolparty/store';
import {
  purgeExpiredNonces,
  purgeExpiredRevocations,
  purgeExpiredSessions,
  purgeIdempotencyRecords,
  purgeWebhookDeliveries,
} from '@poolparty/store';
import { PeriodicJob } from './periodic-job.js';

/** How often expired rows are looked for: they are small, and nothing reads them once expired. */
const HOUSEKEEPING_INTERVAL_MS = 60_000;
/** Rows one purge statement deletes at most: a short statement beside live traffic. */
const PURGE_BATCH_ROWS = 500;
/** Batches per table per run: at most 10 000 rows a minute each, far above any inflow here. */
const PURGE_BATCHES_PER_RUN = 20;

type Purge = (q: Queryable, now: Date, limit: number) => Promise<number>;

/** What is purged, by the table it is purged from. */
export const PURGES: Readonly<Record<string, Purge>> = {
  nonces: purgeExpiredNonces,
  sessions: purgeExpiredSessions,
  wallet_token_revocations: purgeExpiredRevocations,
  idempotency_records: purgeIdempotencyRecords,
  // Ended deliveries and their attempts, 30 days after they ended (WEBHOOK_DELIVERY_RETENTION_MS).
  webhook_deliveries: purgeWebhookDeliveries,
};

export interface PurgeLimits {
  readonly batchRows: number;
  readonly batchesPerRun: number;
}

const DEFAULT_LIMITS: PurgeLimits = {
  batchRows: PURGE_BATCH_ROWS,
  batchesPerRun: PURGE_BATCHES_PER_RUN,
};

/**
 * One run: each table purged batch by batch until a batch comes back short or the run's batches
 * are spent. Answers the rows removed per table.
 */
export async function purgeExpired(
  db: Database,
  now: Date,
  limits: PurgeLimits = DEFAULT_LIMITS,
): Promise<Record<string, number>> {
  const removed: Record<string, number> = {};
  for (const [table, purge] of Object.entries(PURGES)) {
    removed[table] = 0;
    for (let batch = 0; batch < limits.batchesPerRun; batch += 1) {
      const count = await purge(db, now, limits.batchRows);
      removed[table] += count;
      if (count < limits.batchRows) break;
    }
  }
  return removed;
}

export interface HousekeepingDeps {
  readonly db: Database;
  readonly clock: ServiceClock;
  /** Told of a run that failed; the next run tries again. */
  readonly onError: (error: unknown) => void;
}

/** Runs `purgeExpired` now and then every interval, one run at a time, until stopped. */
export class Housekeeping extends PeriodicJob<Record<string, number>> {
  constructor(deps: HousekeepingDeps) {
    super({
      run: () => purgeExpired(deps.db, deps.clock.now()),
      onDone: () => {},
      onError: deps.onError,
    });
  }

  override start(intervalMs = HOUSEKEEPING_INTERVAL_MS): void {
    super.start(intervalMs);
  }
}
