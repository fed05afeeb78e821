import { describe, expect, it } from 'vitest';
import {
  type DiscountContext,
  type DiscountPolicy,
  DiscountPolicyError,
  discountPolicyProblem,
  selectDiscounts,
} from '../src/discounts.js';

const now = new Date('2025-06-01T12:00:00Z');
const context: DiscountContext = { apiKeyId: 'key-1', poolId: 'pool-1', now };

describe('selectDiscounts', () => {
  it('selects nothing when no policy applies', () => {
    expect(selectDiscounts([], context)).toEqual({ network: null, platform: null });
    const otherPool: DiscountPolicy = {
      targetType: 'pool',
      targetId: 'pool-2',
      networkChargeBps: 0,
    };
    expect(selectDiscounts([otherPool], context)).toEqual({ network: null, platform: null });
  });

  it('picks the network and platform discounts independently', () => {
    const policies: DiscountPolicy[] = [
      { targetType: 'pool', targetId: 'pool-1', networkChargeBps: 5000 },
      { targetType: 'api_key', targetId: 'key-1', platformChargeBps: 7000 },
    ];
    expect(selectDiscounts(policies, context)).toEqual({
      network: { targetType: 'pool', targetId: 'pool-1', chargeBps: 5000 },
      platform: { targetType: 'api_key', targetId: 'key-1', chargeBps: 7000 },
    });
  });

  it('lets the most favourable policy win for each fee', () => {
    const policies: DiscountPolicy[] = [
      { targetType: 'pool', targetId: 'pool-1', networkChargeBps: 8000, platformChargeBps: 2000 },
      { targetType: 'api_key', targetId: 'key-1', networkChargeBps: 3000, platformChargeBps: 9000 },
    ];
    const selected = selectDiscounts(policies, context);
    expect(selected.network).toEqual({ targetType: 'api_key', targetId: 'key-1', chargeBps: 3000 });
    expect(selected.platform).toEqual({ targetType: 'pool', targetId: 'pool-1', chargeBps: 2000 });
  });

  it('breaks ties the same way whatever the storage order', () => {
    const a: DiscountPolicy = { targetType: 'pool', targetId: 'pool-1', networkChargeBps: 5000 };
    const b: DiscountPolicy = { targetType: 'api_key', targetId: 'key-1', networkChargeBps: 5000 };
    expect(selectDiscounts([a, b], context)).toEqual(selectDiscounts([b, a], context));
    expect(selectDiscounts([a, b], context).network?.targetType).toBe('api_key');
  });

  it('ignores expired and not-yet-valid policies, with an inclusive start and exclusive end', () => {
    const base = { targetType: 'pool', targetId: 'pool-1', networkChargeBps: 1000 } as const;
    const expired = { ...base, validUntil: new Date('2025-06-01T12:00:00Z') };
    const future = { ...base, validFrom: new Date('2025-06-01T12:00:01Z') };
    expect(selectDiscounts([expired, future], context).network).toBeNull();
    const startsNow = { ...base, validFrom: now, validUntil: new Date('2025-07-01T00:00:00Z') };
    expect(selectDiscounts([startsNow], context).network?.chargeBps).toBe(1000);
    const openEnded = { ...base, validFrom: null, validUntil: null };
    expect(selectDiscounts([openEnded], context).network?.chargeBps).toBe(1000);
  });

  it('applies a wallet-party policy only when the wallet party is known', () => {
    const policy: DiscountPolicy = {
      targetType: 'wallet_party',
      targetId: 'alice::1220ab',
      platformChargeBps: 0,
    };
    expect(selectDiscounts([policy], context).platform).toBeNull();
    const withParty = { ...context, walletParty: 'alice::1220ab' };
    expect(selectDiscounts([policy], withParty).platform?.chargeBps).toBe(0);
    const otherParty = { ...context, walletParty: 'bob::1220cd' };
    expect(selectDiscounts([policy], otherParty).platform).toBeNull();
  });

  it('applies an API-key policy only to that key', () => {
    const policy: DiscountPolicy = {
      targetType: 'api_key',
      targetId: 'key-1',
      networkChargeBps: 0,
    };
    expect(selectDiscounts([policy], { poolId: 'pool-1', now }).network).toBeNull();
    expect(selectDiscounts([policy], { ...context, apiKeyId: 'key-2' }).network).toBeNull();
  });

  it('does not report a policy that charges the full fee', () => {
    const policy: DiscountPolicy = {
      targetType: 'pool',
      targetId: 'pool-1',
      networkChargeBps: 10000,
    };
    expect(selectDiscounts([policy], context).network).toBeNull();
  });

  it('refuses a malformed stored policy instead of ignoring it', () => {
    const policy: DiscountPolicy = {
      targetType: 'pool',
      targetId: 'pool-1',
      networkChargeBps: 10001,
    };
    expect(() => selectDiscounts([policy], context)).toThrow(DiscountPolicyError);
  });
});

describe('discountPolicyProblem', () => {
  const base = { targetType: 'pool', targetId: 'pool-1' } as const;

  it.each([
    [{ ...base, networkChargeBps: -1 }, 'invalid_network_charge_bps'],
    [{ ...base, networkChargeBps: 10001 }, 'invalid_network_charge_bps'],
    [{ ...base, networkChargeBps: 50.5 }, 'invalid_network_charge_bps'],
    [{ ...base, platformChargeBps: Number.NaN }, 'invalid_platform_charge_bps'],
    [base, 'no_charge_given'],
    [{ ...base, targetId: '', networkChargeBps: 1 }, 'empty_target_id'],
    [{ ...base, targetType: 'user', networkChargeBps: 1 }, 'unknown_target_type'],
    [{ ...base, networkChargeBps: 1, validFrom: now, validUntil: now }, 'empty_validity_window'],
  ])('%o → %s', (policy, problem) => {
    expect(discountPolicyProblem(policy as DiscountPolicy)).toBe(problem);
  });

  it('accepts the bounds 0 and 10000', () => {
    expect(discountPolicyProblem({ ...base, networkChargeBps: 0, platformChargeBps: 10000 })).toBe(
      null,
    );
  });
});
