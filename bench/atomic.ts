/**
 * Atomic swaps on the embedded ledger (docs/spec/atomic-swaps.md): the real service on embedded
 * PGlite and the devnet ledger (what `npm start` runs), driven over HTTP as a wallet drives it.
 *
 * - The baseline, in the same run on the same service: the deposit flow's lone swap, deposit →
 *   `completed`, one at a time, as idle-swap.ts measures it (ledger clock at the deposit, the
 *   `completed` event's time).
 * - Prepare: `POST /v1/atomic-swaps` answered (201), one at a time, on the seeded pool.
 * - Signature accepted → `completed`: `POST /v1/atomic-swaps/{id}/execute` answered with the
 *   swap `completed` (the check, the ledger's commit of both legs and the books, in the request).
 * - The burst: 200 swaps prepared at once on one pool, then all 200 signed and sent at once; the
 *   time from the first signature sent to the last `completed` answer. The seeded pools hold
 *   8 holdings of each token, and two live swaps never name one holding: a burst there is refused
 *   `pool_holdings_busy` past the eighth, which the run reports. The target's burst runs on a
 *   pool of the bench's own whose output is 250 holdings, its books equal to them.
 *
 * Beside each latency, this process's CPU time per operation (the service and the bench's client
 * share it). The first swaps of each kind warm up (the first atomic swap loads the devnet
 * ledger's interactive submission) and are not counted.
 *
 *   node --import tsx bench/atomic.ts [--quick]   (--quick: 10 lone swaps, a burst of 50)
 */
import { createPrivateKey, sign as nodeSign, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Amount, fingerprint, generateKeyPair } from '@poolparty/core';
import type { RunningService } from '@poolparty/server';
import {
  createPricedIntent,
  depositFor,
  fundedParties,
  registerApiKey,
} from '@poolparty/settlement/testing';
import { getPool, insertPool, type PoolRecord } from '@poolparty/store';
import { createSchema, dropSchema, postgresSkipReason, schemaUrl } from '@poolparty/store/testing';
import {
  ATOMIC_BURST_SWAPS,
  ATOMIC_BURST_TARGET_MS,
  ATOMIC_EXECUTE_TARGET_MS,
  ATOMIC_PREPARE_TARGET_MS,
  type BurstFigures,
  meetsBurstTarget,
  meetsExecuteTarget,
  meetsPrepareTarget,
  type PhaseFigures,
  phaseFigures,
  ratioToBaseline,
} from './atomic-figures.js';
import { completedAtOf } from './idle-swap.js';
import { startQuietService, unthrottle } from './quotes.js';
import { isMain, table } from './report.js';
import { DEPOSIT } from './settlement.js';

/** Lone swaps of each kind: enough that a p99 is not the slowest one alone. */
const LONE_SWAPS = 200;
const QUICK_LONE_SWAPS = 10;
const QUICK_BURST_SWAPS = 50;
/**
 * Swaps of each kind run first and not counted: a service that has swapped for a while, whose
 * code V8 has compiled optimised. With 3, the first of 200 lone atomic swaps measured were the
 * first of their code's calls, and a run's p99 fell by 3–7 ms from its first 200 to the next
 * (PGlite, 2026-12-07): the lone phases measure a warm service, not its first minute.
 */
const WARM_UP_SWAPS = 50;
const SEEDED_POOL_ID = 'amulet-usdcx';
const BENCH_POOL_ID = 'bench-atomic';
/** The bench pool's output holdings: more than the burst's swaps, so none lacks one. */
const BENCH_POOL_OUTPUT_HOLDINGS = 250;
/** The bench pool's reserves: the seeded Amulet/USDCx pool's. */
const BENCH_POOL_RESERVE_AMULET = Amount.of(1_000_000);
const BENCH_POOL_RESERVE_USDCX = Amount.of(145_000);
/** Amulet per atomic swap; a burst's trader holds twice that per swap, one holding each. */
const SWAP_AMULET = '10';
const BURST_HOLDING_AMULET = Amount.of(20);
/** The lone swaps' trader: one holding, spent and changed by each swap in turn. */
const LONE_HOLDING_AMULET = Amount.of(10_000);
/** The quoter re-reads the pools every second; the bench pool is quoted after that. */
const POOLS_REREAD_MS = 1_500;
/** A deposit-flow swap that has not completed by then is reported as not completed. */
const SWAP_WAIT_MS = 10_000;
/** How often a deposit-flow swap's completion is looked for; its time is read from the store. */
const POLL_MS = 2;

