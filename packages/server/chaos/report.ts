/**
 * The report of a chaos run: what was asked, what happened (swaps and liquidity rounds by
 * outcome, kills, faults seen, timings) and the verdict, as JSON and as markdown for people.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LiquidityRecord } from './liquidity.js';
import type { Verdict } from './verdict.js';

export interface KillRecord {
  readonly afterSwaps: number;
  readonly worker: number;
  /** Seconds into the run. */
  readonly atSeconds: number;
  /** How long the restarted worker took to be up again, in milliseconds. */
  readonly restartMs: number;
}

export interface DropRecord {
  readonly afterSwaps: number;
  /** Seconds into the run. */
  readonly atSeconds: number;
  /** PostgreSQL sessions of the api and the workers that were ended. */
  readonly sessions: number;
}

export interface FaultsSeen {
  /** The rates turned on for the run. */
  readonly settings: Readonly<Record<string, number>>;
  /** What the devnet ledger server says it injected (its closing line); null if it said none. */
  readonly injected: Readonly<Record<string, number>> | null;
  /** Wallet submissions the traders sent again after an error. */
  readonly traderRetries: number;
  /** Errors the traders' calls met, by code. */
  readonly traderErrors: Readonly<Record<string, number>>;
  /** The same of the liquidity providers' calls. */
  readonly providerRetries: number;
  readonly providerErrors: Readonly<Record<string, number>>;
  /** Service ledger commands submitted more than once, and the extra submissions. */
  readonly commandsResubmitted: number;
  readonly extraSubmissions: number;
}

export interface ChaosReport {
  readonly options: {
    readonly swaps: number;
    readonly kills: number;
    readonly drops: number;
    readonly seed: number;
    readonly workers: number;
    readonly parties: number;
    /** Liquidity rounds asked, and the providers that ran them. */
    readonly liquidity: number;
    readonly providers: number;
    /** Atomic swaps asked, and the wallets that signed them. */
    readonly atomic: number;
    readonly atomicTraders: number;
  };
  readonly startedAt: string;
  readonly wallSeconds: number;
  /** Seconds the system took to settle once the traders were done and the faults off. */
  readonly quiesceSeconds: number;
  /** Swaps by the outcome their trader saw. */
  readonly swapsByOutcome: Readonly<Record<string, number>>;
  /** Swaps by setup (exact, tight, wrong-amount). */
  readonly swapsBySetup: Readonly<Record<string, number>>;
  /** Every liquidity round as its provider saw it. */
  readonly liquidityRounds: readonly LiquidityRecord[];
  readonly atomic: AtomicSwapsSeen;
  readonly kills: readonly KillRecord[];
  /** Moments every store session of the deployment was ended. */
  readonly drops: readonly DropRecord[];
  /**
   * Processes of the deployment that exited without being killed or stopped, and those that did
   * not stop cleanly when asked: the service was not up throughout when any is listed.
   */
  readonly processFailures: readonly string[];
  readonly faults: FaultsSeen;
  /** Deposit sent to the swap's end, over the swaps that ended. */
  readonly depositToTerminalMs: Timings;
  readonly verdict: Verdict;
}

export interface Timings {
  readonly count: number;
  readonly p50: number | null;
  readonly p99: number | null;
  readonly max: number | null;
}

/** The atomic swaps as their wallets saw them. */
export interface AtomicSwapsSeen {
  /** By the outcome the wallet saw (`completed`, `price_moved`, …, `not_created:<code>`). */
  readonly byOutcome: Readonly<Record<string, number>>;
  /** By setup (signed, tight, cancelled). */
  readonly bySetup: Readonly<Record<string, number>>;
  /** Swaps prepared again after an input was spent, and signed again. */
  readonly preparedAgain: number;
  /** Errors the wallets' calls met, by code. */
  readonly errors: Readonly<Record<string, number>>;
  /** First signature to the swap's end, over the signed swaps that ended. */
  readonly signedToEndMs: Timings;
}

