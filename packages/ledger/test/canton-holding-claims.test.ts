import { describe, expect, it } from 'vitest';
import {
  CLAIM_WAITERS_MAX,
  HoldingClaims,
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
