/**
 * `/v1/swaps` and `/v1/track` against the real seeded service: create, status, cancel, track,
 * idempotency, and every refusal a client can meet.
 */
import { Amount } from '@poolparty/core';
import { insertApiKey, insertIntent, transitionIntent, upsertDeveloper } from '@poolparty/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DevnetParty, DevnetPoolInfo } from '../src/devnet-bootstrap.js';
import {
  type Body,
  expectProblem,
  type JsonResponse,
  newDevnetParty,
  SERVICE_START_TIMEOUT_MS,
  startTestService,
  type TestService,
  walletTokenFor,
} from './support/service.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const MINUTE_MS = 60_000;

let t: TestService;
let alice: DevnetParty;
let bob: DevnetParty;
let aliceToken: string;
let bobToken: string;
let canonical: DevnetPoolInfo;
let bridged: DevnetPoolInfo;
let cbtcPool: DevnetPoolInfo;

/** A new funded-or-not party of its own, so a test's listing is not shared with another's. */
const newParty = (hint: string) => newDevnetParty(t, hint);

const call: TestService['call'] = (...args) => t.call(...args);

function createSwap(
  token: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<JsonResponse<Body>> {
  return call('POST', '/v1/swaps', { walletToken: token, body, headers });
}

function amuletToUsdcx(amount = '100'): Record<string, unknown> {
  return { fromToken: 'Amulet', toToken: 'USDCx', amount, poolId: canonical.poolId };
}

async function cancel(token: string, intentId: string): Promise<JsonResponse<Body>> {
  return call('POST', `/v1/swaps/${intentId}/cancel`, { walletToken: token });
}

async function track(token: string, partyId: string, query = ''): Promise<JsonResponse<Body>> {
  return call('GET', `/v1/track/${partyId}${query}`, { walletToken: token });
}

/** Every swap of the party under this key, following the cursor. */
async function trackAll(token: string, partyId: string, pageSize: number): Promise<Body[]> {
  const swaps: Body[] = [];
  let cursor: string | null = null;
  do {
    const query: string = `?limit=${pageSize}${cursor ? `&cursor=${cursor}` : ''}`;
    const page = await track(token, partyId, query);
    expect(page.status).toBe(200);
    expect(page.body.swaps.length).toBeLessThanOrEqual(pageSize);
    swaps.push(...page.body.swaps);
    cursor = page.body.nextCursor;
  } while (cursor !== null);
  return swaps;
}

beforeAll(async () => {
  t = await startTestService();
  const [first, second] = t.users;
  if (!first || !second) throw new Error('the devnet seed has two users');
  [alice, bob] = [first, second];
  const pools = t.service.devnet?.pools ?? [];
  const byId = (id: string) => {
    const pool = pools.find((p) => p.poolId === id);
    if (!pool) throw new Error(`seeded pool ${id} missing`);
    return pool;
  };
  canonical = byId('amulet-usdcx');
  bridged = byId('amulet-usdcx-bridge');
  cbtcPool = byId('amulet-cbtc');
  [aliceToken, bobToken] = await Promise.all([walletTokenFor(t, alice), walletTokenFor(t, bob)]);
}, SERVICE_START_TIMEOUT_MS);

afterAll(async () => {
  await t?.close();
});

describe('wallet authentication', () => {
  it('refuses a request without a wallet token', async () => {
    const response = await call('POST', '/v1/swaps', { body: amuletToUsdcx() });
    expectProblem(response, 401, 'missing_wallet_token');
    expectProblem(await track('', alice.partyId), 401, 'missing_wallet_token');
  });

  it('refuses an expired or malformed wallet token', async () => {
    const past = new Date(t.service.ctx.clock.now().getTime() - 16 * MINUTE_MS);
    const expired = await t.service.ctx.walletTokens.issue(alice.partyId, past);
    const stale = await track(expired.token, alice.partyId);
    expectProblem(stale, 401, 'invalid_wallet_token');
    expectProblem(await track('not.a.jwt', alice.partyId), 401, 'invalid_wallet_token');
  });

  it('still needs the API key', async () => {
    const response = await call('GET', `/v1/track/${alice.partyId}`, {
      apiKey: null,
      walletToken: aliceToken,
    });
    expectProblem(response, 401, 'missing_api_key');
  });
});

describe('POST /v1/swaps: malformed requests', () => {
  const valid = () => amuletToUsdcx();
  const without = (field: string) => {
    const body = valid();
    delete body[field];
    return body;
  };
  const cases: readonly [string, () => unknown][] = [
    ['no body', () => undefined],
    ['missing fromToken', () => without('fromToken')],
    ['missing toToken', () => without('toToken')],
    ['missing amount', () => without('amount')],
    ['an amount with an exponent', () => ({ ...valid(), amount: '1e5' })],
    ['a negative amount', () => ({ ...valid(), amount: '-1' })],
    ['an amount with spaces', () => ({ ...valid(), amount: ' 1' })],
    ['an amount with 11 decimals', () => ({ ...valid(), amount: '1.00000000001' })],
    ['an empty amount', () => ({ ...valid(), amount: '' })],
    ['an amount as a JSON number', () => ({ ...valid(), amount: 100 })],
    ['slippage 0.0009', () => ({ ...valid(), slippageTolerance: 0.0009 })],
    ['slippage 0.0501', () => ({ ...valid(), slippageTolerance: 0.0501 })],
    ['slippage as a string', () => ({ ...valid(), slippageTolerance: '0.01' })],
    [
      'slippage NaN (sent as null)',
      () => JSON.parse(JSON.stringify({ ...valid(), slippageTolerance: Number.NaN })),
    ],
    ['an unknown field', () => ({ ...valid(), recipient: alice.partyId })],
    ['idempotencyKey in the body', () => ({ ...valid(), idempotencyKey: 'k-1' })],
    ['a malformed walletAddress', () => ({ ...valid(), walletAddress: 'alice' })],
  ];

  it.each(cases)('answers 400 validation_error for %s', async (_name, body) => {
    const response = await call('POST', '/v1/swaps', { walletToken: aliceToken, body: body() });
    expectProblem(response, 400, 'validation_error');
  });

  it('answers 400 for an Idempotency-Key that is not printable ASCII', async () => {
    const response = await createSwap(aliceToken, valid(), { 'idempotency-key': 'has space' });
    expectProblem(response, 400, 'validation_error');
  });

  it("answers 403 when walletAddress is not the token's party", async () => {
    const response = await createSwap(aliceToken, { ...valid(), walletAddress: bob.partyId });
    expectProblem(response, 403, 'wallet_party_mismatch');
  });
});

describe('POST /v1/swaps: creating an intent', () => {
  it('creates a pending intent priced as quoted, payable to the pool swap party', async () => {
    const { party, token } = await newParty('create');
    const quoted = await t.service.ctx.quoter.quote(
      { from: 'Amulet', to: 'USDCx', amount: '250', poolId: canonical.poolId },
      { apiKeyId: null, walletParty: party.partyId },
    );
    const response = await createSwap(token, {
      ...amuletToUsdcx('250'),
      slippageTolerance: 0.01,
      walletAddress: party.partyId,
      outputAddress: bob.partyId,
    });
    expect(response.status).toBe(201);
    const intent = response.body;
    const { quote } = quoted;
    expect(intent).toMatchObject({
      poolId: canonical.poolId,
      status: 'pending',
      depositAddress: canonical.swapParty,
      swapAddress: canonical.swapParty,
      inputToken: 'Amulet',
      inputTokenAdmin: canonical.tokenA.admin,
      outputToken: 'USDCx',
      outputTokenAdmin: canonical.tokenB.admin,
      expectedAmount: '250',
      quotedSwapAmount: '250',
      totalInputAmount: '250',
      networkFeeAmount: quote.networkFeeAmount,
      trafficFeeInInput: quote.networkFeeAmount,
      poolFeeAmount: quote.poolFeeAmount,
      lpFeeAmount: quote.lpFeeAmount,
      platformFeeAmount: quote.platformFeeAmount,
      inputAmountAfterPoolFee: quote.inputAmountAfterPoolFee,
      expectedOutput: quote.outputAmount,
      slippageTolerance: 0.01,
      // The deprecated outputAddress is ignored: the output goes to the depositor.
      outputAddress: party.partyId,
    });
    const expected = Amount.parse(intent.expectedOutput);
    expect(intent.minOutput).toBe(expected.mulDiv(99n, 100n, 'down').toString());
    const parts = ['networkFeeAmount', 'poolFeeAmount', 'inputAmountAfterPoolFee'];
    expect(Amount.sum(parts.map((field) => Amount.parse(intent[field]))).toString()).toBe('250');
    expect(intent.depositReference).toMatch(/^pp-[0-9A-HJKMNP-TV-Z]{13}$/);
    expect(Date.parse(intent.expiresAt) - Date.parse(intent.createdAt)).toBe(DAY_MS);
    expect(intent.instructions).toMatchObject({
      transferTo: canonical.swapParty,
      amount: '250',
      token: 'Amulet',
      tokenAdmin: canonical.tokenA.admin,
      reason: intent.depositReference,
      expiresAt: intent.expiresAt,
    });
    expect(intent.instructions.note).toContain('splice.lfdecentralizedtrust.org/reason');
  });

  it('defaults the slippage tolerance to 0.05', async () => {
    const { token } = await newParty('default-slippage');
    const response = await createSwap(token, amuletToUsdcx('40'));
    expect(response.status).toBe(201);
    expect(response.body.slippageTolerance).toBe(0.05);
    const expected = Amount.parse(response.body.expectedOutput);
    expect(response.body.minOutput).toBe(expected.mulDiv(95n, 100n, 'down').toString());
  });

  it('answers 409 with the pending intent when the party has one for the pool and input', async () => {
    const { token } = await newParty('guard');
    const first = await createSwap(token, amuletToUsdcx('100'));
    expect(first.status).toBe(201);
    const second = await createSwap(token, amuletToUsdcx('120'));
    expectProblem(second, 409, 'active_intent_exists');
    expect(second.body.intentId).toBe(first.body.intentId);
    // The other direction of the same pool is another input: allowed.
    const reverse = await createSwap(token, {
      fromToken: 'USDCx',
      toToken: 'Amulet',
      amount: '20',
      poolId: canonical.poolId,
    });
    expect(reverse.status).toBe(201);
    // Once the first is cancelled, the same pool and input are free again.
    expect((await cancel(token, first.body.intentId)).status).toBe(200);
    expect((await createSwap(token, amuletToUsdcx('120'))).status).toBe(201);
  });

  it('answers 409 with candidates for a pair that several pools could mean', async () => {
    const response = await createSwap(aliceToken, {
      fromToken: 'Amulet',
      toToken: 'USDCx',
      amount: '100',
    });
    expectProblem(response, 409, 'ambiguous_pool_pair');
    const poolIds = response.body.candidates.map((c: Body) => c.poolId).sort();
    expect(poolIds).toEqual([canonical.poolId, bridged.poolId].sort());
  });

  it('answers 400 amount_below_minimum with the minimum for a deposit that does not cover the fee', async () => {
    const response = await createSwap(aliceToken, amuletToUsdcx('0.0000000001'));
    expectProblem(response, 400, 'amount_below_minimum');
    expect(Amount.parse(response.body.minimumAmount).gt(Amount.parse('0.0000000001'))).toBe(true);
  });

  it('answers 400 settlement_safety with the guard verdict, and creates nothing', async () => {
    const { party, token } = await newParty('huge');
    // 15 % of the USDCx reserve: above the 10 % share limit, below the 25 % hourly velocity.
    const response = await createSwap(token, amuletToUsdcx('180000'));
    expectProblem(response, 400, 'settlement_safety');
    expect(response.body.settlementSafety).toMatchObject({
      code: 'output_reserve_share_exceeded',
      reason: expect.any(String),
      message: expect.any(String),
    });
    expect((await track(token, party.partyId)).body.swaps).toEqual([]);
  });

  it('refuses a swap that would move the price beyond the band, naming the deviation, and takes the way back', async () => {
    const { party, token } = await newParty('mover');
    // 40 000 Amulet moves the devnet pool's price about 8 %; the band is 5 %.
    const response = await createSwap(token, amuletToUsdcx('40000'));
    expectProblem(response, 400, 'settlement_safety');
    expect(response.body.settlementSafety).toMatchObject({
      code: 'reserve_price_deviation_exceeded',
      limit: '0.05',
      reason: expect.stringMatching(/^deviation=0\.08\d* limit=0\.05$/),
    });
    expect(response.body.detail).toContain('beyond the 5% limit');
    expect((await track(token, party.partyId)).body.swaps).toEqual([]);
    const back = await createSwap(token, {
      fromToken: 'USDCx',
      toToken: 'Amulet',
      amount: '1000',
      poolId: canonical.poolId,
    });
    expect(back.status).toBe(201);
  });

  it('answers 400 price_impact_exceeded beyond the pool cap, and creates nothing', async () => {
    const { party, token } = await newParty('impact');
    const { ctx } = t.service;
    // Any impact above 10 % is also a reserve share above the guard's 10 %, so the cap of the
    // test pool is lowered to 1 % and a 2 %-impact trade is used.
    await ctx.db.query("UPDATE pools SET price_impact_cap = '0.01' WHERE pool_id = $1", [
      bridged.poolId,
    ]);
    ctx.quoter.invalidate(bridged.poolId);
    try {
      const response = await createSwap(token, {
        fromToken: 'Amulet',
        toToken: 'USDCx',
        amount: '8200',
        poolId: bridged.poolId,
      });
      expectProblem(response, 400, 'price_impact_exceeded');
      expect((await track(token, party.partyId)).body.swaps).toEqual([]);
    } finally {
      await ctx.db.query('UPDATE pools SET price_impact_cap = NULL WHERE pool_id = $1', [
        bridged.poolId,
      ]);
      ctx.quoter.invalidate(bridged.poolId);
    }
  });
});

describe('POST /v1/swaps: Idempotency-Key', () => {
  it('replays the first response for the same key and body, creating one intent', async () => {
    const { party, token } = await newParty('idem');
    const key = { 'idempotency-key': 'create-1' };
    const first = await createSwap(token, amuletToUsdcx('70'), key);
    expect(first.status).toBe(201);
    // The same request with keys reordered and the default slippage spelt out.
    const { poolId, ...rest } = amuletToUsdcx('70');
    const again = await createSwap(token, { slippageTolerance: 0.05, poolId, ...rest }, key);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const listed = await track(token, party.partyId);
    expect(listed.body.swaps.map((s: Body) => s.intentId)).toEqual([first.body.intentId]);
  });

  it('answers 422 for the same key with another body, or for another wallet party', async () => {
    const { token } = await newParty('idem-reuse');
    const key = { 'idempotency-key': 'create-2' };
    expect((await createSwap(token, amuletToUsdcx('70'), key)).status).toBe(201);
    const changed = await createSwap(token, amuletToUsdcx('71'), key);
    expectProblem(changed, 422, 'idempotency_key_reused');
    const otherWallet = await createSwap(bobToken, amuletToUsdcx('70'), key);
    expectProblem(otherWallet, 422, 'idempotency_key_reused');
  });

  it('creates one intent when duplicates race, answering each either with it or 409', async () => {
    const { party, token } = await newParty('idem-race');
    const key = { 'idempotency-key': 'create-3' };
    const answers = await Promise.all(
      [1, 2, 3].map(() => createSwap(token, amuletToUsdcx('75'), key)),
    );
    const created = answers.filter((a) => a.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    for (const answer of created) expect(answer.body).toEqual(created[0]?.body);
    for (const answer of answers.filter((a) => a.status !== 201)) {
      expectProblem(answer, 409, 'idempotency_key_in_use');
    }
    const listed = await track(token, party.partyId);
    expect(listed.body.swaps).toHaveLength(1);
  });

  it('keeps keys apart per request without a key: the active-intent guard still applies', async () => {
    const { token } = await newParty('idem-none');
    expect((await createSwap(token, amuletToUsdcx('70'))).status).toBe(201);
    expectProblem(await createSwap(token, amuletToUsdcx('70')), 409, 'active_intent_exists');
  });
});

describe('status and cancel', () => {
  let intentId: string;
  let owner: { party: DevnetParty; token: string };

  beforeAll(async () => {
    owner = await newParty('status');
    const created = await createSwap(owner.token, amuletToUsdcx('90'));
    expect(created.status).toBe(201);
    intentId = created.body.intentId;
  });

  it('answers the status of a pending intent with its history', async () => {
    const response = await call('GET', `/v1/swaps/${intentId}`, { walletToken: owner.token });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      intentId,
      poolId: canonical.poolId,
      status: 'pending',
      terminal: false,
      expectedAmount: '90',
      actualOutput: null,
      matchedAt: null,
      completedAt: null,
      failureReason: null,
      deposit: null,
      payout: null,
      refund: null,
      outputAddress: owner.party.partyId,
    });
    expect(response.body.history).toEqual([{ status: 'pending', at: response.body.createdAt }]);
  });

  it("answers 404 for another party's intent and for an unknown one", async () => {
    const path = `/v1/swaps/${intentId}`;
    expectProblem(await call('GET', path, { walletToken: bobToken }), 404, 'not_found');
    expectProblem(await cancel(bobToken, intentId), 404, 'not_found');
    const unknown = await call('GET', '/v1/swaps/swp_unknown', { walletToken: owner.token });
    expectProblem(unknown, 404, 'not_found');
    expectProblem(
      await call('GET', '/v1/swaps/not%20an%20id', { walletToken: owner.token }),
      400,
      'validation_error',
    );
  });

  it('shows any swap to whoever has its id, without the parties, with the API key alone', async () => {
    const answer = await call('GET', `/v1/swaps/${intentId}/progress`);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      intentId,
      poolId: canonical.poolId,
      status: 'pending',
      expectedAmount: '90',
    });
    for (const hidden of ['outputAddress', 'depositAddress', 'depositReference']) {
      expect(answer.body).not.toHaveProperty(hidden);
    }
    expect(JSON.stringify(answer.body)).not.toContain(owner.party.partyId);
    expectProblem(await call('GET', '/v1/swaps/swp_unknown/progress'), 404, 'not_found');
    expectProblem(
      await call('GET', `/v1/swaps/${intentId}/progress`, { apiKey: null }),
      401,
      'missing_api_key',
    );
  });

  it('cancels a pending intent once; a second cancel is 409', async () => {
    const first = await cancel(owner.token, intentId);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ intentId, status: 'cancelled' });
    const second = await cancel(owner.token, intentId);
    expectProblem(second, 409, 'intent_not_cancellable');
    expect(second.body.intentStatus).toBe('cancelled');
    const status = await call('GET', `/v1/swaps/${intentId}`, { walletToken: owner.token });
    expect(status.body).toMatchObject({ status: 'cancelled', terminal: true });
    expect(status.body.history.map((h: Body) => h.status)).toEqual(['pending', 'cancelled']);
  });

  it('shows the facts of later stages as the engine records them', async () => {
    const created = await createSwap(owner.token, amuletToUsdcx('95'));
    const id = created.body.intentId;
    const at = t.service.ctx.clock.now();
    const deposit = { amount: Amount.parse('95'), updateId: 'update-1', receivedAt: at };
    await transitionIntent(t.service.ctx.db, {
      intentId: id,
      from: 'pending',
      to: 'matched',
      at,
      deposit,
    });
    const status = await call('GET', `/v1/swaps/${id}`, { walletToken: owner.token });
    expect(status.body).toMatchObject({
      status: 'matched',
      terminal: false,
      matchedAt: at.toISOString(),
      deposit: { amount: '95', updateId: 'update-1', receivedAt: at.toISOString() },
    });
    expect(status.body.history.map((h: Body) => h.status)).toEqual(['pending', 'matched']);
    expectProblem(await cancel(owner.token, id), 409, 'intent_not_cancellable');
  });
});

