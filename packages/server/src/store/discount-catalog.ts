/**
 * Every discount policy still in force or yet to start (SPEC §5.5): what the quoter keeps in
 * memory so that a quote never waits on the store. Which one applies is core's decision
 * (`selectDiscounts`), made per request at that request's moment.
 */

import {
  readDate,
  readDateOrNull,
  readIntegerOrNull,
  readSafeInteger,
  readString,
} from './columns.js';
import type { Queryable, Row } from './database.js';
import type { DiscountPolicyRecord, DiscountTargetType } from './discounts.js';

/** Policies are few (operator-made); this bounds the memory a misuse could take. */
export const DISCOUNT_CATALOG_SIZE_MAX = 10_000;

function policyFromRow(row: Row): DiscountPolicyRecord {
  const network = readIntegerOrNull(row.network_charge_bps);
  const platform = readIntegerOrNull(row.platform_charge_bps);
  return {
    id: readSafeInteger(row.id),
    targetType: readString(row.target_type) as DiscountTargetType,
    targetId: readString(row.target_id),
    ...(network === null ? {} : { networkChargeBps: network }),
    ...(platform === null ? {} : { platformChargeBps: platform }),
    validFrom: readDateOrNull(row.valid_from),
    validUntil: readDateOrNull(row.valid_until),
    createdAt: readDate(row.created_at),
  };
}

/** Policies whose validity has not ended at `now`, oldest first, at most the catalogue bound. */
export async function listDiscountPoliciesInForce(
  q: Queryable,
  now: Date,
): Promise<DiscountPolicyRecord[]> {
  const rows = await q.query(
    `SELECT id, target_type, target_id, network_charge_bps, platform_charge_bps, valid_from,
       valid_until, created_at
     FROM discount_policies
     WHERE valid_until IS NULL OR valid_until > $1
     ORDER BY created_at, id
     LIMIT $2`,
    [now, DISCOUNT_CATALOG_SIZE_MAX],
  );
  return rows.map(policyFromRow);
}
