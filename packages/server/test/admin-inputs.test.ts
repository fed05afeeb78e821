/**
 * What an operator types into `poolparty admin`, read before anything is written: a mistake is
 * refused with a sentence naming the option.
 */
import { DomainError } from '@poolparty/core';
import { describe, expect, it } from 'vitest';
import { AdminError } from '../src/admin/admin-error.js';
import { discountRequestOf } from '../src/admin/commands.js';
import { describeCharge } from '../src/admin/discounts.js';
import { parseChargeBps, parseMoment, parseRateLimit } from '../src/admin/inputs.js';

describe('discount options', () => {
  it('reads one target, the charges and the window', () => {
    expect(
      discountRequestOf({
        pool: 'amulet-usdcx',
        networkChargeBps: '5000',
        platformChargeBps: '7000',
        from: '2026-12-01',
        until: '2027-01-01T00:00:00Z',
      }),
    ).toEqual({
      targetType: 'pool',
      target: 'amulet-usdcx',
      networkChargeBps: 5000,
      platformChargeBps: 7000,
      validFrom: new Date('2026-12-01T00:00:00Z'),
      validUntil: new Date('2027-01-01T00:00:00Z'),
    });
  });

  it('wants exactly one target and at least one charge', () => {
    expect(() => discountRequestOf({ networkChargeBps: '5000' })).toThrow(
      'give exactly one target: --pool <poolId>, --api-key <keyId> or --wallet-party <party>',
    );
    expect(() =>
      discountRequestOf({ pool: 'a', apiKey: 'pp_test_abcd', networkChargeBps: '1' }),
    ).toThrow(AdminError);
    expect(() => discountRequestOf({ walletParty: 'alice::1220' })).toThrow(
      'give --network-charge-bps and/or --platform-charge-bps',
    );
  });

  it('says what a charge means', () => {
    expect(describeCharge(5000)).toBe('5000 bps (50 % off)');
    expect(describeCharge(7000)).toBe('7000 bps (30 % off)');
    expect(describeCharge(undefined)).toBe('full');
  });
});

describe('admin values', () => {
  it('refuses basis points outside 0…10000 or not whole', () => {
    expect(parseChargeBps('--network-charge-bps', '0')).toBe(0);
    expect(parseChargeBps('--network-charge-bps', '10000')).toBe(10_000);
    for (const bad of ['10001', '-1', '50%', '12.5', '']) {
      expect(() => parseChargeBps('--network-charge-bps', bad)).toThrow(
        /^--network-charge-bps must be a whole number of basis points from 0 to 10000/,
      );
    }
  });

  it('reads ISO 8601 times only', () => {
    expect(parseMoment('--from', '2026-12-01T12:30:00+01:00')).toEqual(
      new Date('2026-12-01T11:30:00Z'),
    );
    for (const bad of ['tomorrow', '1', '2026-13-01', '12/01/2026']) {
      expect(() => parseMoment('--from', bad)).toThrow(/^--from must be an ISO 8601 time/);
    }
  });

  it('reads a rate limit or "default"', () => {
    expect(parseRateLimit('--read', '2')).toBe(2);
    expect(parseRateLimit('--read', 'default')).toBeNull();
    for (const bad of ['0', '-5', 'lots']) {
      expect(() => parseRateLimit('--read', bad)).toThrow(
        /^--read must be a positive whole number/,
      );
    }
  });
});

describe('an admin refusal', () => {
  it('is a domain error with a catalogue code, its message the sentence alone', () => {
    let refused: unknown;
    try {
      parseChargeBps('--network-charge-bps', '10001');
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(AdminError);
    expect(refused).toBeInstanceOf(DomainError);
    expect(refused).toMatchObject({ name: 'AdminError', code: 'validation_error' });
    expect((refused as AdminError).message).toBe((refused as AdminError).shortMessage);
  });
});
