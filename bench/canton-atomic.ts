/**
 * Atomic swaps on the canton path, on the stage of canton.ts (devnet ledger server, one api and
 * two workers with `LEDGER=canton` on PostgreSQL), beside the deposit flow in the same run.
 *
 * A wallet prepares its swap through the API with the SDK (`@poolparty/sdk/atomic`), signs the
 * prepared transaction's hash with its own key and executes it; the bench times signature sent →
 * `completed` as the store announces it, and the swap's one transaction on its own update stream
 * between. A prepare the service refuses (`pool_holdings_busy`: every holding of the pool's output
 * is reserved by a live swap) is counted by its code, and nothing is signed.
 *
 * - lone: one swap at a time, each on an idle deployment, and just before each the ledger's own
 *   time for such a transaction: the bench prepares a transaction of two pre-approved transfers
 *   between two wallets, signs it, and times its execution (canton-timing.ts);
 * - at 50 swaps/s: swaps paced at that rate (each prepared as it is due, then signed), from the
 *   deposit flow's signed-in wallets, one per wallet and pool at a time, each naming an Amulet
 *   holding of its wallet that no other swap of the wallet names (a wallet's swaps from one
 *   holding would all but one be prepared again); the CPU of the api, the workers and their
 *   PostgreSQL sessions per swap over it, printed beside the deposit flow's.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Amount, decodeBase64 } from '@poolparty/core';
import { type AtomicSwapObject, withAtomicSwaps } from '@poolparty/sdk/atomic';
import type { DevnetWallet } from '@poolparty/sdk/devnet';
import { atomicSwapPortOf } from '@poolparty/settlement';
import type { RateFigures } from './canton.js';
import {
  type CpuPerSwap,
  cpuPerSwapLine,
  type DevnetPoolInfo,
  makeWallets,
  PhaseCpu,
  paced,
  progress,
  RATE_WALLETS,
  RATE_WARM_UP_S,
  type Stage,
  swapAmuletOf,
  type Trader,
  tradersOf,
  walletPoolSlots,
} from './canton-stage.js';
import {
  type AtomicOutcome,
  type AtomicPhaseFigures,
  atomicPhaseFigures,
  type Spread,
} from './canton-timing.js';
import { table } from './report.js';

export const ATOMIC_ON_TOP_TARGET_MS = 100;
export const ATOMIC_RATE_TARGET_MS = 250;
export const ATOMIC_RATE_PER_S = 50;

/**
 * What an atomic swap puts in, as a share of its pool's Amulet reserve (25 Amulet in a pool of
 * 1 000 000): half the deposit flow's, since these swaps go the same way as all of the bench's
 * (Amulet in) and the drain, which runs last, must still clear the guard's band.
 */
const ATOMIC_RESERVE_SHARE = { numerator: 1n, denominator: 40_000n };
/** Amulet each leg of the ledger's own like transaction moves. */
const BARE_AMOUNT = Amount.parse('1');
/** How long the bench's own like transaction may wait for its execution. */
const BARE_WINDOW_MS = 60_000;
/** Amulet holdings each wallet of the 50/s phase is given beside its own, one per pool at most. */
const RATE_EXTRA_HOLDINGS = 2;
/** Amulet in each of them: a phase's swaps of the wallet and their fees, with room. */
const RATE_EXTRA_HOLDING_AMULET = '2000';
/** A signed swap not ended by then is counted as not completed. */
const SWAP_WAIT_MS = 15_000;
/** Pause between lone swaps, so each meets an idle deployment. */
const LONE_GAP_MS = 100;

export interface AtomicRateFigures extends AtomicPhaseFigures {
  readonly cpu: CpuPerSwap;
  /** Swaps that completed per second of the measured part of the phase. */
  readonly completedPerS: number;
}

export interface AtomicBench {
  readonly lone: AtomicPhaseFigures | null;
  readonly rate: AtomicRateFigures | null;
}

const codeOf = (error: unknown) => String((error as { code?: unknown }).code ?? 'unknown');

/**
 * Prepares the trader's swap, signs and executes it, and answers its moments once it ended (or
 * the wait did); a refused prepare answers its code. `ledgerMs` is the ledger's own time measured
 * for it, if any.
 */
async function oneAtomicSwap(
  stage: Stage,
  trader: Trader,
  pool: DevnetPoolInfo,
  timing: {
    readonly ledgerMs: number | null;
    /** The wallet's holdings the input leg spends; the ledger picks when absent. */
    readonly inputHoldingIds?: readonly string[];
  },
): Promise<AtomicOutcome> {
  const signer = await trader.wallet.atomicSigner();
  let swap: AtomicSwapObject;
  try {
    swap = await withAtomicSwaps(trader.pp).atomicSwaps.create({
      fromToken: pool.tokenA.id,
      fromAdmin: pool.tokenA.admin,
      toToken: pool.tokenB.id,
      toAdmin: pool.tokenB.admin,
      amount: swapAmuletOf(pool, ATOMIC_RESERVE_SHARE),
      poolId: pool.poolId,
      keyFingerprint: signer.fingerprint,
      ...(timing.inputHoldingIds !== undefined && { inputHoldingIds: timing.inputHoldingIds }),
    });
  } catch (error) {
    return { kind: 'refused', code: codeOf(error) };
  }
  await swap.verify();
  const signed = Date.now();
  // An execute that fails is seen in how the swap ends, as the store announces it.
  await swap.execute(signer).catch(() => undefined);
  await stage.observer.completion(swap.atomicSwapId, SWAP_WAIT_MS);
  const moments = stage.observer.atomicMomentsOf(swap.atomicSwapId, signed, timing.ledgerMs);
  return { kind: 'signed', moments };
}

