import { describe, expect, it } from 'vitest';
import {
  CLAIM_WAITERS_MAX,
  HoldingClaims,
  SET_ASIDE_HOLDINGS_MAX,
  SPENT_HOLDINGS_KEPT,
} from '../src/canton/holding-claims.js';
import { LedgerError } from '../src/port.js';

describe('the holdings transfers of this process have named', () => {
  it('are taken for their sender until released, and only for it', () => {
    const claims = new HoldingClaims();
    claims.claim('alice', ['h1', 'h2']);
    expect(claims.taken('alice', 'h1')).toBe(true);
    expect(claims.taken('alice', 'h3')).toBe(false);
    expect(claims.taken('bob', 'h1')).toBe(false);
    expect(claims.busy('alice')).toBe(true);
    claims.release('alice', ['h1', 'h2'], false);
    expect(claims.taken('alice', 'h1')).toBe(false);
    expect(claims.busy('alice')).toBe(false);
  });

  it('stay taken once spent, so a stale read of the active set does not name them again', () => {
    const claims = new HoldingClaims();
    claims.claim('alice', ['h1']);
    claims.release('alice', ['h1'], true);
    expect(claims.busy('alice')).toBe(false);
    expect(claims.taken('alice', 'h1')).toBe(true);
    for (let i = 0; i < SPENT_HOLDINGS_KEPT; i += 1) {
      claims.claim('bob', [`b${i}`]);
      claims.release('bob', [`b${i}`], true);
    }
    expect(claims.taken('alice', 'h1')).toBe(false);
  });

  it('wake the sender’s waiting transfers when one of its transfers ends', async () => {
    const claims = new HoldingClaims();
    claims.claim('alice', ['h1']);
    let woken = 0;
    const waits = [claims.nextRelease('alice'), claims.nextRelease('alice')].map((p) =>
      p.then(() => {
        woken += 1;
      }),
    );
    claims.release('bob', [], false);
    await Promise.resolve();
    expect(woken).toBe(0);
    claims.release('alice', ['h1'], true);
    await Promise.all(waits);
    expect(woken).toBe(2);
  });

  it(`refuse a transfer past ${CLAIM_WAITERS_MAX} waiting, to be retried`, () => {
    const claims = new HoldingClaims();
    for (let i = 0; i < CLAIM_WAITERS_MAX; i += 1) void claims.nextRelease('alice');
    expect(() => claims.nextRelease('alice')).toThrow(LedgerError);
    claims.release('alice', [], false);
    expect(() => claims.nextRelease('alice')).not.toThrow();
  });
});

describe('the holdings set aside for an atomic swap', () => {
  it('are taken for their owner until the swap ends, spent or not', () => {
    const claims = new HoldingClaims();
    claims.setAside('pool', ['h1', 'h2'], Date.now() + 60_000);
    expect(claims.taken('pool', 'h1')).toBe(true);
    expect(claims.taken('bob', 'h1')).toBe(false);
    // Setting aside is not a transfer under way: the owner's transfers do not wait for it.
    expect(claims.busy('pool')).toBe(false);
    claims.endAside(['h1'], true);
    claims.endAside(['h2'], false);
    // Spent: still taken, so a stale read does not name it; refused: free again.
    expect(claims.taken('pool', 'h1')).toBe(true);
    expect(claims.taken('pool', 'h2')).toBe(false);
  });

  it('are free again once the swap can no longer execute', () => {
    const claims = new HoldingClaims();
    const until = Date.now() + 60_000;
    claims.setAside('pool', ['h1'], until);
    expect(claims.taken('pool', 'h1', until - 1)).toBe(true);
    expect(claims.taken('pool', 'h1', until)).toBe(false);
  });

  it(`are at most ${SET_ASIDE_HOLDINGS_MAX}, the oldest let go first`, () => {
    const claims = new HoldingClaims();
    const until = Date.now() + 60_000;
    claims.setAside('pool', ['first'], until);
    claims.setAside(
      'pool',
      Array.from({ length: SET_ASIDE_HOLDINGS_MAX }, (_, i) => `h${i}`),
      until,
    );
    expect(claims.taken('pool', 'first')).toBe(false);
    expect(claims.taken('pool', `h${SET_ASIDE_HOLDINGS_MAX - 1}`)).toBe(true);
  });
});
