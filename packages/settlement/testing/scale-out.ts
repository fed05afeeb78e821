/**
 * Many swaps against one store, for the scale-out suites: the devnet pools registered in a store,
 * funded parties, and pending intents priced against the pool's books as `POST /v1/swaps` would.
 * The engine harness stands on the same pieces.
 */
import { randomUUID } from 'node:crypto';
import {
  Amount,
  type Instrument,
  minOutput,
  openingLiquidity,
  type PoolSideName,
  priceTrade,
  sameInstrument,
} from '@poolparty/core';
import {
  type DevnetSeed,
  type LedgerPort,
  type LedgerUpdate,
  type LocalLedger,
  REASON_META_KEY,
} from '@poolparty/ledger';
import {
  getPool,
  type IntentRecord,
  insertApiKey,
  insertIntent,
  insertPool,
  listPools,
  type Queryable,
  upsertDeveloper,
} from '@poolparty/store';
import { readPriceBook } from '../src/prices.js';

export const SCALE_OUT_API_KEY_ID = 'key_scale_out';

function opening(pool: DevnetSeed['pools'][number]) {
  return openingLiquidity(pool.reserves.tokenA, pool.reserves.tokenB);
}

/** Registers the seeded pools, the developer and an API key, as the devnet bootstrap does. */
export async function registerSeed(q: Queryable, seed: DevnetSeed, now: Date): Promise<void> {
  await registerSeedPools(q, seed, now);
  await registerApiKey(q, seed.developer.partyId, now);
}

/** The seeded pools at their seeded reserves, the developer holding each opening position. */
export async function registerSeedPools(q: Queryable, seed: DevnetSeed, now: Date): Promise<void> {
  for (const pool of seed.pools) {
    await insertPool(q, {
      poolId: pool.poolId,
      tokenA: pool.tokenA,
      tokenB: pool.tokenB,
      swapParty: pool.swapParty,
      lpParty: pool.lpParty,
      feeBps: pool.feeBps,
      lpSupply: opening(pool).supply,
      reserveA: pool.reserves.tokenA,
      reserveB: pool.reserves.tokenB,
      createdAt: now,
      openingPosition: {
        providerParty: seed.developer.partyId,
        units: opening(pool).ownerUnits,
      },
    });
  }
}

/** The developer and the API key the intents of these suites are created under. */
export async function registerApiKey(q: Queryable, developerParty: string, now: Date) {
  await upsertDeveloper(q, developerParty, now);
  await insertApiKey(q, {
    keyId: SCALE_OUT_API_KEY_ID,
    developerParty,
    name: 'scale-out tests',
    keyHash: 'b'.repeat(64),
    prefix: 'pp_test_bbbb',
    environment: 'devnet',
    createdAt: now,
  });
}

let partiesMade = 0;

/** `count` new parties pre-approving `preapprovals`, each holding `amount` of `funded`. */
export async function fundedParties(
  ledger: LocalLedger,
  count: number,
  preapprovals: readonly Instrument[],
  funded: Instrument,
  amount: string,
): Promise<string[]> {
  const parties: string[] = [];
  for (let i = 0; i < count; i++) {
    partiesMade += 1;
    const { partyId } = await ledger.createParty({ hint: `trader-${partiesMade}`, preapprovals });
    await ledger.mint({ owner: partyId, instrument: funded, amount: Amount.parse(amount) });
    parties.push(partyId);
  }
  return parties;
}

export interface IntentRequest {
  readonly poolId: string;
  readonly party: string;
  readonly input: Instrument;
  readonly amount: string;
  readonly developerParty: string;
  readonly now: Date;
  /** 5 % unless given. */
  readonly slippageTolerance?: number;
  /** A day unless given. */
  readonly validityMs?: number;
}

