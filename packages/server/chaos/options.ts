/**
 * The command line of `npm run chaos`: its options, their defaults and checks, and the usage it
 * prints. Kept apart from the run so that `--help` and a refused option answer at once, without
 * loading the cluster, the ledger client and the store.
 */
import { parseArgs } from 'node:util';

export interface ChaosOptions {
  readonly swaps: number;
  readonly kills: number;
  /** Moments every store session of the api and the workers is ended. */
  readonly drops: number;
  /** Liquidity rounds (stray LP deposits and cancel races) beside the swaps; 0: none. */
  readonly liquidity: number;
  /** Atomic swaps (prepared, signed by the wallet, executed) beside the swaps; 0: none. */
  readonly atomic: number;
  readonly seed: number;
  readonly workers: number;
  /** Folder for the report; null: not written. */
  readonly out: string | null;
  /** Keep the PostgreSQL schema afterwards. */
  readonly keep: boolean;
  /** How long the system may take to settle after the last swap; default 10 minutes. */
  readonly quiesceMaxMs?: number;
}

export const DEFAULT_SWAPS = 10_000;
/** Kills per swap when `--kills` is not given: 25 for 10 000 swaps. */
const KILLS_PER_SWAP = 25 / 10_000;
/** Drops of every store session per swap when `--drops` is not given: 25 for 10 000 swaps. */
const DROPS_PER_SWAP = 25 / 10_000;
/** Liquidity rounds per swap when `--liquidity` is not given: one per 20 swaps. */
export const LIQUIDITY_PER_SWAP = 1 / 20;
/** Atomic swaps per swap when `--atomic` is not given: one per 10 swaps. */
export const ATOMIC_PER_SWAP = 1 / 10;
export class ChaosUsageError extends Error {
  override readonly name = 'ChaosUsageError';
}

/** What `npm run chaos -- --help` prints: the command line of this file's header, explained. */
export const CHAOS_USAGE = `usage: npm run chaos -- [--swaps N] [--kills N] [--drops N] [--liquidity N] [--atomic N] [--seed N] [--workers N] [--out DIR] [--keep]

Many swaps against a multi-process deployment (devnet ledger server, one api, workers on
PostgreSQL) while the ledger misbehaves, workers are SIGKILLed and the store's sessions are
ended under the service, wallets sign atomic swaps, and liquidity providers send LP parties
deposits nobody asked for and race cancels against their own deposits; then a check that no
money went astray. Exit code 0
only when every invariant holds, every planned kill and drop happened and no process exited
unasked.

  --swaps N     swaps to run (default ${DEFAULT_SWAPS})
  --kills N     worker kills along the way, at most half the swaps (default 25 per 10 000 swaps)
  --drops N     moments every store session of the api and workers is ended (pg_terminate_backend),
                at most half the swaps (default 25 per 10 000 swaps)
  --liquidity N liquidity rounds beside the swaps, each a stray LP deposit or a cancel race,
                at most half the swaps; 0: none (default 1 per 20 swaps)
  --atomic N    atomic swaps beside the swaps, Amulet in, each signed by its wallet (some at the
                tightest slippage, some cancelled unsigned), at most half the swaps; 0: none
                (default 1 per 10 swaps)
  --seed N      seed of the swap and kill plan, 0 to 2^32 - 1 (default 1)
  --workers N   worker processes, 2 to 8 (default 2)
  --out DIR     folder for the JSON and markdown report (default chaos-report)
  --keep        keep the PostgreSQL schema afterwards
  -h, --help    print this and exit`;

const CHAOS_FLAGS = {
  swaps: { type: 'string' },
  kills: { type: 'string' },
  drops: { type: 'string' },
  liquidity: { type: 'string' },
  atomic: { type: 'string' },
  seed: { type: 'string' },
  workers: { type: 'string' },
  out: { type: 'string' },
  keep: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** Whether the command line asks for the usage (`--help` or `-h`), whatever else it says. */
export function wantsChaosHelp(argv: readonly string[]): boolean {
  const { values } = parseArgs({ args: [...argv], strict: false, options: CHAOS_FLAGS });
  return values.help === true;
}

function integerFlag(name: string, text: string | undefined, min: number, fallback: number) {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!/^-?\d+$/.test(text.trim()) || !Number.isSafeInteger(value) || value < min) {
    throw new ChaosUsageError(`--${name} must be a whole number of at least ${min}, not "${text}"`);
  }
  return value;
}

/**
 * A count spread over the swaps (kills, drops, liquidity rounds, atomic swaps): at least 0, at
 * most half the swaps, `perSwap` of them by default.
 */
function atMostHalf(name: string, text: string | undefined, swaps: number, perSwap: number) {
  const value = integerFlag(name, text, 0, Math.round(swaps * perSwap));
  if (value > Math.floor(swaps / 2)) {
    throw new ChaosUsageError(`--${name} ${value} is more than half of --swaps ${swaps}`);
  }
  return value;
}

/** The options of `npm run chaos -- …`; a bad value throws a ChaosUsageError saying which. */
export function parseChaosArgs(argv: readonly string[]): ChaosOptions {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: CHAOS_FLAGS,
    }));
  } catch (error) {
    throw new ChaosUsageError(error instanceof Error ? error.message : String(error));
  }
  const text = (name: string) => values[name] as string | undefined;
  const swaps = integerFlag('swaps', text('swaps'), 1, DEFAULT_SWAPS);
  const kills = atMostHalf('kills', text('kills'), swaps, KILLS_PER_SWAP);
  const drops = atMostHalf('drops', text('drops'), swaps, DROPS_PER_SWAP);
  const liquidity = atMostHalf('liquidity', text('liquidity'), swaps, LIQUIDITY_PER_SWAP);
  const atomic = atMostHalf('atomic', text('atomic'), swaps, ATOMIC_PER_SWAP);
  const seed = integerFlag('seed', text('seed'), 0, 1);
  if (seed > 0xffffffff) throw new ChaosUsageError(`--seed must fit 32 bits, not ${seed}`);
  const workers = integerFlag('workers', text('workers'), 2, 2);
  if (workers > 8) throw new ChaosUsageError(`--workers ${workers} is more than 8`);
  const out = text('out');
  if (out !== undefined && out.trim() === '') throw new ChaosUsageError('--out needs a folder');
  return {
    swaps,
    kills,
    drops,
    liquidity,
    atomic,
    seed,
    workers,
    out: out ?? 'chaos-report',
    keep: values.keep === true,
  };
}