export interface AtomicRun {
  readonly store: string;
  /** The deposit flow's lone swap: deposit → completed. */
  readonly baseline: PhaseFigures;
  readonly prepare: PhaseFigures;
  readonly execute: PhaseFigures;
  readonly lone: number;
  /** On the seeded pool: how far its holdings let a burst go. */
  readonly seededBurst: BurstFigures;
  /** On the bench pool, the target's burst. */
  readonly burst: BurstFigures;
}

export interface AtomicBench {
  /** On PGlite (what `npm start` runs) and, when it answers, on PostgreSQL. */
  readonly runs: readonly AtomicRun[];
  readonly skipped: string | null;
}

interface Trader {
  readonly partyId: string;
  readonly publicKey: Uint8Array;
  /** Signs a prepared transaction's hash with the trader's key. */
  readonly signHash: (hash: Uint8Array) => Uint8Array;
  readonly token: string;
  /** Its unlocked Amulet holdings, one per swap of a burst. */
  readonly holdingIds: readonly string[];
}

const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

/** PKCS #8's wrapping of a raw Ed25519 private key (RFC 8410). */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/**
 * The wallet's signer, with Node's Ed25519. A wallet signs in a process of its own; the bench's
 * shares the service's heap, and core's portable signer allocates some 370 kB a signature, which
 * the service's garbage collector would pay in the phases measured. The signature is the same:
 * Ed25519 is deterministic.
 */
function nodeSigner(privateKey: Uint8Array): (hash: Uint8Array) => Uint8Array {
  const key = createPrivateKey({
    key: Buffer.concat([ED25519_PKCS8_PREFIX, privateKey]),
    format: 'der',
    type: 'pkcs8',
  });
  return (hash) => new Uint8Array(nodeSign(null, hash, key));
}

function ledgerOf(service: RunningService) {
  const ledger = service.ctx.devnetLedger;
  if (ledger === null) throw new Error('the bench needs the embedded devnet ledger');
  return ledger;
}

async function poolOf(service: RunningService, poolId: string): Promise<PoolRecord> {
  const pool = await getPool(service.ctx.db, poolId);
  if (pool === null) throw new Error(`no pool ${poolId}`);
  return pool;
}

/** An external party with its own key, pre-approving everything, holding `holdings` × `each` Amulet. */
async function newTrader(service: RunningService, holdings: number, each: Amount): Promise<Trader> {
  const ledger = ledgerOf(service);
  const amulet = (await poolOf(service, SEEDED_POOL_ID)).tokenA;
  const keys = generateKeyPair();
  const { partyId } = await ledger.createParty({
    hint: 'bench-atomic-trader',
    publicKey: keys.publicKey,
    preapprovals: 'all',
  });
  for (let n = 0; n < holdings; n++) {
    await ledger.mint({ owner: partyId, instrument: amulet, amount: each });
  }
  const holdingIds = (await ledger.getHoldings(partyId)).map((h) => h.holdingId);
  // The token `/v1/wallet-auth/verify` would issue once the wallet signed its challenge.
  const { token } = await service.ctx.walletTokens.issue(partyId, service.ctx.clock.now());
  return {
    partyId,
    publicKey: keys.publicKey,
    signHash: nodeSigner(keys.privateKey),
    token,
    holdingIds,
  };
}

/**
 * A pool of the bench's own with the seeded pool's tokens and reserves, its USDCx in
 * `outputHoldings` holdings, its books equal to them from the ledger's end on.
 */
async function benchPool(service: RunningService, outputHoldings: number): Promise<void> {
  const ledger = ledgerOf(service);
  const seeded = await poolOf(service, SEEDED_POOL_ID);
  const [amulet, usdcx] = [seeded.tokenA, seeded.tokenB];
  const swap = await ledger.createParty({ hint: BENCH_POOL_ID, preapprovals: [amulet, usdcx] });
  const lp = await ledger.createParty({ hint: `${BENCH_POOL_ID}-lp`, preapprovals: [amulet] });
  await ledger.mint({ owner: swap.partyId, instrument: amulet, amount: BENCH_POOL_RESERVE_AMULET });
  const each = BENCH_POOL_RESERVE_USDCX.mulDiv(1n, BigInt(outputHoldings), 'down');
  let left = BENCH_POOL_RESERVE_USDCX;
  for (let n = 1; n < outputHoldings; n++) {
    await ledger.mint({ owner: swap.partyId, instrument: usdcx, amount: each });
    left = left.sub(each);
  }
  await ledger.mint({ owner: swap.partyId, instrument: usdcx, amount: left });
  await insertPool(service.ctx.db, {
    poolId: BENCH_POOL_ID,
    tokenA: amulet,
    tokenB: usdcx,
    swapParty: swap.partyId,
    lpParty: lp.partyId,
    lpSupply: Amount.of(1_000),
    reserveA: BENCH_POOL_RESERVE_AMULET,
    reserveB: BENCH_POOL_RESERVE_USDCX,
    createdAt: service.ctx.clock.now(),
    booksFromOffset: await ledger.ledgerEnd(),
  });
  await sleep(POOLS_REREAD_MS);
}

