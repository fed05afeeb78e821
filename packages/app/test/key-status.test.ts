/**
 * The developer portal's key status: what the service said of the key (`working`, judged on its
 * clock), never the key's end against the browser's clock.
 */
import { describe, expect, it } from 'vitest';
import { formatTime } from '../src/format.js';
import { keyStatus } from '../src/pages/developer/key-status.js';

/** Hours past the browser's clock: a devnet whose ledger clock was moved forward. */
const AHEAD = new Date(Date.now() + 3 * 60 * 60 * 1000).toISOString();

describe('keyStatus', () => {
  it('shows a key revoked a moment ago on a clock ahead of the browser as revoked', () => {
    expect(keyStatus({ revokedAt: AHEAD, working: false })).toBe('Revoked');
  });

  it('shows a rotated key in its grace period with the time it stops', () => {
    expect(keyStatus({ revokedAt: AHEAD, working: true })).toBe(
      `Rotated: works until ${formatTime(AHEAD)}`,
    );
  });

  it('shows a key without an end as active', () => {
    expect(keyStatus({ revokedAt: null, working: true })).toBe('Active');
  });
});
