/**
 * CPU time of the processes of a deployment, read from `/proc` (Linux): a process's user and
 * system time, and PostgreSQL's per server process. Two samples give each one's share of a core
 * over the time between them, which names what limits a run.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Linux reports CPU time in clock ticks of 1/100 s (`getconf CLK_TCK`). */
export const TICKS_PER_S = 100;
/** The name PostgreSQL's server processes carry in `/proc/<pid>/stat`. */
const POSTGRES_COMM = 'postgres';

export interface CpuSample {
  readonly atMs: number;
  /** Ticks by process name; a process that could not be read is absent. */
  readonly ticks: ReadonlyMap<string, number>;
  /** Ticks of each PostgreSQL server process, by pid. */
  readonly postgres: ReadonlyMap<number, number>;
}

/** A process's command name and utime + stime, or null when it is gone (or this is not Linux). */
function statOf(pid: number): { readonly comm: string; readonly ticks: number } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name is in parentheses and may hold spaces: count fields after its end. After
    // it come state (field 3) … utime (14) and stime (15): here 11 and 12.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    return { comm, ticks: Number(fields[11]) + Number(fields[12]) };
  } catch {
    return null;
  }
}

/** utime + stime of every PostgreSQL server process, in clock ticks, by pid. */
export function postgresTicks(): Map<number, number> {
  const ticks = new Map<number, number>();
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((entry) => /^\d+$/.test(entry));
  } catch {
    return ticks;
  }
  for (const pid of pids) {
    // A process that ended between the listing and the read is not there.
    const stat = statOf(Number(pid));
    if (stat?.comm === POSTGRES_COMM) ticks.set(Number(pid), stat.ticks);
  }
  return ticks;
}

/**
 * The ticks PostgreSQL's processes spent between two readings, each counted from its own first
 * reading (0 for one born since). A process that ended in between takes its time with it: a floor.
 */
export function postgresTicksSpent(
  before: ReadonlyMap<number, number>,
  after: ReadonlyMap<number, number>,
  only: (pid: number) => boolean = () => true,
): number {
  let spent = 0;
  for (const [pid, ticks] of after) if (only(pid)) spent += ticks - (before.get(pid) ?? 0);
  return spent;
}

/** The CPU ticks of each named process, this one ("bench") and PostgreSQL's now. */
export function sampleCpu(
  processes: readonly { readonly name: string; readonly pid: number | undefined }[],
): CpuSample {
  const ticks = new Map<string, number>();
  const own = process.cpuUsage();
  ticks.set('bench', ((own.user + own.system) / 1e6) * TICKS_PER_S);
  for (const { name, pid } of processes) {
    const stat = pid === undefined ? null : statOf(pid);
    if (stat !== null) ticks.set(name, stat.ticks);
  }
  return { atMs: Date.now(), ticks, postgres: postgresTicks() };
}

/**
 * Each process's share of one core between two samples, busiest first, PostgreSQL's processes
 * together as "postgres". A process absent from the first sample (started between them) counts
 * from zero: all its time is in the window.
 */
export function cpuOf(
  before: CpuSample,
  after: CpuSample,
): { readonly name: string; readonly coreShare: number }[] {
  const seconds = (after.atMs - before.atMs) / 1000;
  const share = (ticks: number) => ticks / TICKS_PER_S / seconds;
  const named = [...after.ticks].map(([name, ticks]) => ({
    name,
    coreShare: share(ticks - (before.ticks.get(name) ?? 0)),
  }));
  const postgres = postgresTicksSpent(before.postgres, after.postgres);
  if (after.postgres.size > 0) named.push({ name: 'postgres', coreShare: share(postgres) });
  return named.sort((a, b) => b.coreShare - a.coreShare);
}
