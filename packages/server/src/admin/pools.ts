/**
 * `poolparty admin pools`: pausing a pool stops new business on it — quotes and swap creation
 * answer 409 `pool_paused` and a deposit arriving for an intent created before the pause is
 * refunded at execution (core's settlement decision) — until it is resumed. Every running
 * process re-reads the pool when told of the change (admin/change-feed.ts), and within a second
 * anyway (the pool book's refresh).
 */

import type { Database } from '@poolparty/store';
import {
  getPool,
  type PoolRecord,
  type PoolStatus,
  recordAdminAction,
  setPoolStatus,
} from '@poolparty/store';
import type { Attribution } from './discounts.js';
import { AdminError } from './refunds.js';

export async function setPoolStatusAudited(
  db: Database,
  poolId: string,
  status: PoolStatus,
  by: Attribution & { readonly reason?: string },
): Promise<PoolRecord> {
  return db.transaction(async (tx) => {
    const before = await getPool(tx, poolId);
    if (before === null) throw new AdminError(`no pool ${poolId}`);
    if (before.status === status) throw new AdminError(`pool ${poolId} is already ${status}`);
    const after = await setPoolStatus(tx, poolId, status, by.now);
    if (after === null) throw new AdminError(`no pool ${poolId}`);
    await recordAdminAction(tx, {
      actor: by.actor,
      action: status === 'paused' ? 'pools.pause' : 'pools.resume',
      subject: poolId,
      details: {
        from: before.status,
        to: status,
        ...(by.reason !== undefined && { reason: by.reason }),
      },
      at: by.now,
    });
    return after;
  });
}

export function describePool(pool: PoolRecord): string {
  return [
    pool.poolId,
    pool.status,
    `${pool.tokenA.id} (${pool.tokenA.admin}) / ${pool.tokenB.id} (${pool.tokenB.admin})`,
    `reserves ${pool.accounting.reserveA} / ${pool.accounting.reserveB}`,
    `fee ${pool.feeBps} bps`,
  ].join('\t');
}
