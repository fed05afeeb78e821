/**
 * `npm run chaos` at CI size: 150 swaps by wallets through the SDK across every pool, both
 * directions, one-step and two-step deposits, some set up to be refunded, and beside them 15
 * atomic swaps signed by their wallets (some at the tightest slippage, some cancelled unsigned)
 * and 8 liquidity rounds (stray deposits to LP parties of every kind, cancels raced against
 * deposits), against the devnet ledger server, an api and two worker processes on PostgreSQL, with every
 * kind of ledger fault on, three workers SIGKILLed and restarted and every store session of the
 * deployment ended three times along the way. Once settled, every deposit has exactly one
 * outcome, nothing was paid twice or lost, each pool's books equal its holdings, every LP deposit
 * came back or joined its pool, the LP parties hold nothing, every provider holds what it should,
 * every atomic swap completed in one update or moved nothing, and no process exited unasked.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { postgresSkipReason } from '@poolparty/store/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { CHAOS_USAGE, parseChaosArgs } from '../../chaos/options.js';
import { markdownReport, writeReport } from '../../chaos/report.js';
import { runChaos, runPassed } from '../../chaos/run.js';

const skipReason = await postgresSkipReason('chaos suite');

describe.skipIf(skipReason !== null)('chaos at CI size', () => {
  const out = mkdtempSync(join(tmpdir(), 'pp-chaos-'));
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it('keeps every invariant through ledger faults and worker kills', async () => {
    const options = parseChaosArgs([
      '--swaps',
      '150',
      '--kills',
      '3',
      '--drops',
      '3',
      '--seed',
      '11',
      '--out',
      out,
    ]);
    const lines: string[] = [];
    const report = await runChaos({ ...options, quiesceMaxMs: 90_000 }, (line) => lines.push(line));
    const { verdict } = report;
    // What went wrong, when anything did: the outcomes, the errors and the violations.
    if (!verdict.passed || verdict.deposits !== 150) console.error(markdownReport(report));

    expect(verdict.violations).toEqual([]);
    expect(verdict.passed).toBe(true);
    expect(verdict.deposits).toBe(Object.values(verdict.outcomes).reduce((sum, n) => sum + n, 0));
    expect(verdict.doublePayouts).toBe(0);
    expect(verdict.lostDeposits).toBe(0);
    expect(verdict.poolsBalanced).toBe(3);
    // Every swap made its deposit; the ones set up with the wrong amount came back.
    expect(report.swapsByOutcome.completed).toBeGreaterThan(0);
    expect(verdict.deposits).toBe(150);
    expect(verdict.outcomes.refund).toBeGreaterThanOrEqual(
      report.swapsBySetup['wrong-amount'] ?? 0,
    );
    expect(report.swapsBySetup['wrong-amount']).toBeGreaterThan(0);
    // The kills happened, and the faults did fire.
    expect(report.kills).toHaveLength(3);
    // Every store session of the api and the workers was ended three times, and every process
    // of the deployment stayed up until stopped.
    expect(report.drops).toHaveLength(3);
    expect(report.drops.every((drop) => drop.sessions > 0)).toBe(true);
    expect(report.processFailures).toEqual([]);
    expect(runPassed(report)).toBe(true);
    const injected = report.faults.injected;
    expect(injected).not.toBeNull();
    expect(
      (injected?.rejections ?? 0) +
        (injected?.timeoutsAfterCommit ?? 0) +
        (injected?.droppedStreams ?? 0) +
        (injected?.duplicateDeliveries ?? 0),
    ).toBeGreaterThan(0);
    expect(lines.some((line) => line.includes('faults on'))).toBe(true);

    // The liquidity rounds ran, each stray came back and each race ended one of the ways it may.
    expect(options.liquidity).toBe(8);
    const rounds = report.liquidityRounds;
    expect(rounds).toHaveLength(8);
    const strays = rounds.filter((r) => r.kind !== 'cancel-race');
    expect(strays.map((r) => r.outcome)).toEqual(strays.map(() => 'returned'));
    for (const race of rounds.filter((r) => r.kind === 'cancel-race')) {
      expect(['cancelled_returned', 'refused_completed', 'refused_refunded']).toContain(
        race.outcome,
      );
    }
    const lp = verdict.liquidity;
    expect(lp.deposits).toBeGreaterThanOrEqual(strays.length);
    expect(lp.returned + lp.forwarded).toBe(lp.deposits);
    expect(lp.lpPartiesEmpty).toBe(3);
    expect(lp.providerBalances).toBeGreaterThan(0);
    expect(lp.providersBalanced).toBe(lp.providerBalances);
    expect(lp.instrumentsConserved).toBe(lp.instruments);

    // The atomic swaps ran beside them, signed by their wallets: each one prepared completed in
    // one update of its two legs or ended with nothing moved (a prepare may be refused: the
    // deposit flow's payouts spend the pool's holdings too), none executed twice, none left open.
    expect(options.atomic).toBe(15);
    expect(Object.values(report.atomic.byOutcome).reduce((sum, n) => sum + n, 0)).toBe(15);
    expect(verdict.atomic.completed).toBeGreaterThan(0);
    expect(verdict.atomic.completed + verdict.atomic.nothingMoved).toBe(verdict.atomic.swaps);
    expect([verdict.atomic.doubled, verdict.atomic.lost, verdict.atomic.open]).toEqual([0, 0, 0]);
    expect(report.atomic.byOutcome.completed).toBe(verdict.atomic.completed);

    // The report as the command writes it.
    const written = writeReport(out, report);
    expect(JSON.parse(readFileSync(written.json, 'utf8')).verdict.passed).toBe(true);
    expect(readFileSync(written.markdown, 'utf8')).toContain('Every invariant holds.');
  }, 240_000);
});

describe('chaos options', () => {
  it('defaults to 10 000 swaps, 25 kills, 25 store session drops, 500 liquidity rounds and 1 000 atomic swaps on two workers', () => {
    expect(parseChaosArgs([])).toMatchObject({
      swaps: 10_000,
      kills: 25,
      drops: 25,
      liquidity: 500,
      atomic: 1_000,
      workers: 2,
      seed: 1,
    });
  });

  it('scales the default kills, drops and liquidity rounds with the swaps', () => {
    expect(parseChaosArgs(['--swaps', '2000'])).toMatchObject({
      kills: 5,
      drops: 5,
      liquidity: 100,
      atomic: 200,
    });
    expect(parseChaosArgs(['--swaps', '150'])).toMatchObject({ liquidity: 8, atomic: 15 });
  });

  it('takes --liquidity, and --liquidity 0 for none', () => {
    expect(parseChaosArgs(['--swaps', '100', '--liquidity', '50'])).toMatchObject({
      liquidity: 50,
    });
    expect(parseChaosArgs(['--liquidity', '0'])).toMatchObject({ liquidity: 0, kills: 25 });
  });

  it('takes --atomic, and --atomic 0 for none', () => {
    expect(parseChaosArgs(['--swaps', '100', '--atomic', '40'])).toMatchObject({ atomic: 40 });
    expect(parseChaosArgs(['--atomic', '0'])).toMatchObject({ atomic: 0, liquidity: 500 });
  });

  it.each([
    [['--swaps', '0'], '--swaps must be a whole number of at least 1, not "0"'],
    [['--swaps', '1.5'], '--swaps must be a whole number of at least 1, not "1.5"'],
    [['--kills=-1'], '--kills must be a whole number of at least 0, not "-1"'],
    [['--workers', '1'], '--workers must be a whole number of at least 2, not "1"'],
    [['--swaps', '10', '--kills', '6'], '--kills 6 is more than half of --swaps 10'],
    [['--drops=-1'], '--drops must be a whole number of at least 0, not "-1"'],
    [['--swaps', '10', '--drops', '6'], '--drops 6 is more than half of --swaps 10'],
    [['--liquidity=-1'], '--liquidity must be a whole number of at least 0, not "-1"'],
    [['--liquidity', 'some'], '--liquidity must be a whole number of at least 0, not "some"'],
    [['--swaps', '10', '--liquidity', '6'], '--liquidity 6 is more than half of --swaps 10'],
    [['--atomic=-1'], '--atomic must be a whole number of at least 0, not "-1"'],
    [['--swaps', '10', '--atomic', '6'], '--atomic 6 is more than half of --swaps 10'],
    [['--out', ''], '--out needs a folder'],
    [['--swaps'], "Option '--swaps <value>' argument missing"],
  ])('refuses %j with one clear line', (args, message) => {
    expect(() => parseChaosArgs(args)).toThrow(message);
  });
});

describe('npm run chaos -- --help', () => {
  const RUN = join(import.meta.dirname, '../../chaos/main.ts');
  /** The command as npm runs it: its own process, its output and exit code. */
  const chaos = async (args: readonly string[]) => {
    try {
      const { stdout, stderr } = await promisify(execFile)(
        process.execPath,
        ['--conditions=source', '--import', 'tsx', RUN, ...args],
        { cwd: join(import.meta.dirname, '../../../..') },
      );
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failed = error as { code?: number; stdout?: string; stderr?: string };
      return { code: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
    }
  };

  it.each([[['--help']], [['-h']], [['--swaps', '5', '--help']]])(
    'prints the usage for %j and exits 0 without running',
    async (args) => {
      const { code, stdout, stderr } = await chaos(args);
      expect(code).toBe(0);
      expect(stdout.trim()).toBe(CHAOS_USAGE);
      expect(stdout).toContain('usage: npm run chaos -- [--swaps N]');
      for (const flag of [
        '--kills',
        '--drops',
        '--liquidity',
        '--seed',
        '--workers',
        '--out',
        '--keep',
        '--help',
      ]) {
        expect(stdout).toContain(flag);
      }
      expect(stderr).not.toContain('Unknown option');
    },
    30_000,
  );

  it('still refuses an unknown option with exit code 2 and the usage line', async () => {
    const { code, stderr } = await chaos(['--bogus']);
    expect(code).toBe(2);
    expect(stderr).toContain("Unknown option '--bogus'");
    expect(stderr).toContain('usage: npm run chaos --');
  }, 30_000);
});