interface Answer {
  readonly status: number;
  // biome-ignore lint/suspicious/noExplicitAny: the service's JSON answer, read as the wire has it.
  readonly body: any;
  readonly ms: number;
}

/**
 * Tries of a request whose connection broke: a kept-alive connection the service closed as the
 * request went out (its idle timeout, reached while a burst waited) breaks with no answer. Every
 * request carries an idempotency key, so a try again is the same request, as a wallet retries.
 */
const TRIES_MAX = 3;

async function post(
  service: RunningService,
  trader: Trader,
  path: string,
  body: unknown,
): Promise<Answer> {
  const headers = {
    'content-type': 'application/json',
    'x-api-key': service.devnet?.apiKey ?? '',
    authorization: `Bearer ${trader.token}`,
    'idempotency-key': randomUUID(),
  };
  const started = performance.now();
  for (let tried = 1; ; tried++) {
    try {
      const response = await fetch(`${service.url}${path}`, {
        method: 'POST',
        headers,
        body: JSON.stringify(body),
      });
      const answered = await response.json();
      return { status: response.status, body: answered, ms: performance.now() - started };
    } catch (error) {
      if (tried >= TRIES_MAX || !(error instanceof TypeError)) throw error;
    }
  }
}

function prepare(service: RunningService, trader: Trader, poolId: string, holdingId?: string) {
  return post(service, trader, '/v1/atomic-swaps', {
    fromToken: 'Amulet',
    toToken: 'USDCx',
    amount: SWAP_AMULET,
    poolId,
    keyFingerprint: fingerprint(trader.publicKey),
    ...(holdingId !== undefined && { inputHoldingIds: [holdingId] }),
  });
}

/** The wallet signs the prepared hash and sends it. */
function execute(service: RunningService, trader: Trader, swap: Answer['body']) {
  const hash = Buffer.from(swap.preparedTransactionHash, 'base64');
  return post(service, trader, `/v1/atomic-swaps/${swap.atomicSwapId}/execute`, {
    signature: base64(trader.signHash(hash)),
    publicKey: base64(trader.publicKey),
  });
}

function cpuUsSince(start: NodeJS.CpuUsage): number {
  const spent = process.cpuUsage(start);
  return spent.user + spent.system;
}

/** Lone atomic swaps, one after the other: each prepare's and each execute's latency. */
async function loneAtomicSwaps(service: RunningService, trader: Trader, count: number) {
  const prepares: number[] = [];
  const executes: number[] = [];
  let prepareCpuUs = 0;
  let executeCpuUs = 0;
  for (let n = 0; n < WARM_UP_SWAPS + count; n++) {
    const counted = n >= WARM_UP_SWAPS;
    let cpu = process.cpuUsage();
    const prepared = await prepare(service, trader, SEEDED_POOL_ID);
    if (prepared.status !== 201) throw new Error(`prepare: ${JSON.stringify(prepared.body)}`);
    if (counted) prepareCpuUs += cpuUsSince(cpu);
    cpu = process.cpuUsage();
    const done = await execute(service, trader, prepared.body);
    if (done.body.status !== 'completed') throw new Error(`execute: ${JSON.stringify(done.body)}`);
    if (counted) executeCpuUs += cpuUsSince(cpu);
    if (counted) prepares.push(prepared.ms);
    if (counted) executes.push(done.ms);
  }
  return {
    prepare: phaseFigures(prepares, prepareCpuUs),
    execute: phaseFigures(executes, executeCpuUs),
  };
}

