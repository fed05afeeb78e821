/**
 * First start on a fresh data folder, as an operator runs it: `poolparty serve --port 0` as
 * `npm start` runs it (the bundled CLI, `packages/server/bin/poolparty.mjs`), a process of its
 * own on an empty temporary folder (store created, migrated, devnet seeded), timed from spawn to
 * the banner and to the first `GET /healthz` answering 200. Several starts, each on a new
 * folder; the median is the figure, the slowest is shown beside it.
 *
 * The bundle is brought up to date first, as `npm install` leaves it: a bundle older than its
 * sources is rebuilt by the first start that finds it so, once (about 0.3 s).
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { isMain, percentile } from './report.js';

const CLI = join(dirname(fileURLToPath(import.meta.url)), '../packages/server/bin/poolparty.mjs');
const run = promisify(execFile);
export const FIRST_START_TARGET_S = 5;
const GIVE_UP_MS = 60_000;

export interface FirstStart {
  /** Seconds from spawn to the banner's API key line. */
  readonly bannerS: number;
  /** Seconds from spawn to `/healthz` answering 200. */
  readonly healthyS: number;
  /** Whether a progress line showed before the banner. */
  readonly showedProgress: boolean;
}

export interface FirstStartBench {
  readonly starts: readonly FirstStart[];
  readonly medianHealthyS: number;
  readonly slowestHealthyS: number;
  readonly meetsTarget: boolean;
}

export async function timeFirstStart(): Promise<FirstStart> {
  const parent = mkdtempSync(join(tmpdir(), 'poolparty-bench-start-'));
  const dataDir = join(parent, 'data');
  const env: NodeJS.ProcessEnv = { ...process.env, POOLPARTY_DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
  for (const name of ['DATABASE_URL', 'PORT', 'HOST', 'LOG_FORMAT']) delete env[name];
  const startedAt = performance.now();
  const child = spawn(process.execPath, [CLI, 'serve', '--port', '0'], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk;
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  try {
    let bannerMs: number | null = null;
    let url: string | null = null;
    while (bannerMs === null) {
      if (child.exitCode !== null) throw new Error(`serve exited:\n${output}`);
      if (performance.now() - startedAt > GIVE_UP_MS) throw new Error(`no banner:\n${output}`);
      url = /listening on (http:\/\/\S+)/.exec(output)?.[1] ?? null;
      if (url !== null && output.includes('Developer API key')) bannerMs = performance.now();
      else await sleep(5);
    }
    for (;;) {
      const answer = await fetch(`${url}/healthz`).catch(() => null);
      if (answer?.status === 200) break;
      await sleep(5);
    }
    const healthyMs = performance.now();
    const progressAt = output.indexOf('seeding devnet');
    return {
      bannerS: (bannerMs - startedAt) / 1000,
      healthyS: (healthyMs - startedAt) / 1000,
      showedProgress: progressAt !== -1 && progressAt < output.indexOf('listening on'),
    };
  } finally {
    child.kill('SIGTERM');
    await exited;
    rmSync(parent, { recursive: true, force: true });
  }
}

export async function benchFirstStart(runs = 3): Promise<FirstStartBench> {
  await run(process.execPath, [CLI, '--version']);
  const starts: FirstStart[] = [];
  for (let i = 0; i < runs; i++) starts.push(await timeFirstStart());
  const healthy = starts.map((s) => s.healthyS);
  const medianHealthyS = percentile(healthy, 50);
  return {
    starts,
    medianHealthyS,
    slowestHealthyS: Math.max(...healthy),
    meetsTarget: medianHealthyS <= FIRST_START_TARGET_S,
  };
}

export function printFirstStartBench(result: FirstStartBench): void {
  console.log(
    `first start: poolparty serve on a fresh data folder (store created, migrated, devnet seeded), ${result.starts.length} starts`,
  );
  for (const [i, start] of result.starts.entries()) {
    console.log(
      `  start ${i + 1}: banner ${start.bannerS.toFixed(2)} s, healthy ${start.healthyS.toFixed(2)} s, progress line ${start.showedProgress ? 'shown' : 'MISSING'}`,
    );
  }
  console.log(
    `  median ${result.medianHealthyS.toFixed(2)} s, slowest ${result.slowestHealthyS.toFixed(2)} s (target ≤ ${FIRST_START_TARGET_S} s: ${result.meetsTarget ? 'met' : 'NOT met'})`,
  );
}

if (isMain(import.meta.url)) printFirstStartBench(await benchFirstStart());
