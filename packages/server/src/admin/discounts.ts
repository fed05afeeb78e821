/**
 * `poolparty admin discounts` (docs/spec/amounts-and-fees.md#discounts): fee discount policies,
 * kept in `discount_policies` and read by every running quoter. A policy says which share of a fee
 * is still charged, in basis points: network 50 % off is `networkChargeBps` 5000; platform 30 % off
 * is `platformChargeBps` 7000 (a quote reports it as `discountBps` 3000).
 *
 * A policy is checked with core's rules before it is stored, and its target must exist where the
 * store can tell (an API key, a pool); a wallet party only has to be a well-formed party id,
 * since a policy may be set up before the party ever trades.
 */
import {
  type DiscountTargetType,
  discountPolicyProblem,
  FULL_CHARGE_BPS,
  parsePartyId,
} from '@poolparty/core';
import type { Database, Queryable } from '@poolparty/store';
import {
  type DiscountPolicyRecord,
  findApiKeysByIdOrPrefix,
  getPool,
  insertDiscountPolicy,
  listDiscountPolicies,
  recordAdminAction,
  removeDiscountPolicy,
} from '@poolparty/store';
import { AdminError } from './admin-error.js';

/** Policies listed at most by `admin discounts list`. */
const DISCOUNTS_LIST_MAX = 1_000;

export interface Attribution {
  readonly actor: string;
  readonly now: Date;
}

export interface DiscountRequest {
  readonly targetType: DiscountTargetType;
  /** A key id or a key's display prefix, a party id, or a pool id. */
  readonly target: string;
  readonly networkChargeBps?: number;
  readonly platformChargeBps?: number;
  readonly validFrom?: Date;
  readonly validUntil?: Date;
}

const PROBLEM_SENTENCES = {
  unknown_target_type: 'the target must be an API key, a wallet party or a pool',
  empty_target_id: 'the target must not be empty',
  invalid_network_charge_bps: 'the network charge must be 0…10000 bps',
  invalid_platform_charge_bps: 'the platform charge must be 0…10000 bps',
  no_charge_given: 'give --network-charge-bps and/or --platform-charge-bps',
  empty_validity_window: '--from must be before --until',
} as const;

/** The id the policy is stored under: API keys are named by id or prefix, stored by id. */
async function resolveTarget(q: Queryable, request: DiscountRequest): Promise<string> {
  switch (request.targetType) {
    case 'api_key': {
      const keys = await findApiKeysByIdOrPrefix(q, request.target, 2);
      const [key, other] = keys;
      if (key === undefined) throw new AdminError('not_found', `no API key ${request.target}`);
      if (other !== undefined) {
        throw new AdminError(
          'validation_error',
          `${request.target} names several API keys; give the key id`,
        );
      }
      return key.keyId;
    }
    case 'pool':
      if ((await getPool(q, request.target)) === null) {
        throw new AdminError('pool_not_found', `no pool ${request.target}`);
      }
      return request.target;
    case 'wallet_party': {
      const parsed = parsePartyId(request.target);
      if (!parsed.ok) throw new AdminError('validation_error', `not a party id: ${parsed.message}`);
      return request.target;
    }
  }
}

export async function addDiscount(
  db: Database,
  request: DiscountRequest,
  by: Attribution,
): Promise<DiscountPolicyRecord> {
  return db.transaction(async (tx) => {
    const policy = {
      targetType: request.targetType,
      targetId: await resolveTarget(tx, request),
      ...(request.networkChargeBps !== undefined && { networkChargeBps: request.networkChargeBps }),
      ...(request.platformChargeBps !== undefined && {
        platformChargeBps: request.platformChargeBps,
      }),
      validFrom: request.validFrom ?? null,
      validUntil: request.validUntil ?? null,
    };
    const problem = discountPolicyProblem(policy);
    if (problem !== null) throw new AdminError('validation_error', PROBLEM_SENTENCES[problem]);
    const stored = await insertDiscountPolicy(tx, policy, by.now);
    await recordAdminAction(tx, {
      actor: by.actor,
      action: 'discounts.add',
      subject: `discount ${stored.id}`,
      details: policyDetails(stored),
      at: by.now,
    });
    return stored;
  });
}

export async function removeDiscount(
  db: Database,
  id: number,
  by: Attribution,
): Promise<DiscountPolicyRecord> {
  return db.transaction(async (tx) => {
    const removed = await removeDiscountPolicy(tx, id);
    if (removed === null) throw new AdminError('not_found', `no discount ${id}`);
    await recordAdminAction(tx, {
      actor: by.actor,
      action: 'discounts.remove',
      subject: `discount ${id}`,
      details: policyDetails(removed),
      at: by.now,
    });
    return removed;
  });
}

export function listDiscounts(
  db: Database,
  options: { readonly now: Date; readonly includeEnded: boolean },
): Promise<DiscountPolicyRecord[]> {
  return listDiscountPolicies(db, { ...options, limit: DISCOUNTS_LIST_MAX });
}

function policyDetails(policy: DiscountPolicyRecord): Record<string, unknown> {
  return {
    targetType: policy.targetType,
    targetId: policy.targetId,
    networkChargeBps: policy.networkChargeBps ?? null,
    platformChargeBps: policy.platformChargeBps ?? null,
    validFrom: policy.validFrom?.toISOString() ?? null,
    validUntil: policy.validUntil?.toISOString() ?? null,
  };
}

/** "charged 5000 bps (50 % off)": what a charge means, in the words of the fee. */
export function describeCharge(chargeBps: number | undefined): string {
  if (chargeBps === undefined) return 'full';
  const offBps = FULL_CHARGE_BPS - chargeBps;
  return `${chargeBps} bps (${offBps / 100} % off)`;
}

/** One line of `admin discounts list`. */
export function describeDiscount(policy: DiscountPolicyRecord): string {
  return [
    `discount ${policy.id}`,
    `${policy.targetType} ${policy.targetId}`,
    `network ${describeCharge(policy.networkChargeBps)}`,
    `platform ${describeCharge(policy.platformChargeBps)}`,
    `from ${policy.validFrom?.toISOString() ?? 'always'}`,
    `until ${policy.validUntil?.toISOString() ?? 'further notice'}`,
  ].join('\t');
}