/** A pending intent priced against the pool's current books, as `POST /v1/swaps` would. */
export async function createPricedIntent(
  q: Queryable,
  ledger: LedgerPort,
  request: IntentRequest,
): Promise<IntentRecord> {
  const record = await getPool(q, request.poolId);
  if (!record) throw new Error(`no pool ${request.poolId}`);
  const inputSide: PoolSideName = sameInstrument(record.tokenA, request.input)
    ? 'tokenA'
    : 'tokenB';
  const output = inputSide === 'tokenA' ? record.tokenB : record.tokenA;
  const round = await ledger.openMiningRound();
  const traffic = await ledger.trafficParameters();
  const prices = await readPriceBook(ledger, await listPools(q), request.now);
  const inputPriceUsd = prices.usdPrice(request.input);
  if (!inputPriceUsd) throw new Error('no USD price');
  const trade = priceTrade({
    pool: {
      poolId: record.poolId,
      tokenA: { instrument: record.tokenA, reserve: record.accounting.reserveA },
      tokenB: { instrument: record.tokenB, reserve: record.accounting.reserveB },
      feeBps: record.feeBps,
      status: record.status,
    },
    inputSide,
    amount: Amount.parse(request.amount),
    traffic: {
      bytes: traffic.transferBytes,
      extraTrafficPriceUsdPerMb: traffic.extraTrafficPriceUsdPerMb,
      amuletPriceUsd: round.amuletPriceUsd,
    },
    inputPriceUsd,
  });
  if (trade.kind !== 'priced') throw new Error(`amount ${request.amount} is below the minimum`);
  const tolerance = request.slippageTolerance ?? 0.05;
  const intentId = `swp_${randomUUID().replaceAll('-', '').slice(0, 20)}`;
  return insertIntent(q, {
    intentId,
    poolId: record.poolId,
    apiKeyId: SCALE_OUT_API_KEY_ID,
    developerParty: request.developerParty,
    walletParty: request.party,
    depositAddress: record.swapParty,
    depositReference: `pp-${intentId.slice(4, 17)}`,
    inputToken: request.input.id,
    inputTokenAdmin: request.input.admin,
    outputToken: output.id,
    outputTokenAdmin: output.admin,
    expectedAmount: trade.fees.amount,
    quotedSwapAmount: trade.fees.amount,
    networkFeeAmount: trade.fees.networkFeeAmount,
    poolFeeAmount: trade.fees.poolFeeAmount,
    lpFeeAmount: trade.fees.lpFeeAmount,
    platformFeeAmount: trade.fees.platformFeeAmount,
    inputAmountAfterPoolFee: trade.fees.inputAmountAfterPoolFee,
    expectedOutput: trade.outputAmount,
    minOutput: minOutput(trade.outputAmount, tolerance),
    slippageTolerance: tolerance,
    networkFeePolicy: null,
    platformFeePolicy: null,
    outputAddress: request.party,
    createdAt: request.now,
    expiresAt: new Date(request.now.getTime() + (request.validityMs ?? 24 * 60 * 60_000)),
  });
}

/** The wallet's deposit: `amount` to the swap party, with the intent's reference. */
export function depositFor(ledger: LedgerPort, intent: IntentRecord, input: Instrument) {
  return ledger.submitTransfer({
    commandId: `wallet-${randomUUID()}`,
    sender: intent.walletParty,
    receiver: intent.depositAddress,
    instrument: input,
    amount: intent.expectedAmount,
    meta: { [REASON_META_KEY]: intent.depositReference },
  });
}

/** Every committed update so far, in order. */
export async function allUpdates(ledger: LedgerPort): Promise<LedgerUpdate[]> {
  const end = await ledger.ledgerEnd();
  const updates: LedgerUpdate[] = [];
  if (end === 0) return updates;
  const controller = new AbortController();
  for await (const update of ledger.updates(0, { signal: controller.signal })) {
    updates.push(update);
    if (update.offset >= end) break;
  }
  controller.abort();
  return updates;
}

/** How many transfers carry each reason (`payout:<intentId>`, `refund:<intentId>`). */
export function transfersByReason(updates: readonly LedgerUpdate[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const update of updates) {
    for (const event of update.events) {
      const reason = event.kind === 'transfer' ? event.meta[REASON_META_KEY] : undefined;
      if (reason !== undefined) counts.set(reason, (counts.get(reason) ?? 0) + 1);
    }
  }
  return counts;
}
