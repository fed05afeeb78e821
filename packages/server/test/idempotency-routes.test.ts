/**
 * `Idempotency-Key` on the mutating POSTs beyond swap creation (docs/spec/protocol.md#idempotency),
 * over HTTP on a devnet service: a retried liquidity intent, withdrawal, cancel and API key
 * creation answer the first result with `Idempotent-Replayed: true` and take effect once; another
 * request under the key is 422; a refused request is judged afresh; keys are the principal's own.
 */
import { Amount } from '@poolparty/core';
import { describe, expect, it } from 'vitest';
import type { DevnetParty } from '../src/devnet-bootstrap.js';
import {
  completeLiquidityIntent,
  FLOW_WAIT_MS,
  fundedProvider,
  sharedDevnetPools,
} from './support/pool-liquidity.js';
import {
  type Body,
  expectProblem,
  type JsonResponse,
  newDevnetParty,
  portalLogin,
  request,
  type TestService,
} from './support/service.js';

const devnet = sharedDevnetPools('amulet-usdcx');
const { t } = devnet;

const call: TestService['call'] = (...args) => t.call(...args);

const keyed = (key: string) => ({ 'idempotency-key': key });

/** The answer is the first one again, marked as a replay. */
function expectReplay(again: JsonResponse<Body>, first: JsonResponse<Body>): void {
  expect(first.headers.get('idempotent-replayed')).toBeNull();
  expect({ status: again.status, body: again.body }).toEqual({
    status: first.status,
    body: first.body,
  });
  expect(again.headers.get('idempotent-replayed')).toBe('true');
}

function createIntent(token: string, body: object, key?: string) {
  return call('POST', '/v1/liquidity/intents', {
    walletToken: token,
    body,
    ...(key !== undefined && { headers: keyed(key) }),
  });
}

function cancelIntent(token: string, id: string, key?: string) {
  return call('POST', `/v1/liquidity/intents/${id}/cancel`, {
    walletToken: token,
    ...(key !== undefined && { headers: keyed(key) }),
  });
}

/** A party holding units of the pool, and its wallet token. */
async function liquidityProvider(hint: string) {
  const { party, token } = await fundedProvider(t, devnet.ledger, devnet.pool, hint);
  const { body: intent } = await createIntent(token, {
    poolId: devnet.pool.poolId,
    amountA: '1000',
  });
  await completeLiquidityIntent(
    t,
    devnet.ledger,
    devnet.pool,
    { partyId: party.partyId, token },
    intent,
  );
  return { party, token };
}

async function unitsHeld(token: string): Promise<Amount> {
  const { body } = await call('GET', '/v1/liquidity/positions', { walletToken: token });
  return Amount.parse(body.items[0].units);
}

async function withdrawalsOf(token: string): Promise<string[]> {
  const { body } = await call('GET', '/v1/liquidity/withdrawals', { walletToken: token });
  return body.items.map((w: Body) => w.withdrawalId);
}

describe('POST /v1/liquidity/intents with an Idempotency-Key', () => {
  it('answers a retry with the first intent and creates one; another body is 422', async () => {
    const { token } = await newDevnetParty(t, 'idem-lp');
    const first = await createIntent(token, { poolId: devnet.pool.poolId, amountA: '100' }, 'lp-1');
    expect(first.status).toBe(201);
    const again = await createIntent(token, { amountA: '100', poolId: devnet.pool.poolId }, 'lp-1');
    expectReplay(again, first);
    const { body: listed } = await call('GET', '/v1/liquidity/intents', { walletToken: token });
    expect(listed.items.map((i: Body) => i.liquidityIntentId)).toEqual([
      first.body.liquidityIntentId,
    ]);
    const changed = await createIntent(
      token,
      { poolId: devnet.pool.poolId, amountA: '101' },
      'lp-1',
    );
    expectProblem(changed, 422, 'idempotency_key_reused');
    const other = await newDevnetParty(t, 'idem-lp-other');
    const otherWallet = await createIntent(
      other.token,
      { poolId: devnet.pool.poolId, amountA: '100' },
      'lp-1',
    );
    expectProblem(otherWallet, 422, 'idempotency_key_reused');
  });

  it('judges a refused create afresh: the same key creates once the open intent is gone', async () => {
    const { token } = await newDevnetParty(t, 'idem-lp-refused');
    const open = await createIntent(token, { poolId: devnet.pool.poolId, amountA: '100' });
    const body = { poolId: devnet.pool.poolId, amountA: '200' };
    expectProblem(await createIntent(token, body, 'lp-2'), 409, 'active_liquidity_intent_exists');
    expect((await cancelIntent(token, open.body.liquidityIntentId)).status).toBe(200);
    const created = await createIntent(token, body, 'lp-2');
    expect(created.status).toBe(201);
    expect(created.headers.get('idempotent-replayed')).toBeNull();
    expect(created.body.liquidityIntentId).not.toBe(open.body.liquidityIntentId);
  });
});