/** The count, p50, p99 and max of some durations. */
export function timingsOf(values: readonly number[]): Timings {
  return {
    count: values.length,
    p50: quantile(values, 0.5),
    p99: quantile(values, 0.99),
    max: quantile(values, 1),
  };
}

/** The `q`-quantile (0..1) of the values by nearest rank; null for none. */
export function quantile(values: readonly number[], q: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length)));
  return sorted[rank - 1] ?? null;
}

export function tally(values: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of [...values].sort()) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}

/** Milliseconds in seconds, for people; a dash for none. */
const inSeconds = (ms: number | null) => (ms === null ? '–' : `${(ms / 1000).toFixed(2)} s`);

const rows = (counts: Readonly<Record<string, number>>) =>
  Object.entries(counts)
    .map(([key, n]) => `| ${key} | ${n} |`)
    .join('\n');

/** What a liquidity round was, for people: a stray's kind, or a race's order. */
export function roundLabel(round: LiquidityRecord): string {
  if (round.kind !== 'cancel-race') return `stray, ${round.kind}`;
  return `cancel race, ${round.cancelFirst ? 'cancel first' : 'deposit first'}`;
}

/** The liquidity rounds by what they were and how they went, as table rows. */
export function liquidityRows(rounds: readonly LiquidityRecord[]): string {
  if (rounds.length === 0) return '| (none: --liquidity 0) | | 0 |';
  return rows(tally(rounds.map((r) => `${roundLabel(r)} | ${r.outcome}`)));
}

export function markdownReport(report: ChaosReport): string {
  const { verdict, options } = report;
  return `# Chaos run — ${verdict.passed ? 'PASSED' : 'FAILED'}

${options.swaps} swaps by ${options.parties} parties over every pool, ${options.atomic} atomic swaps signed by ${options.atomicTraders} wallets, ${options.liquidity} liquidity rounds by ${options.providers} providers, ${options.workers} worker processes, ${report.kills.length} SIGKILLs (asked ${options.kills}), ${report.drops.length} drops of every store session (asked ${options.drops}), seed ${options.seed}; started ${report.startedAt}.

${figuresTable(report)}

## Swaps by outcome (as the traders saw them)

| Outcome | Swaps |
| --- | --- |
${rows(report.swapsByOutcome)}

## Swaps by setup

| Setup | Swaps |
| --- | --- |
${rows(report.swapsBySetup)}

${atomicSection(report.atomic)}

## Liquidity rounds by outcome (as the providers saw them)

| Round | Outcome | Rounds |
| --- | --- | --- |
${liquidityRows(report.liquidityRounds)}

${faultsSection(report.faults)}

## Worker kills

| # | After swaps | Worker | At | Restart |
| --- | --- | --- | --- | --- |
${report.kills.map((k, i) => `| ${i + 1} | ${k.afterSwaps} | ${k.worker} | ${k.atSeconds.toFixed(0)} s | ${(k.restartMs / 1000).toFixed(1)} s |`).join('\n')}

## Store session drops

| # | After swaps | At | Sessions ended |
| --- | --- | --- | --- |
${report.drops.map((d, i) => `| ${i + 1} | ${d.afterSwaps} | ${d.atSeconds.toFixed(0)} s | ${d.sessions} |`).join('\n')}

## Processes

${report.processFailures.length === 0 ? 'Every process stayed up until stopped, and stopped cleanly.' : report.processFailures.map((line) => `- ${line}`).join('\n')}

## Verdict

${verdict.passed ? 'Every invariant holds.' : `${verdict.violations.length} violations:\n\n${verdict.violations.map((v) => `- ${v.kind}: ${v.detail}`).join('\n')}`}
`;
}

/** The atomic swaps by outcome and setup, and how long a signed one took to end. */
function atomicSection(atomic: AtomicSwapsSeen): string {
  const t = atomic.signedToEndMs;
  const none = '| (none: --atomic 0) | 0 |';
  return `## Atomic swaps by outcome (as the wallets saw them)

| Outcome | Swaps |
| --- | --- |
${rows(atomic.byOutcome) || none}

| Setup | Swaps |
| --- | --- |
${rows(atomic.bySetup) || none}

Prepared again and signed again: ${atomic.preparedAgain}. Signature → end over ${t.count} swaps: p50 ${inSeconds(t.p50)}, p99 ${inSeconds(t.p99)}, max ${inSeconds(t.max)}. Wallet call errors by code: ${byCode(atomic.errors)}.`;
}

