/**
 * What a chaos run does to the deployment as swaps end: SIGKILL a worker and start it again, or
 * end every PostgreSQL session of the api and the workers at once. Each happens once the planned
 * number of swaps has ended; kills follow one another (a restart takes seconds), and so do drops,
 * but a drop does not wait for a restart.
 */
import type { Cluster } from './cluster.js';
import type { DropRecord, KillRecord } from './report.js';
import type { PlannedDrop, PlannedKill } from './schedule.js';

export class Disruptions {
  readonly kills: KillRecord[] = [];
  readonly drops: DropRecord[] = [];
  private killing: Promise<void> = Promise.resolve();
  private dropping: Promise<void> = Promise.resolve();
  private failure: unknown = null;
  private nextKill = 0;
  private nextDrop = 0;

  constructor(
    private readonly cluster: Cluster,
    private readonly killPlan: readonly PlannedKill[],
    private readonly dropPlan: readonly PlannedDrop[],
    /** Seconds into the run, for the records. */
    private readonly seconds: () => number,
  ) {}

  /** Told the number of swaps ended so far, each time one ends. */
  swapsEnded(ended: number): void {
    for (let kill = this.killPlan[this.nextKill]; kill && ended >= kill.afterSwaps; ) {
      this.nextKill += 1;
      const planned = kill;
      this.killing = this.killing.then(() => this.killAndRestart(planned)).catch(this.fail);
      kill = this.killPlan[this.nextKill];
    }
    for (let drop = this.dropPlan[this.nextDrop]; drop && ended >= drop.afterSwaps; ) {
      this.nextDrop += 1;
      const planned = drop;
      this.dropping = this.dropping.then(() => this.dropSessions(planned)).catch(this.fail);
      drop = this.dropPlan[this.nextDrop];
    }
  }

  /** Waits for the kills and drops under way; throws the first that failed. */
  async done(): Promise<void> {
    await Promise.all([this.killing, this.dropping]);
    if (this.failure !== null) throw this.failure;
  }

  private readonly fail = (error: unknown) => {
    this.failure ??= error;
  };

  private async killAndRestart(kill: PlannedKill): Promise<void> {
    const atSeconds = this.seconds();
    await this.cluster.killWorker(kill.worker);
    const restarting = Date.now();
    await this.cluster.restartWorker(kill.worker);
    this.kills.push({ ...kill, atSeconds, restartMs: Date.now() - restarting });
  }

  private async dropSessions(drop: PlannedDrop): Promise<void> {
    const atSeconds = this.seconds();
    const sessions = await this.cluster.dropStoreSessions();
    this.drops.push({ afterSwaps: drop.afterSwaps, atSeconds, sessions });
  }
}