/** The deposit flow's lone swaps on the same service, one after the other (idle-swap.ts's way). */
async function loneDeposits(service: RunningService, count: number): Promise<PhaseFigures> {
  const { db, clock } = service.ctx;
  const ledger = ledgerOf(service);
  const pool = await poolOf(service, SEEDED_POOL_ID);
  const developerParty = `bench-atomic-developer::${Date.now().toString(16)}`;
  await registerApiKey(db, developerParty, clock.now());
  const total = WARM_UP_SWAPS + count;
  const parties = await fundedParties(
    ledger,
    total,
    [pool.tokenA, pool.tokenB],
    pool.tokenA,
    DEPOSIT,
  );
  const latencies: number[] = [];
  let cpuUs = 0;
  for (const [n, party] of parties.entries()) {
    const request = { poolId: SEEDED_POOL_ID, party, input: pool.tokenA, amount: DEPOSIT };
    const intent = await createPricedIntent(db, ledger, {
      ...request,
      developerParty,
      now: clock.now(),
    });
    const cpu = process.cpuUsage();
    const submittedMs = clock.now().getTime();
    await depositFor(ledger, intent, pool.tokenA);
    const deadline = Date.now() + SWAP_WAIT_MS;
    let doneMs: number | null = null;
    while (doneMs === null && Date.now() < deadline) {
      doneMs = await completedAtOf(db, intent.intentId);
      if (doneMs === null) await sleep(POLL_MS);
    }
    if (n < WARM_UP_SWAPS || doneMs === null) continue;
    cpuUs += cpuUsSince(cpu);
    latencies.push(doneMs - submittedMs);
  }
  return phaseFigures(latencies, cpuUs);
}

/** `asked` swaps prepared at once on the pool, then every prepared one signed at once. */
async function burst(
  service: RunningService,
  poolId: string,
  asked: number,
): Promise<BurstFigures> {
  const pool = await poolOf(service, poolId);
  const outputHoldings = (await ledgerOf(service).getHoldings(pool.swapParty)).filter(
    (h) => h.instrument.id === pool.tokenB.id && h.instrument.admin === pool.tokenB.admin,
  ).length;
  const trader = await newTrader(service, asked, BURST_HOLDING_AMULET);
  const cpu = process.cpuUsage();
  const preparedAt = performance.now();
  const answers = await Promise.all(
    trader.holdingIds.slice(0, asked).map((id) => prepare(service, trader, poolId, id)),
  );
  const prepareMs = performance.now() - preparedAt;
  const prepared = answers.filter((a) => a.status === 201).map((a) => a.body);
  const holdingsBusy = answers.filter((a) => a.body?.code === 'pool_holdings_busy').length;
  const signedAt = performance.now();
  const ended = await Promise.all(prepared.map((swap) => execute(service, trader, swap)));
  const settleMs = prepared.length === 0 ? Number.NaN : performance.now() - signedAt;
  const completed = ended.filter((a) => a.body.status === 'completed').length;
  return {
    asked,
    prepared: prepared.length,
    holdingsBusy,
    outputHoldings,
    prepareMs,
    completed,
    settleMs,
    cpuUsPerSwap: cpuUsSince(cpu) / Math.max(1, prepared.length),
  };
}

