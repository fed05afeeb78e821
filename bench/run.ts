/**
 * `npm run bench`: quote throughput, end-to-end settlement and the SDK's browser bundle size, one
 * after the other (never concurrently: they would measure each other), then a summary.
 */
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchQuotes, printQuoteBench, QUOTE_TARGET_RATIO } from './quotes.js';
import { percent, table } from './report.js';
import {
  benchSettlement,
  meetsSettlementTargets,
  printSettlementBench,
  type SettlementRun,
  TARGET_P99_MS,
  TARGET_SWAPS_PER_S,
} from './settlement.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

interface SizeCheck {
  readonly line: string;
  readonly withinBudget: boolean;
}

/** What `npm run size` does: build the SDK, then its size script (exit 1 above the budget). */
function sdkSize(): SizeCheck {
  const build = spawnSync('npm', ['run', 'build', '-w', '@poolparty/sdk'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  if (build.status !== 0) {
    return { line: `SDK build failed:\n${build.stdout}${build.stderr}`, withinBudget: false };
  }
  const size = spawnSync(process.execPath, ['packages/sdk/scripts/size.mjs'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return { line: `${size.stdout}${size.stderr}`.trim(), withinBudget: size.status === 0 };
}

const verdict = (met: boolean) => (met ? 'met' : 'NOT met');

function settlementRow(run: SettlementRun, baseline: SettlementRun, target: string): string[] {
  const ratio =
    run === baseline ? 'baseline' : `${(run.swapsPerS / baseline.swapsPerS).toFixed(2)}×`;
  return [
    `settlement, ${run.label}`,
    `${run.swapsPerS.toFixed(0)} swaps/s, p99 ${run.p99Ms.toFixed(0)} ms`,
    ratio,
    target,
  ];
}

const quotes = await benchQuotes();
printQuoteBench(quotes);
console.log();
const settlement = await benchSettlement();
printSettlementBench(settlement);
console.log();
const size = sdkSize();
console.log(`sdk: ${size.line}`);
console.log();

const settlementTarget = `≥ ${TARGET_SWAPS_PER_S}/s, p99 ≤ ${TARGET_P99_MS} ms`;
const rows = [
  ['benchmark', 'measured', 'ratio', 'target'],
  [
    'quotes vs bare Fastify',
    `${Math.round(quotes.quotes.requestsPerS)} vs ${Math.round(quotes.baseline.requestsPerS)} req/s`,
    percent(quotes.ratio),
    `≥ ${percent(QUOTE_TARGET_RATIO)}: ${verdict(quotes.meetsTarget)}`,
  ],
  settlementRow(settlement.baseline, settlement.baseline, '(reference)'),
  settlement.postgres
    ? settlementRow(
        settlement.postgres,
        settlement.baseline,
        `${settlementTarget}: ${verdict(meetsSettlementTargets(settlement.postgres))}`,
      )
    : ['settlement, PostgreSQL', 'skipped', '-', settlementTarget],
  ['SDK browser bundle', size.line.split(': ').at(-1) ?? '', '-', verdict(size.withinBudget)],
];
console.log(table(rows));
