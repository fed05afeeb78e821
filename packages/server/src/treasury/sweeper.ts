/**
 * The worker's automatic treasury sweeps (docs/spec/treasury.md#automatic-sweeps): every
 * `SWEEP_CHECK_INTERVAL_MS` a round looks at the pools least recently swept (at most
 * `POOLPARTY_TREASURY_SWEEP_POOLS_MAX`) and sweeps each side whose sweepable fees are above its
 * threshold and whose last sweep is at least `POOLPARTY_TREASURY_SWEEP_INTERVAL_MS` old. The
 * schedule lives in the store (each side's last sweep), so a restart or a second worker neither
 * sweeps early nor twice: every decision is taken under the pool's lock.
 */
import {
  type ServiceClock,
  type SideSweep,
  type SweepSchedule,
  sweepDueSides,
  type TreasuryTarget,
} from '@poolparty/settlement';
import type { Database } from '@poolparty/store';
import { PeriodicJob } from '../periodic-job.js';

/**
 * How often a round looks for due sides: far shorter than any sweep interval, so a side is swept
 * within minutes of falling due, and long enough that the rounds cost the store nothing to speak of.
 */
const SWEEP_CHECK_INTERVAL_MS = 10 * 60_000;

export interface TreasurySweeperDeps {
  readonly db: Database;
  readonly clock: ServiceClock;
  readonly target: TreasuryTarget;
  readonly schedule: SweepSchedule;
  /** Told of the sweeps a round recorded: the engine submits them. */
  readonly onRecorded: (sweeps: readonly SideSweep[]) => void;
  /** Told of a round that failed; the next round tries again. */
  readonly onError: (error: unknown) => void;
}

/** Runs a round now and then every check interval, one round at a time, until stopped. */
export class TreasurySweeper extends PeriodicJob<SideSweep[]> {
  constructor(deps: TreasurySweeperDeps) {
    const { db, clock, target, schedule } = deps;
    super({
      run: () => sweepDueSides(db, { target, schedule, now: clock.now() }),
      onDone: (sides) => {
        const recorded = sides.filter((side) => side.kind === 'recorded');
        if (recorded.length > 0) deps.onRecorded(recorded);
      },
      onError: deps.onError,
    });
  }

  override start(checkIntervalMs = SWEEP_CHECK_INTERVAL_MS): void {
    super.start(checkIntervalMs);
  }
}