/**
 * The ledger's own time for an atomic swap's transaction: the bench prepares two pre-approved
 * transfers between `trader` and `counterparty` (1 Amulet each way) through the JSON Ledger API,
 * the trader signs it, and the execution's round trip is timed. The counterparty's signature is
 * the adapter's, from the wallet's key the bench holds. PoolParty takes no part.
 */
async function ledgerExecutionMs(
  stage: Stage,
  trader: DevnetWallet,
  counterparty: DevnetWallet,
  amulet: DevnetPoolInfo['tokenA'],
): Promise<number> {
  const port = atomicSwapPortOf(stage.ledger);
  if (port === null) throw new Error('the bench ledger prepares no transactions');
  const now = await stage.ledger.now();
  const prepared = await port.prepareAtomicSwap({
    commandId: `bench-like-${randomUUID()}`,
    trader: trader.partyId,
    pool: counterparty.partyId,
    input: { instrument: amulet, amount: BARE_AMOUNT },
    output: { instrument: amulet, amount: BARE_AMOUNT },
    expiresAt: new Date(now.getTime() + BARE_WINDOW_MS),
  });
  const hash = decodeBase64(prepared.preparedTransactionHash) ?? new Uint8Array();
  const signature = await trader.signer.sign(hash);
  const publicKey = decodeBase64(trader.publicKey) ?? new Uint8Array();
  const started = Date.now();
  await port.executeAtomicSwap({ prepared, traderSignature: { signature, publicKey } });
  return Date.now() - started;
}

export async function atomicLonePhase(stage: Stage, swaps: number): Promise<AtomicPhaseFigures> {
  const [trader] = await tradersOf(stage, 'lone', 1);
  const [counterparty] = await makeWallets(stage, 1, 'counterparty');
  const amulet = stage.pools[0]?.tokenA;
  if (!trader || !counterparty || !amulet) throw new Error('no trader or pool');
  const outcomes: AtomicOutcome[] = [];
  for (let i = 0; i < swaps; i += 1) {
    const ledgerMs = await ledgerExecutionMs(stage, trader.wallet, counterparty, amulet);
    const pool = stage.pools[i % stage.pools.length] as DevnetPoolInfo;
    outcomes.push(await oneAtomicSwap(stage, trader, pool, { ledgerMs }));
    await sleep(LONE_GAP_MS);
  }
  return atomicPhaseFigures(outcomes);
}

/**
 * The Amulet holdings of the phase's wallets each swap names, one swap to a holding: a swap takes
 * the largest its wallet has that no swap under way names, and gives it back when it ended (the
 * holding is spent then; its change is a new one, found on the next read).
 */
class WalletInputs {
  private readonly named = new Set<string>();

  constructor(private readonly stage: Stage) {}

  async take(wallet: DevnetWallet, amulet: DevnetPoolInfo['tokenA']): Promise<string | null> {
    const holdings = await this.stage.ledger.getHoldings(wallet.partyId);
    const free = holdings
      .filter(
        (h) => h.lock === null && h.instrument.id === amulet.id && !this.named.has(h.holdingId),
      )
      .sort((a, b) => b.amount.compare(a.amount));
    const [largest] = free;
    if (largest === undefined) return null;
    this.named.add(largest.holdingId);
    return largest.holdingId;
  }

  give(holdingId: string | null): void {
    if (holdingId !== null) this.named.delete(holdingId);
  }
}

/** Gives each wallet `RATE_EXTRA_HOLDINGS` more Amulet holdings (a faucet mint is one). */
async function withExtraHoldings(traders: readonly Trader[], amulet: DevnetPoolInfo['tokenA']) {
  for (const { wallet } of traders) {
    for (let n = 0; n < RATE_EXTRA_HOLDINGS; n += 1) {
      await wallet.fund(amulet.id, RATE_EXTRA_HOLDING_AMULET, amulet.admin);
    }
  }
}

