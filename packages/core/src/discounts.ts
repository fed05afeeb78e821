/**
 * Fee discount policies (docs/spec/amounts-and-fees.md#discounts).
 *
 * A policy targets an API key, a wallet party or a pool and says which share of the network fee
 * and/or the platform fee is still charged, in basis points (10000 = full charge). The network
 * fee and the platform fee are discounted independently: each takes the most favourable policy
 * that applies to the request and is valid at that moment.
 */
import { BaseError } from './base-error.js';

export const DISCOUNT_TARGET_TYPES = ['api_key', 'wallet_party', 'pool'] as const;
export type DiscountTargetType = (typeof DISCOUNT_TARGET_TYPES)[number];

/** 10000 bps: the whole fee is charged, i.e. no discount. */
export const FULL_CHARGE_BPS = 10_000;

export interface DiscountPolicy {
  readonly targetType: DiscountTargetType;
  readonly targetId: string;
  readonly networkChargeBps?: number;
  readonly platformChargeBps?: number;
  /** Inclusive start; absent or null means "since always". */
  readonly validFrom?: Date | null;
  /** Exclusive end; absent or null means "until further notice". */
  readonly validUntil?: Date | null;
}

/** The policy that won for one fee, reduced to what the fee calculation and responses need. */
export interface AppliedDiscount {
  readonly targetType: DiscountTargetType;
  readonly targetId: string;
  readonly chargeBps: number;
}

export interface SelectedDiscounts {
  readonly network: AppliedDiscount | null;
  readonly platform: AppliedDiscount | null;
}

export const NO_DISCOUNTS: SelectedDiscounts = { network: null, platform: null };

/**
 * Who is asking. `walletParty` is only known for swaps and for quotes that pass
 * `receiverParty`; without it wallet-party policies do not apply.
 */
export interface DiscountContext {
  readonly apiKeyId?: string;
  readonly walletParty?: string;
  readonly poolId: string;
  readonly now: Date;
}

export type DiscountPolicyProblem =
  | 'unknown_target_type'
  | 'empty_target_id'
  | 'invalid_network_charge_bps'
  | 'invalid_platform_charge_bps'
  | 'no_charge_given'
  | 'empty_validity_window';

export class DiscountPolicyError extends BaseError<'discount_policy_invalid'> {
  override readonly name = 'DiscountPolicyError';
  constructor(
    readonly problem: DiscountPolicyProblem,
    readonly policy: DiscountPolicy,
  ) {
    super(
      'discount_policy_invalid',
      `invalid discount policy for ${policy.targetType} ${policy.targetId}: ${problem}`,
    );
  }
}

export function isValidChargeBps(value: unknown): value is number {
  return Number.isInteger(value) && (value as number) >= 0 && (value as number) <= FULL_CHARGE_BPS;
}

/** What is wrong with a policy, or null; for the store to check before saving one. */
export function discountPolicyProblem(policy: DiscountPolicy): DiscountPolicyProblem | null {
  if (!DISCOUNT_TARGET_TYPES.includes(policy.targetType)) return 'unknown_target_type';
  if (policy.targetId.length === 0) return 'empty_target_id';
  const { networkChargeBps: network, platformChargeBps: platform } = policy;
  if (network !== undefined && !isValidChargeBps(network)) return 'invalid_network_charge_bps';
  if (platform !== undefined && !isValidChargeBps(platform)) return 'invalid_platform_charge_bps';
  if (network === undefined && platform === undefined) return 'no_charge_given';
  const { validFrom, validUntil } = policy;
  if (validFrom && validUntil && validFrom.getTime() >= validUntil.getTime()) {
    return 'empty_validity_window';
  }
  return null;
}

/**
 * Picks, per fee, the applicable policy with the lowest charge. Throws `DiscountPolicyError` on a
 * malformed stored policy rather than silently charging a fee nobody configured.
 */
export function selectDiscounts(
  policies: readonly DiscountPolicy[],
  context: DiscountContext,
): SelectedDiscounts {
  const applicable = policies.filter((policy) => {
    const problem = discountPolicyProblem(policy);
    if (problem) throw new DiscountPolicyError(problem, policy);
    return appliesTo(policy, context) && isValidAt(policy, context.now);
  });
  return {
    network: mostFavourable(applicable, (policy) => policy.networkChargeBps),
    platform: mostFavourable(applicable, (policy) => policy.platformChargeBps),
  };
}

function appliesTo(policy: DiscountPolicy, context: DiscountContext): boolean {
  switch (policy.targetType) {
    case 'api_key':
      return context.apiKeyId !== undefined && policy.targetId === context.apiKeyId;
    case 'wallet_party':
      return context.walletParty !== undefined && policy.targetId === context.walletParty;
    case 'pool':
      return policy.targetId === context.poolId;
  }
}

function isValidAt(policy: DiscountPolicy, now: Date): boolean {
  const time = now.getTime();
  if (Number.isNaN(time)) throw new RangeError('discount selection needs a valid time');
  if (policy.validFrom && time < policy.validFrom.getTime()) return false;
  if (policy.validUntil && time >= policy.validUntil.getTime()) return false;
  return true;
}

/**
 * A policy that charges the full fee is no discount and is not reported. Ties keep the order of
 * `DISCOUNT_TARGET_TYPES`, then the target id, so the choice never depends on storage order.
 */
function mostFavourable(
  policies: readonly DiscountPolicy[],
  chargeOf: (policy: DiscountPolicy) => number | undefined,
): AppliedDiscount | null {
  let best: AppliedDiscount | null = null;
  for (const policy of policies) {
    const chargeBps = chargeOf(policy);
    if (chargeBps === undefined || chargeBps >= FULL_CHARGE_BPS) continue;
    const candidate = { targetType: policy.targetType, targetId: policy.targetId, chargeBps };
    if (best === null || isBetter(candidate, best)) best = candidate;
  }
  return best;
}

function isBetter(candidate: AppliedDiscount, best: AppliedDiscount): boolean {
  if (candidate.chargeBps !== best.chargeBps) return candidate.chargeBps < best.chargeBps;
  const byType =
    DISCOUNT_TARGET_TYPES.indexOf(candidate.targetType) -
    DISCOUNT_TARGET_TYPES.indexOf(best.targetType);
  if (byType !== 0) return byType < 0;
  return candidate.targetId < best.targetId;
}
