/**
 * The `/devnet` conveniences (faucet, balances, clock) on the devnet ledger server: the same
 * routes as the service's, answering problems in their own format, and what they change shows on
 * the Canton paths.
 */
import { describe, expect, it } from 'vitest';
import { DEVNET_ENDPOINTS } from '../src/devnet/endpoints.js';
import { sharedWorld } from './support/server.js';

describe('devnet conveniences on the devnet ledger server', () => {
  const world = sharedWorld();
  const faucet = (token: string, amount: string) =>
    world.post('/devnet/faucet', { partyId: world.pool, token, amount });

  it('mints through the faucet, and the mint is the next update on the ledger API', async () => {
    const before = (await world.get('/v2/state/ledger-end')).body.offset;
    const minted = await faucet('USDCx', '12.5');
    expect(minted.status).toBe(200);
    expect(minted.body.amount).toBe('12.5');
    expect((await world.get('/v2/state/ledger-end')).body.offset).toBe(before + 1);
    const balances = await world.get(`/devnet/parties/${encodeURIComponent(world.pool)}/holdings`);
    expect(balances.body.holdings).toContainEqual(
      expect.objectContaining({ token: 'USDCx', amount: '12.5' }),
    );
  });

  it('answers its refusals as problems, not as Canton errors', async () => {
    const answer = await faucet('NOPE', '1');
    expect(answer.status).toBe(404);
    expect(answer.body.code).toBe('token_not_found');
  });

  it('serves every devnet endpoint, the control ones to no page of another origin', async () => {
    for (const { method, url, control } of DEVNET_ENDPOINTS) {
      const path = `/devnet${url}`
        .replace(':partyId', encodeURIComponent(world.pool))
        .replace(':offerId', 'no-such-offer');
      const answer = await fetch(`${world.server.url}${path}`, {
        method,
        headers: { origin: 'http://elsewhere.example', 'content-type': 'application/json' },
        ...(method === 'POST' && { body: '{}' }),
      });
      const { code } = (await answer.json()) as { code?: string };
      expect(answer.status, path).not.toBe(404);
      expect(code === 'origin_not_allowed', path).toBe(control === true);
    }
  });
});