export async function atomicRatePhase(stage: Stage, seconds: number): Promise<AtomicRateFigures> {
  const warmUp = RATE_WARM_UP_S * ATOMIC_RATE_PER_S;
  const count = warmUp + seconds * ATOMIC_RATE_PER_S;
  const traders = await tradersOf(stage, 'rate', RATE_WALLETS);
  const amulet = stage.pools[0]?.tokenA;
  if (amulet === undefined) throw new Error('no Amulet pool');
  await withExtraHoldings(traders, amulet);
  const slots = walletPoolSlots(traders, stage.pools);
  const inputs = new WalletInputs(stage);
  let cpu: Promise<PhaseCpu> | null = null;
  let measuredFrom = Date.now();
  const { results, lateMs } = await paced(
    { count, warmUp, perS: ATOMIC_RATE_PER_S },
    slots,
    async ({ trader, pool }, _, release) => {
      const holding = await inputs.take(trader.wallet, amulet);
      const inputHoldingIds = holding === null ? undefined : [holding];
      return oneAtomicSwap(stage, trader, pool, { ledgerMs: null, inputHoldingIds }).finally(() => {
        inputs.give(holding);
        release();
      });
    },
    () => {
      cpu = PhaseCpu.start(stage.cluster);
      measuredFrom = Date.now();
    },
  );
  const measuredS = (Date.now() - measuredFrom) / 1000;
  progress(
    `${warmUp} atomic swaps to warm up (not counted), then ${count - warmUp} asked at ${ATOMIC_RATE_PER_S}/s (at most ${lateMs.toFixed(0)} ms late)`,
  );
  const spent = await (await (cpu ?? PhaseCpu.start(stage.cluster))).end(count - warmUp);
  progress(`CPU over the atomic phase (share of one core): ${spent.line}`);
  const figures = atomicPhaseFigures(results.slice(warmUp));
  return { ...figures, cpu: spent.perSwap, completedPerS: figures.completed / measuredS };
}

export function meetsAtomicLoneTarget(lone: AtomicPhaseFigures): boolean {
  return lone.completed === lone.swaps && lone.onTop.p99 <= ATOMIC_ON_TOP_TARGET_MS;
}

/** Met only when every swap asked for was prepared and completed, at the rate, within it. */
export function meetsAtomicRateTarget(rate: AtomicPhaseFigures): boolean {
  return rate.completed === rate.swaps && rate.total.p99 <= ATOMIC_RATE_TARGET_MS;
}

const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(0) : '—');
const spreadCells = (spread: Spread) => [ms(spread.p50), ms(spread.p99), ms(spread.max)];
const counts = (of: Readonly<Record<string, number>>) =>
  Object.entries(of)
    .map(([why, n]) => `${n} ${why}`)
    .join(', ') || 'none';

/** The atomic swaps' figures, the 50/s phase beside the deposit flow's of the same run. */
export function printAtomicBench(atomic: AtomicBench, deposits: RateFigures | null): void {
  const rows = [['phase', 'span', 'p50 ms', 'p99 ms', 'max ms']];
  const { lone, rate } = atomic;
  if (lone) {
    const name = `atomic lone (${lone.completed}/${lone.swaps})`;
    rows.push([name, 'ledger alone (a like execution)', ...spreadCells(lone.ledger)]);
    rows.push(['', 'signature → completed', ...spreadCells(lone.total)]);
    rows.push(['', 'PoolParty on top (total − ledger)', ...spreadCells(lone.onTop)]);
    rows.push(['', 'signature → on stream', ...spreadCells(lone.seen)]);
  }
  if (rate) {
    rows.push([
      `atomic ${ATOMIC_RATE_PER_S}/s (${rate.completed}/${rate.swaps})`,
      'signature → completed',
      ...spreadCells(rate.total),
    ]);
    rows.push(['', 'signature → on stream', ...spreadCells(rate.seen)]);
  }
  if (deposits) {
    rows.push([
      `deposit flow 50/s (${deposits.completed}/${deposits.swaps})`,
      'deposit → completed',
      ...spreadCells(deposits.total),
    ]);
  }
  console.log(table(rows).replace(/^/gm, '  '));
  if (lone) {
    const met = meetsAtomicLoneTarget(lone) ? 'met' : 'NOT met';
    console.log(
      `  atomic lone: PoolParty on top of the ledger p99 ${ms(lone.onTop.p99)} ms (target ≤ ${ATOMIC_ON_TOP_TARGET_MS}: ${met}); refused at prepare: ${counts(lone.refused)}`,
    );
  }
  if (!rate) return;
  const met = meetsAtomicRateTarget(rate) ? 'met' : 'NOT met';
  console.log(
    `  atomic ${ATOMIC_RATE_PER_S}/s: signature → completed p99 ${ms(rate.total.p99)} ms (target ≤ ${ATOMIC_RATE_TARGET_MS}: ${met}); ${rate.completedPerS.toFixed(1)} completed/s; refused at prepare: ${counts(rate.refused)}; not completed: ${counts(rate.incomplete)}`,
  );
  console.log(`  CPU per atomic swap:  ${cpuPerSwapLine(rate.cpu)}`);
  if (deposits) console.log(`  CPU per deposit swap: ${cpuPerSwapLine(deposits.cpu)}`);
}