/** One run on a service of its own, on the store `env` names (PGlite unless it names one). */
async function measureOn(
  store: string,
  env: Readonly<Record<string, string>>,
  quick: boolean,
): Promise<AtomicRun> {
  const lone = quick ? QUICK_LONE_SWAPS : LONE_SWAPS;
  const asked = quick ? QUICK_BURST_SWAPS : ATOMIC_BURST_SWAPS;
  const dataDir = mkdtempSync(join(tmpdir(), 'poolparty-bench-atomic-'));
  let service: RunningService | null = null;
  try {
    service = await startQuietService(dataDir, env);
    await unthrottle(service, service.devnet?.apiKey ?? '');
    const baseline = await loneDeposits(service, lone);
    const trader = await newTrader(service, 1, LONE_HOLDING_AMULET);
    const { prepare, execute } = await loneAtomicSwaps(service, trader, lone);
    const seededBurst = await burst(service, SEEDED_POOL_ID, asked);
    await benchPool(service, BENCH_POOL_OUTPUT_HOLDINGS);
    const target = await burst(service, BENCH_POOL_ID, asked);
    return { store, baseline, prepare, execute, lone, seededBurst, burst: target };
  } finally {
    await service?.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function benchAtomic(quick = false): Promise<AtomicBench> {
  const runs = [await measureOn('PGlite', {}, quick)];
  const skipped = await postgresSkipReason('atomic swaps on PostgreSQL');
  if (skipped === null) {
    const schema = await createSchema('pp_bench_atomic');
    try {
      runs.push(await measureOn('PostgreSQL', { DATABASE_URL: schemaUrl(schema) }, quick));
    } finally {
      await dropSchema(schema);
    }
  }
  return { runs, skipped };
}

/** Each target met on every run; the burst's null (not measured) for a smaller burst. */
export function atomicVerdicts(result: AtomicBench) {
  const every = (met: (run: AtomicRun) => boolean) =>
    result.runs.length > 0 && result.runs.every(met);
  const bursts = result.runs.map((run) => meetsBurstTarget(run.burst));
  return {
    prepare: every((run) => meetsPrepareTarget(run.prepare, run.lone)),
    execute: every((run) => meetsExecuteTarget(run.execute, run.lone)),
    burst: bursts.includes(null) || bursts.length === 0 ? null : bursts.every(Boolean),
  };
}

const ms = (n: number) => `${n.toFixed(1)} ms`;
const us = (n: number) => `${n.toFixed(0)} µs`;

/** Per run, the figures of a phase and its p99 against the deposit flow's lone swap. */
export function phaseLine(result: AtomicBench, phase: 'prepare' | 'execute'): string {
  return result.runs
    .map((run) => {
      const figures = run[phase];
      const ratio = ratioToBaseline(figures, run.baseline);
      return `${run.store}: p99 ${ms(figures.p99Ms)} (${ratio.toFixed(2)}× the deposit flow's ${ms(run.baseline.p99Ms)}), CPU ${us(figures.cpuUsPerOp)} per swap`;
    })
    .join('; ');
}

export function burstLine(burst: BurstFigures): string {
  return `${burst.completed}/${burst.asked} completed ${ms(burst.settleMs)} after the first signature; ${burst.prepared} prepared in ${ms(burst.prepareMs)}, ${burst.holdingsBusy} pool_holdings_busy (${burst.outputHoldings} output holdings); CPU ${us(burst.cpuUsPerSwap)} per swap`;
}

/** Per run, the target's burst, and how far the seeded pool's holdings let one go. */
export function burstsLine(result: AtomicBench): string {
  return result.runs
    .map(
      (run) =>
        `${run.store}: ${burstLine(run.burst)}; seeded pool ${run.seededBurst.prepared}/${run.seededBurst.asked} prepared`,
    )
    .join('; ');
}

export function printAtomicBench(result: AtomicBench): void {
  console.log(
    "atomic swaps on the embedded ledger, over HTTP; baseline: the deposit flow's lone swap, same service",
  );
  const row = (run: AtomicRun, name: string, p: PhaseFigures) => [
    `  ${run.store}`,
    name,
    `${p.count}`,
    ms(p.p50Ms),
    ms(p.p99Ms),
    ms(p.maxMs),
    ratioToBaseline(p, run.baseline).toFixed(2),
    us(p.cpuUsPerOp),
  ];
  console.log(
    table([
      ['  store', 'phase', 'swaps', 'p50', 'p99', 'max', 'p99 / baseline', 'CPU per swap'],
      ...result.runs.flatMap((run) => [
        row(run, 'deposit → completed (baseline)', run.baseline),
        row(run, 'prepare', run.prepare),
        row(run, 'signature → completed', run.execute),
      ]),
    ]),
  );
  for (const run of result.runs) {
    console.log(`  ${run.store}, burst on the seeded pool: ${burstLine(run.seededBurst)}`);
    console.log(
      `  ${run.store}, burst on a pool of ${BENCH_POOL_OUTPUT_HOLDINGS} output holdings: ${burstLine(run.burst)}`,
    );
  }
  if (result.skipped !== null) console.log(`  PostgreSQL skipped: ${result.skipped}`);
  const verdicts = atomicVerdicts(result);
  const said = (met: boolean | null) =>
    met === null ? 'not measured (--quick)' : met ? 'met' : 'NOT met';
  console.log(
    `  targets: prepare p99 ≤ ${ATOMIC_PREPARE_TARGET_MS} ms ${said(verdicts.prepare)}; signature → completed p99 ≤ ${ATOMIC_EXECUTE_TARGET_MS} ms ${said(verdicts.execute)}; ${ATOMIC_BURST_SWAPS} at once within ${ATOMIC_BURST_TARGET_MS / 1000} s ${said(verdicts.burst)}`,
  );
}

if (isMain(import.meta.url)) {
  printAtomicBench(await benchAtomic(process.argv.includes('--quick')));
}
