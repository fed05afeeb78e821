/**
 * `DeveloperPortal` against a real seeded service: wallet sign-in, keys (create, rotate with its
 * grace period, revoke), a swap through the new key, its earnings and their collection, usage,
 * refusals as typed errors, and sign-out.
 */

import {
  AuthenticationError,
  ConflictError,
  DeveloperPortal,
  NotFoundError,
  PoolParty,
  ValidationError,
} from '@poolparty/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signChallenge } from '../support/service.js';
import { type DevnetParty, type Live, startLive } from './support/live.js';

let live: Live;
let developer: DevnetParty;
let portal: DeveloperPortal;

beforeAll(async () => {
  live = await startLive();
  developer = await live.newParty('builder', '0');
  portal = new DeveloperPortal({ environment: 'devnet', baseUrl: live.t.url });
  const challenge = await portal.requestChallenge(developer.partyId);
  await portal.signIn({
    partyId: developer.partyId,
    nonce: challenge.nonce,
    ...signChallenge(challenge.message, developer),
  });
});

afterAll(() => live?.close());

/** Polls `read` until `done` holds (a safety-net deadline, not a timing). */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('the developer portal client', () => {
  it('keeps the session it signed in with', () => {
    expect(portal.session).toMatch(/^[A-Za-z0-9_-]{43,}$/);
  });

  it('creates a key, swaps through it, and collects half the platform fee once', async () => {
    const created = await portal.keys.create({ name: 'shop' });
    expect(created.key).toMatch(/^pp_test_/);
    const swapper = await live.newParty('shopper');
    let token = '';
    const pp = new PoolParty({
      apiKey: created.key,
      environment: 'devnet',
      baseUrl: live.t.url,
      walletToken: () => token,
    });
    const challenge = await pp.walletAuth.requestChallenge(swapper.partyId);
    ({ token } = await pp.walletAuth.verifyChallenge({
      partyId: swapper.partyId,
      nonce: challenge.nonce,
      ...signChallenge(challenge.message, swapper),
    }));
    const swap = await pp.swaps.create({
      fromToken: 'Amulet',
      toToken: 'USDCx',
      amount: '400',
      poolId: live.canonical.poolId,
    });
    await live.deposit(swapper, swap);
    await swap.wait();

    const half = halfOf(swap.platformFeeAmount);
    const earnings = await portal.earnings({ period: '24h', keyId: created.keyId });
    const [line] = earnings.lines;
    expect(line).toMatchObject({ token: 'Amulet', earned: half, collectable: half });
    const listed = await portal.keys.list();
    expect(listed.keys.find((k) => k.keyId === created.keyId)?.requestCount).toBeGreaterThan(0);

    const collection = await portal.collections.create({
      poolId: live.canonical.poolId,
      token: 'Amulet',
      tokenAdmin: line?.tokenAdmin ?? '',
    });
    expect(collection.amount).toBe(half);
    const done = await until(
      () => portal.collections.get(collection.collectionId),
      (c) => c.status === 'collected',
    );
    expect(done.updateId).not.toBeNull();
    await expect(
      portal.collections.create({
        poolId: live.canonical.poolId,
        token: 'Amulet',
        tokenAdmin: line?.tokenAdmin ?? '',
      }),
    ).rejects.toMatchObject({ constructor: ConflictError, code: 'nothing_to_collect' });

    const usage = await portal.usage({ period: '24h' });
    expect(usage.series.reduce((n, point) => n + point.swaps, 0)).toBe(1);
  });

  it('rotates a key with a grace period, and revokes one at once', async () => {
    const first = await portal.keys.create({ name: 'old' });
    const rotated = await portal.keys.rotate(first.keyId);
    expect(rotated.name).toBe('old');
    const listed = await portal.keys.list();
    const old = listed.keys.find((k) => k.keyId === first.keyId);
    expect(Date.parse(old?.revokedAt ?? '')).toBeGreaterThan(Date.now());
    const revoked = await portal.keys.revoke(rotated.keyId);
    expect(Date.parse(revoked.revokedAt ?? '')).toBeLessThanOrEqual(Date.now());
  });

  it('refuses bad input before sending, and answers typed errors', async () => {
    await expect(portal.earnings({ period: '1y' as '7d' })).rejects.toBeInstanceOf(ValidationError);
    await expect(portal.collections.get('col_missing')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('signs out: the session signs nothing in any more', async () => {
    const token = portal.session;
    const ended = await portal.signOut();
    expect(ended).toEqual({ partyId: developer.partyId, signedOut: true });
    expect(portal.session).toBeNull();
    const resumed = new DeveloperPortal({
      environment: 'devnet',
      baseUrl: live.t.url,
      session: token ?? '',
    });
    await expect(resumed.keys.list()).rejects.toMatchObject({
      constructor: AuthenticationError,
      code: 'invalid_session',
    });
  });
});

/** Half a decimal amount, rounded down at 10 decimals, as the service credits it. */
function halfOf(amount: string): string {
  const [whole = '0', fraction = ''] = amount.split('.');
  const units = BigInt(whole + fraction.padEnd(10, '0')) / 2n;
  const text = units.toString().padStart(11, '0');
  const result = `${text.slice(0, -10)}.${text.slice(-10)}`.replace(/\.?0+$/, '');
  return result.replace(/^0+(?=\d)/, '');
}