describe('GET /v1/track/{partyId}', () => {
  let owner: { party: DevnetParty; token: string };
  const createdIds: string[] = [];

  beforeAll(async () => {
    owner = await newParty('track');
    const trades = [
      { fromToken: 'Amulet', toToken: 'USDCx', amount: '100', poolId: canonical.poolId },
      { fromToken: 'USDCx', toToken: 'Amulet', amount: '20', poolId: canonical.poolId },
      { fromToken: 'Amulet', toToken: 'USDCx', amount: '100', poolId: bridged.poolId },
      { fromToken: 'Amulet', toToken: 'CBTC', amount: '100', poolId: cbtcPool.poolId },
      { fromToken: 'CBTC', toToken: 'Amulet', amount: '0.001', poolId: cbtcPool.poolId },
    ];
    for (const trade of trades) {
      const created = await createSwap(owner.token, trade);
      expect(created.status).toBe(201);
      createdIds.push(created.body.intentId);
    }
    // A cancelled one, and a fresh one on the same pool and input.
    const first = createdIds[0] as string;
    expect((await cancel(owner.token, first)).status).toBe(200);
    const again = await createSwap(owner.token, trades[0] as Record<string, unknown>);
    expect(again.status).toBe(201);
    createdIds.push(again.body.intentId);
  });

  it('pages through every swap of the party, newest first, without repeats', async () => {
    const swaps = await trackAll(owner.token, owner.party.partyId, 2);
    expect(swaps.map((s) => s.intentId).sort()).toEqual([...createdIds].sort());
    const created = swaps.map((s) => Date.parse(s.createdAt));
    expect(created).toEqual([...created].sort((a, b) => b - a));
    expect(swaps.every((s) => Array.isArray(s.history) && s.history.length >= 1)).toBe(true);
  });

  it('filters by status', async () => {
    const cancelled = await track(owner.token, owner.party.partyId, '?status=cancelled');
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.swaps.map((s: Body) => s.intentId)).toEqual([createdIds[0]]);
    expect(cancelled.body.swaps[0].history.map((h: Body) => h.status)).toEqual([
      'pending',
      'cancelled',
    ]);
    expect(cancelled.body.nextCursor).toBeNull();
  });

  it("lists only swaps created through this API key's developer", async () => {
    const { ctx } = t.service;
    const now = ctx.clock.now();
    const otherDeveloper = `other-dev::1220${'e'.repeat(64)}`;
    await upsertDeveloper(ctx.db, otherDeveloper, now);
    await insertApiKey(ctx.db, {
      keyId: 'key_other_developer',
      developerParty: otherDeveloper,
      name: 'other',
      keyHash: 'f'.repeat(64),
      prefix: 'pp_test_othe',
      environment: 'devnet',
      createdAt: now,
    });
    const foreign = await insertIntent(ctx.db, {
      intentId: 'swp_foreign_developer',
      poolId: bridged.poolId,
      apiKeyId: 'key_other_developer',
      developerParty: otherDeveloper,
      walletParty: owner.party.partyId,
      depositAddress: bridged.swapParty,
      depositReference: 'pp-FOREIGN0000000',
      inputToken: 'USDCx',
      inputTokenAdmin: bridged.tokenB.admin,
      outputToken: 'Amulet',
      outputTokenAdmin: bridged.tokenA.admin,
      expectedAmount: Amount.parse('10'),
      quotedSwapAmount: Amount.parse('10'),
      networkFeeAmount: Amount.parse('1'),
      poolFeeAmount: Amount.parse('0.027'),
      lpFeeAmount: Amount.parse('0.02025'),
      platformFeeAmount: Amount.parse('0.00675'),
      inputAmountAfterPoolFee: Amount.parse('8.973'),
      expectedOutput: Amount.parse('60'),
      minOutput: Amount.parse('57'),
      slippageTolerance: 0.05,
      networkFeePolicy: null,
      platformFeePolicy: null,
      outputAddress: owner.party.partyId,
      createdAt: now,
      expiresAt: new Date(now.getTime() + DAY_MS),
    });
    const swaps = await trackAll(owner.token, owner.party.partyId, 100);
    expect(swaps.map((s) => s.intentId)).not.toContain(foreign.intentId);
    expect(swaps).toHaveLength(createdIds.length);
    // The party still sees its own intent by id, whichever integration created it.
    const direct = await call('GET', `/v1/swaps/${foreign.intentId}`, { walletToken: owner.token });
    expect(direct.status).toBe(200);
  });

  it("answers 403 for another party's list", async () => {
    expectProblem(await track(aliceToken, bob.partyId), 403, 'wallet_party_mismatch');
  });

  it.each([
    ['a cursor it did not issue', '?cursor=bm90LWEtY3Vyc29y'],
    ['limit 0', '?limit=0'],
    ['limit 101', '?limit=101'],
    ['an unknown status', '?status=done'],
    ['an unknown parameter', '?page=2'],
  ])('answers 400 for %s', async (_name, query) => {
    expectProblem(await track(owner.token, owner.party.partyId, query), 400, 'validation_error');
  });
});
