/**
 * Fee discount policies (docs/spec/amounts-and-fees.md#discounts). The store finds the policies
 * that apply to a request at a moment; choosing the most favourable one per fee is core's decision,
 * not the store's.
 */
import type { DiscountPolicy, DiscountTargetType } from '@poolparty/core';
import { read } from './columns.js';
import type { Queryable, Row } from './database.js';

export type { DiscountTargetType };

/** A policy to record: core's DiscountPolicy, each charge in bps of the fee (absent = no discount). */
export type NewDiscountPolicy = DiscountPolicy;

export interface DiscountPolicyRecord extends NewDiscountPolicy {
  readonly id: number;
  readonly validFrom: Date | null;
  readonly validUntil: Date | null;
  readonly createdAt: Date;
}

/** Who is asking; a wallet-party policy applies only when the party is known. */
export interface DiscountTargets {
  readonly apiKeyId?: string;
  readonly walletParty?: string;
  readonly poolId: string;
}

const POLICY_COLUMNS = `id, target_type, target_id, network_charge_bps, platform_charge_bps,
  valid_from, valid_until, created_at`;

function policyFromRow(row: Row): DiscountPolicyRecord {
  const network = read.integerOrNull(row.network_charge_bps);
  const platform = read.integerOrNull(row.platform_charge_bps);
  return {
    id: read.safeInteger(row.id),
    targetType: read.string(row.target_type) as DiscountTargetType,
    targetId: read.string(row.target_id),
    ...(network === null ? {} : { networkChargeBps: network }),
    ...(platform === null ? {} : { platformChargeBps: platform }),
    validFrom: read.dateOrNull(row.valid_from),
    validUntil: read.dateOrNull(row.valid_until),
    createdAt: read.date(row.created_at),
  };
}

/** Stores a policy; the schema refuses bps outside 0..10000, no charge at all, or an empty window. */
export async function insertDiscountPolicy(
  q: Queryable,
  policy: NewDiscountPolicy,
  now: Date,
): Promise<DiscountPolicyRecord> {
  const rows = await q.query(
    `INSERT INTO discount_policies (target_type, target_id, network_charge_bps,
       platform_charge_bps, valid_from, valid_until, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7)
     RETURNING ${POLICY_COLUMNS}`,
    [
      policy.targetType,
      policy.targetId,
      policy.networkChargeBps ?? null,
      policy.platformChargeBps ?? null,
      policy.validFrom ?? null,
      policy.validUntil ?? null,
      now,
    ],
  );
  return policyFromRow(rows[0] as Row);
}

/** The policies that target the request and are valid at `now`, oldest first. */
export async function listApplicableDiscounts(
  q: Queryable,
  targets: DiscountTargets,
  now: Date,
): Promise<DiscountPolicyRecord[]> {
  const rows = await q.query(
    `SELECT ${POLICY_COLUMNS} FROM discount_policies
     WHERE ((target_type = 'pool' AND target_id = $1)
         OR (target_type = 'api_key' AND target_id = $2)
         OR (target_type = 'wallet_party' AND target_id = $3))
       AND (valid_from IS NULL OR valid_from <= $4)
       AND (valid_until IS NULL OR valid_until > $4)
     ORDER BY created_at, id`,
    [targets.poolId, targets.apiKeyId ?? null, targets.walletParty ?? null, now],
  );
  return rows.map(policyFromRow);
}

export async function deleteDiscountPolicy(q: Queryable, id: number): Promise<boolean> {
  return (await removeDiscountPolicy(q, id)) !== null;
}

/** Deletes the policy; returns what it was, or null when there was none. */
export async function removeDiscountPolicy(
  q: Queryable,
  id: number,
): Promise<DiscountPolicyRecord | null> {
  const rows = await q.query(
    `DELETE FROM discount_policies WHERE id = $1 RETURNING ${POLICY_COLUMNS}`,
    [id],
  );
  return rows[0] ? policyFromRow(rows[0]) : null;
}

/**
 * Policies for an operator's list, oldest first: those not ended at `now`, or with `includeEnded`
 * every one, at most `limit`.
 */
export async function listDiscountPolicies(
  q: Queryable,
  options: { readonly now: Date; readonly includeEnded: boolean; readonly limit: number },
): Promise<DiscountPolicyRecord[]> {
  const rows = await q.query(
    `SELECT ${POLICY_COLUMNS} FROM discount_policies
     WHERE $1 OR valid_until IS NULL OR valid_until > $2
     ORDER BY created_at, id
     LIMIT $3`,
    [options.includeEnded, options.now, options.limit],
  );
  return rows.map(policyFromRow);
}

/** Policies are few (operator-made); this bounds the memory a misuse could take. */
export const DISCOUNT_CATALOG_SIZE_MAX = 10_000;

/**
 * Every policy whose validity has not ended at `now`, oldest first, at most the catalogue bound:
 * what the quoter keeps in memory so that a quote never waits on the store. Which one applies is
 * core's decision (`selectDiscounts`), made per request at that request's moment.
 */
export async function listDiscountPoliciesInForce(
  q: Queryable,
  now: Date,
): Promise<DiscountPolicyRecord[]> {
  const rows = await q.query(
    `SELECT ${POLICY_COLUMNS} FROM discount_policies
     WHERE valid_until IS NULL OR valid_until > $1
     ORDER BY created_at, id
     LIMIT $2`,
    [now, DISCOUNT_CATALOG_SIZE_MAX],
  );
  return rows.map(policyFromRow);
}
