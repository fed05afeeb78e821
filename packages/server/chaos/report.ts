/**
 * The report of a chaos run: what was asked, what happened (swaps by outcome, kills, faults
 * seen, timings) and the verdict, as JSON and as markdown for people.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
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
  };
  readonly startedAt: string;
  readonly wallSeconds: number;
  /** Seconds the system took to settle once the traders were done and the faults off. */
  readonly quiesceSeconds: number;
  /** Swaps by the outcome their trader saw. */
  readonly swapsByOutcome: Readonly<Record<string, number>>;
  /** Swaps by setup (exact, tight, wrong-amount). */
  readonly swapsBySetup: Readonly<Record<string, number>>;
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
  readonly depositToTerminalMs: {
    readonly count: number;
    readonly p50: number | null;
    readonly p99: number | null;
    readonly max: number | null;
  };
  readonly verdict: Verdict;
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

const rows = (counts: Readonly<Record<string, number>>) =>
  Object.entries(counts)
    .map(([key, n]) => `| ${key} | ${n} |`)
    .join('\n');

export function markdownReport(report: ChaosReport): string {
  const { verdict, options, depositToTerminalMs: t } = report;
  const ms = (value: number | null) => (value === null ? '–' : `${(value / 1000).toFixed(2)} s`);
  const injected = report.faults.injected;
  return `# Chaos run — ${verdict.passed ? 'PASSED' : 'FAILED'}

${options.swaps} swaps by ${options.parties} parties over every pool, ${options.workers} worker processes, ${report.kills.length} SIGKILLs (asked ${options.kills}), ${report.drops.length} drops of every store session (asked ${options.drops}), seed ${options.seed}; started ${report.startedAt}.

| Figure | Value |
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
| Store sessions ended by drops | ${report.drops.reduce((sum, drop) => sum + drop.sessions, 0)} |
| Processes that exited unasked or stopped uncleanly | ${report.processFailures.length} |
| Deposit → end, p50 | ${ms(t.p50)} |
| Deposit → end, p99 | ${ms(t.p99)} |
| Deposit → end, max | ${ms(t.max)} |

## Swaps by outcome (as the traders saw them)

| Outcome | Swaps |
| --- | --- |
${rows(report.swapsByOutcome)}

## Swaps by setup

| Setup | Swaps |
| --- | --- |
${rows(report.swapsBySetup)}

## Faults

Turned on: ${Object.entries(report.faults.settings)
    .map(([key, value]) => `${key} ${value}`)
    .join(', ')}.

| Fault | Count |
| --- | --- |
${injected ? rows(injected) : '| (the ledger server reported none) | 0 |'}
| service commands submitted more than once | ${report.faults.commandsResubmitted} |
| extra service submissions | ${report.faults.extraSubmissions} |
| trader submissions sent again | ${report.faults.traderRetries} |

Trader call errors by code: ${
    Object.entries(report.faults.traderErrors)
      .map(([code, n]) => `${code} ${n}`)
      .join(', ') || 'none'
  }.

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
