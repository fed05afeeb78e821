/**
 * CPU time of the processes of a deployment, read from `/proc` (Linux): a process's user and
 * system time, and PostgreSQL's as the sum over its server processes. Two samples give each
 * one's share of a core over the time between them, which names what limits a run.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Linux reports CPU time in clock ticks of 1/100 s (`getconf CLK_TCK`). */
const TICKS_PER_S = 100;
/** The name PostgreSQL's server processes carry in `/proc/<pid>/comm`. */
const POSTGRES_COMM = 'postgres';

export interface CpuSample {
  readonly atMs: number;
  /** Ticks by process name; a process that could not be read is absent. */
  readonly ticks: ReadonlyMap<string, number>;
}

/** utime + stime of a process, or null when it is gone (or this is not Linux). */
function ticksOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name is in parentheses and may hold spaces: count fields after its end.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return null;
  }
}

/** The summed ticks of every process whose command name is PostgreSQL's. */
function postgresTicks(): number | null {
  let total = 0;
  let found = false;
  let entries: string[];
  try {
    entries = readdirSync('/proc').filter((entry) => /^\d+$/.test(entry));
  } catch {
    return null;
  }
  for (const entry of entries) {
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() !== POSTGRES_COMM) continue;
    } catch {
      continue;
    }
    const ticks = ticksOf(Number(entry));
    if (ticks === null) continue;
    total += ticks;
    found = true;
  }
  return found ? total : null;
}

/** The CPU ticks of each named process, this one ("bench") and PostgreSQL now. */
export function sampleCpu(
  processes: readonly { readonly name: string; readonly pid: number | undefined }[],
): CpuSample {
  const ticks = new Map<string, number>();
  const own = process.cpuUsage();
  ticks.set('bench', ((own.user + own.system) / 1e6) * TICKS_PER_S);
  for (const { name, pid } of processes) {
    const value = pid === undefined ? null : ticksOf(pid);
    if (value !== null) ticks.set(name, value);
  }
  const postgres = postgresTicks();
  if (postgres !== null) ticks.set('postgres', postgres);
  return { atMs: Date.now(), ticks };
}

/**
 * Each process's share of one core between two samples, busiest first. A process absent from
 * the first sample (started between them) counts from zero: all its time is in the window.
 */
export function cpuOf(
  before: CpuSample,
  after: CpuSample,
): { readonly name: string; readonly coreShare: number }[] {
  const seconds = (after.atMs - before.atMs) / 1000;
  return [...after.ticks]
    .map(([name, ticks]) => ({
      name,
      coreShare: (ticks - (before.ticks.get(name) ?? 0)) / TICKS_PER_S / seconds,
    }))
    .sort((a, b) => b.coreShare - a.coreShare);
}