/** The figures of the run and of its verdict, as one table. */
function figuresTable(report: ChaosReport): string {
  const { verdict, options, depositToTerminalMs: t } = report;
  const lp = verdict.liquidity;
  return `| Figure | Value |
| --- | --- |
| Wall time | ${report.wallSeconds.toFixed(0)} s |
| Quiescence after the last swap | ${report.quiesceSeconds.toFixed(0)} s |
| Deposits checked | ${verdict.deposits} |
| … paid out | ${verdict.outcomes.payout} |
| … refunded | ${verdict.outcomes.refund} |
| … flagged for an operator | ${verdict.outcomes.flagged} |
| Double payouts | ${verdict.doublePayouts} |
| Lost deposits | ${verdict.lostDeposits} |
| Pools whose books equal the ledger holdings | ${verdict.poolsBalanced} of ${verdict.pools} |
| Liquidity rounds | ${report.liquidityRounds.length} (asked ${options.liquidity}, ${options.providers} providers) |
| LP deposits checked | ${lp.deposits} |
| … returned / forwarded into a pool | ${lp.returned} / ${lp.forwarded} |
| LP parties holding nothing | ${lp.lpPartiesEmpty} of ${lp.lpParties} |
| Provider holdings as minted less joined (per instrument) | ${lp.providersBalanced} of ${lp.providerBalances} |
| Instruments conserved over the run's parties | ${lp.instrumentsConserved} of ${lp.instruments} |
| Atomic swaps checked | ${verdict.atomic.swaps} |
| … completed in one update | ${verdict.atomic.completed} |
| … ended with nothing moved | ${verdict.atomic.nothingMoved} |
| Atomic swaps executed twice | ${verdict.atomic.doubled} |
| Atomic swaps whose books and ledger differ | ${verdict.atomic.lost} |
| Atomic swaps not ended | ${verdict.atomic.open} |
| Store sessions ended by drops | ${report.drops.reduce((sum, drop) => sum + drop.sessions, 0)} |
| Processes that exited unasked or stopped uncleanly | ${report.processFailures.length} |
| Deposit → end, p50 | ${inSeconds(t.p50)} |
| Deposit → end, p99 | ${inSeconds(t.p99)} |
| Deposit → end, max | ${inSeconds(t.max)} |`;
}

const byCode = (errors: Readonly<Record<string, number>>) =>
  Object.entries(errors)
    .map(([code, n]) => `${code} ${n}`)
    .join(', ') || 'none';

function faultsSection(faults: FaultsSeen): string {
  const settings = Object.entries(faults.settings)
    .map(([key, value]) => `${key} ${value}`)
    .join(', ');
  return `## Faults

Turned on: ${settings}.

| Fault | Count |
| --- | --- |
${faults.injected ? rows(faults.injected) : '| (the ledger server reported none) | 0 |'}
| service commands submitted more than once | ${faults.commandsResubmitted} |
| extra service submissions | ${faults.extraSubmissions} |
| trader submissions sent again | ${faults.traderRetries} |
| provider submissions sent again | ${faults.providerRetries} |

Trader call errors by code: ${byCode(faults.traderErrors)}. Provider call errors by code: ${byCode(faults.providerErrors)}.`;
}

/** Writes `chaos-report.json` and `chaos-report.md` into `folder`; answers their paths. */
export function writeReport(
  folder: string,
  report: ChaosReport,
): { json: string; markdown: string } {
  mkdirSync(folder, { recursive: true });
  const json = join(folder, 'chaos-report.json');
  const markdown = join(folder, 'chaos-report.md');
  writeFileSync(json, `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(markdown, markdownReport(report));
  return { json, markdown };
}