describe('cancels with an Idempotency-Key', () => {
  it('answer a retried liquidity intent cancel with the cancelled intent, not a refusal', async () => {
    const { token } = await newDevnetParty(t, 'idem-cancel');
    const created = await createIntent(token, { poolId: devnet.pool.poolId, amountA: '100' });
    const id = created.body.liquidityIntentId;
    const first = await cancelIntent(token, id, 'cancel-1');
    expect(first.body).toMatchObject({ liquidityIntentId: id, status: 'cancelled' });
    expectReplay(await cancelIntent(token, id, 'cancel-1'), first);
    // Without the key the same cancel is judged as it stands now.
    expectProblem(await cancelIntent(token, id), 409, 'liquidity_intent_not_cancellable');

    const next = await createIntent(token, { poolId: devnet.pool.poolId, amountA: '100' });
    const otherIntent = await cancelIntent(token, next.body.liquidityIntentId, 'cancel-1');
    expectProblem(otherIntent, 422, 'idempotency_key_reused');
  });

  it('answer a retried swap cancel with the first answer', async () => {
    const { token } = await newDevnetParty(t, 'idem-swap-cancel');
    const swap = await call('POST', '/v1/swaps', {
      walletToken: token,
      body: { fromToken: 'Amulet', toToken: 'USDCx', amount: '70', poolId: devnet.pool.poolId },
    });
    expect(swap.status).toBe(201);
    const cancel = () =>
      call('POST', `/v1/swaps/${swap.body.intentId}/cancel`, {
        walletToken: token,
        headers: keyed('swap-cancel-1'),
      });
    const first = await cancel();
    expect(first.body).toEqual({ intentId: swap.body.intentId, status: 'cancelled' });
    expectReplay(await cancel(), first);
  });
});

describe('POST /v1/liquidity/withdrawals with an Idempotency-Key', () => {
  const half = () => ({ poolId: devnet.pool.poolId, shareBps: 5000, minimumA: '0', minimumB: '0' });
  const withdraw = (token: string, body: object, key: string) =>
    call('POST', '/v1/liquidity/withdrawals', { walletToken: token, body, headers: keyed(key) });

  it(
    'burns the units once for a retry after a lost answer, answering the first withdrawal',
    async () => {
      const { token } = await liquidityProvider('idem-withdraw');
      const before = await unitsHeld(token);
      const first = await withdraw(token, half(), 'wd-1');
      expect(first.status).toBe(201);
      // The same request, its members in another order.
      const reordered = {
        minimumB: '0',
        minimumA: '0',
        shareBps: 5000,
        poolId: devnet.pool.poolId,
      };
      const again = await withdraw(token, reordered, 'wd-1');
      expectReplay(again, first);
      expect((await unitsHeld(token)).toString()).toBe(
        before.sub(Amount.parse(first.body.units)).toString(),
      );
      expect(await withdrawalsOf(token)).toEqual([first.body.withdrawalId]);
      const changed = await withdraw(token, { ...half(), shareBps: 2500 }, 'wd-1');
      expectProblem(changed, 422, 'idempotency_key_reused');
    },
    FLOW_WAIT_MS,
  );

  it(
    'burns the units once for duplicates sent at once',
    async () => {
      const { token } = await liquidityProvider('idem-withdraw-race');
      const before = await unitsHeld(token);
      const answers = await Promise.all([1, 2, 3, 4].map(() => withdraw(token, half(), 'wd-2')));
      const created = answers.filter((answer) => answer.status === 201);
      expect(created.length).toBeGreaterThanOrEqual(1);
      for (const answer of created) expect(answer.body).toEqual(created[0]?.body);
      for (const answer of answers.filter((a) => a.status !== 201)) {
        expectProblem(answer, 409, 'idempotency_key_in_use');
      }
      expect(await withdrawalsOf(token)).toHaveLength(1);
      expect((await unitsHeld(token)).toString()).toBe(
        before.sub(Amount.parse(created[0]?.body.units)).toString(),
      );
    },
    FLOW_WAIT_MS,
  );

  it('refuses a malformed key with 400 validation_error and burns nothing', async () => {
    const { token } = await newDevnetParty(t, 'idem-bad-key');
    for (const key of ['has space', 'k'.repeat(256)]) {
      expectProblem(await withdraw(token, half(), key), 400, 'validation_error');
    }
  });
});

describe('POST /api/sdk/keys with an Idempotency-Key', () => {
  const signIn = async (party: DevnetParty) => {
    const { login } = await portalLogin<{ token: string }>(t.url, party);
    expect(login.status).toBe(200);
    return { authorization: `Bearer ${login.body.token}` };
  };
  const createKey = (session: Record<string, string>, body: object, key: string) =>
    request<Body>(t.url, 'POST', '/api/sdk/keys', { body, headers: { ...session, ...keyed(key) } });
  const keysOf = async (session: Record<string, string>) =>
    (await request<Body>(t.url, 'GET', '/api/sdk/keys', { headers: session })).body.keys;

  it('creates one key for a retried creation and answers the same key; another body is 422', async () => {
    const { party } = await newDevnetParty(t, 'idem-dev');
    const session = await signIn(party);
    const first = await createKey(session, { name: 'shop' }, 'key-1');
    expect(first.status).toBe(201);
    expect(first.body.key).toMatch(/^pp_test_/);
    expectReplay(await createKey(session, { name: 'shop' }, 'key-1'), first);
    expect((await keysOf(session)).map((k: Body) => k.keyId)).toEqual([first.body.keyId]);
    expectProblem(
      await createKey(session, { name: 'till' }, 'key-1'),
      422,
      'idempotency_key_reused',
    );

    // Another developer's key of the same text is its own.
    const other = await signIn((await newDevnetParty(t, 'idem-dev-other')).party);
    const theirs = await createKey(other, { name: 'shop' }, 'key-1');
    expect(theirs.status).toBe(201);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(theirs.body.keyId).not.toBe(first.body.keyId);
  });

  it('keeps a new sign-in of the same developer on the same keys', async () => {
    const { party } = await newDevnetParty(t, 'idem-dev-again');
    const first = await createKey(await signIn(party), {}, 'key-2');
    expect(first.status).toBe(201);
    expectReplay(await createKey(await signIn(party), {}, 'key-2'), first);
  });
});
