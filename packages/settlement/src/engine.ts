/**
 * The engine's schedule, in-process: recovery first, then three loops.
 *
 * - The ingest loop, while this engine leads the stream (leadership.ts), follows the ledger's
 *   update stream from the stored checkpoint and reconnects with backoff from the last checkpoint
 *   when the stream drops. It applies every update the stream has already delivered (up to
 *   `ingestBatchMax`) in one transaction with the checkpoint, and never waits to fill a batch.
 *   Losing the lead stops it; the engine then queues for the lead again.
 * - The work loop expires due intents, records the withdrawal of the service's own offers past
 *   their deadline, executes queued intents (one batch per pool) and submits due commands, each
 *   in bounded batches; it runs again at once while there is progress, otherwise it waits for a
 *   `poke()` (an HTTP change, an ingested update), the next backed-off retry, or the idle period.
 * - The reconcile loop, while this engine leads the stream, compares the swap parties' holdings
 *   with the books every `reconcileIntervalMs` (reconciler.ts).
 *
 * Several workers on one store: only the leader ingests and reconciles; every worker expires,
 * submits and executes. Every state change is a conditional update in the store and a command is
 * claimed before it is submitted, so a second process running the same loops can only lose
 * races, never double an effect. `stop()` lets the current step finish. A crash injected at a
 * step boundary (`faults.crashAt`) halts every loop there, as a killed process would, so a test
 * can start a fresh engine on the same store and ledger.
 */
import { FailedAttempts, judgeItemFailure } from '@poolparty/core';
import { LedgerError, type LedgerUpdate } from '@poolparty/ledger';
import type { LeaderTerm, StreamLeadership } from '@poolparty/store';
import {
  causedByConnectionLoss,
  ENGINE_WORK_CHANNEL,
  getLedgerOffset,
  listPools,
  nextRetryAt,
  type PoolRecord,
  ResilientListener,
} from '@poolparty/store';
import { type EngineContext, EngineCrash } from './context.js';
import { executeQueued } from './execution.js';
import { type IngestResult, ingestUpdates } from './ingest.js';
import { expireDue } from './intent-kinds.js';
import { withdrawExpiredOffers } from './offer-withdrawal.js';
import { type ReconciliationReport, reconcile } from './reconciler.js';
import { isItemFailure, setUpdateAside } from './set-aside.js';
import {
  backoffMs,
  type EngineFaults,
  type EngineLog,
  type EngineSettings,
  type EngineStep,
} from './settings.js';
import { recoverCommands, SubmissionPipeline } from './submission.js';
import { batchesOf } from './update-batches.js';

export interface Engine {
  /** Runs pending work promptly (e.g. after an intent was created or cancelled). */
  poke(): void;
  /**
   * The store's pools may have changed (`admin pools add` in another process): a stream that
   * does not follow every swap party is followed again, from the checkpoint, with all of them.
   */
  poolsChanged(): void;
  /** Stops after the current step; resolves once both loops have ended. */
  stop(): Promise<void>;
  /** True once an injected crash (or an unrecoverable error) halted the engine. */
  readonly crashed: boolean;
  /** True while this engine leads the ledger stream: it ingests and reconciles. */
  readonly leading: boolean;
  /**
   * Runs a reconciliation now (as the schedule would); a run of an engine that does not lead the
   * stream is skipped and says so.
   */
  reconcileNow(): Promise<ReconciliationReport>;
}

type Ports = Omit<EngineContext, 'step' | 'log' | 'settings' | 'faults'>;

/** What an ingest applied: every update, and those that may have left the engine work. */
type Applied = Pick<IngestResult, 'applied' | 'forEngine'>;

export class SettlementEngine implements Engine {
  private stopping = false;
  private failure: unknown = null;
  private readonly abort = new AbortController();
  private wakeRequested = false;
  private readonly sleepers = new Set<{ readonly onPoke: boolean; readonly wake: () => void }>();
  private loops: Promise<void>[] = [];
  private readonly ctx: EngineContext;
  private term: LeaderTerm | null = null;
  /** Ends the stream followed now, so that it is followed again with the pools of the store. */
  private streamRestart: AbortController | null = null;
  /** The pools' parties (swap and LP) the stream followed now is filtered to. */
  private streamParties: ReadonlySet<string> = new Set();
  /** Runs of this engine follow one another, whether scheduled or asked for. */
  private reconciling: Promise<unknown> = Promise.resolve();
  /** Hears of commands recorded outside the engine (`announceEngineWork`); null until started. */
  private workAnnouncements: ResilientListener | null = null;
  /** Commands being sent while the work loop goes on. */
  private readonly submissions: SubmissionPipeline;
  /** Updates whose application failed by their own fault, by offset, until applied or set aside. */
  private readonly failedUpdates = new FailedAttempts<number>();
  /** Swaps whose execution failed by their own fault, until executed or set aside. */
  private readonly failedSwaps = new FailedAttempts<string>();

  constructor(
    ports: Ports,
    private readonly settings: EngineSettings,
    private readonly log: EngineLog,
    private readonly faults: EngineFaults,
    private readonly leadership: StreamLeadership,
  ) {
    this.ctx = { ...ports, settings, log, faults, step: (step) => this.step(step) };
    this.submissions = new SubmissionPipeline(this.ctx, {
      onBatchEnded: () => this.poke(),
      onBatchFailed: (error) =>
        this.reportFailure('submitting commands failed', error, settings.commandClaimMs),
    });
  }

  get crashed(): boolean {
    return this.failure !== null;
  }

  get leading(): boolean {
    return this.term !== null && !this.term.lost.aborted && !this.halted();
  }

  async start(): Promise<void> {
    try {
      await recoverCommands(this.ctx);
    } catch (error) {
      if (error instanceof EngineCrash) return;
      throw error;
    }
    this.workAnnouncements = await this.listenForAnnouncedWork();
    this.loops = [this.leadLoop(), this.workLoop(), this.reconcileLoop()];
  }

  /**
   * A command recorded outside the engine (a withdrawal's payouts, by the API, in this process or
   * another) is announced at its commit, and the engine wakes for it. Only a hint: without it the
   * engine still finds the work at its next idle round.
   */
  private listenForAnnouncedWork(): Promise<ResilientListener> {
    const poke = () => this.poke();
    return ResilientListener.open(
      this.ctx.db,
      ENGINE_WORK_CHANNEL,
      { onNotification: poke, onListeningAgain: poke },
      {
        onListenerProblem: (error, retryInMs) =>
          this.log.warn('listening for recorded work failed; the idle rounds find it meanwhile', {
            error: error.message,
            retryInMs,
          }),
      },
    );
  }

  poolsChanged(): void {
    void listPools(this.ctx.db).then(
      (pools) => {
        const parties = new Set(poolParties(pools));
        const same =
          parties.size === this.streamParties.size &&
          [...parties].every((party) => this.streamParties.has(party));
        if (!same) this.streamRestart?.abort();
      },
      // The next change, or the next reconnect of the stream, reads the pools again.
      (error: unknown) => this.log.warn('could not re-read the pools', { error: String(error) }),
    );
  }

  poke(): void {
    this.wakeRequested = true;
    this.wakeSleepers((sleeper) => sleeper.onPoke);
  }

  private wakeSleepers(which: (sleeper: { readonly onPoke: boolean }) => boolean): void {
    for (const sleeper of [...this.sleepers]) if (which(sleeper)) sleeper.wake();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.abort.abort();
    this.wakeSleepers(() => true);
    await this.workAnnouncements?.close();
    await Promise.allSettled(this.loops);
    await this.submissions.ended();
  }

  private halted(): boolean {
    return this.stopping || this.failure !== null;
  }

  private step(step: EngineStep): void {
    if (this.failure !== null) throw new EngineCrash(`the engine crashed before ${step}`);
    try {
      this.faults.crashAt?.(step);
    } catch (error) {
      this.failure = error;
      this.abort.abort();
      this.wakeSleepers(() => true);
      throw new EngineCrash(`crash injected at ${step}`);
    }
  }

  /** Queues for leadership of the stream, ingests while it lasts, and queues again once lost. */
  private async leadLoop(): Promise<void> {
    while (!this.halted()) {
      const term = await this.leadership.acquire(this.settings.stream, this.abort.signal);
      if (term === null) return;
      this.term = term;
      try {
        await this.ingestLoop(term);
      } finally {
        this.term = null;
        await term.release();
      }
      if (!this.halted()) this.log.warn('lost the lead of the update stream; queueing again');
    }
  }

  private async ingestLoop(term: LeaderTerm): Promise<void> {
    const signal = AbortSignal.any([this.abort.signal, term.lost]);
    const ended = () => this.halted() || term.lost.aborted;
    let failures = 0;
    while (!ended()) {
      const restart = new AbortController();
      this.streamRestart = restart;
      try {
        await this.followStream(AbortSignal.any([signal, restart.signal]), ended, () => {
          failures = 0;
        });
        // Ended to take in new pools: follow again at once, from the checkpoint.
        if (restart.signal.aborted) continue;
      } catch (error) {
        if (error instanceof EngineCrash || ended()) return;
        if (restart.signal.aborted) continue;
        failures += 1;
        const dropped = error instanceof LedgerError && error.code === 'stream_dropped';
        if (!dropped)
          this.reportFailure('update stream failed', error, this.streamRetryMs(failures));
      }
      if (ended()) return;
      await this.pause(this.streamRetryMs(failures), false);
    }
  }

  private async followStream(
    signal: AbortSignal,
    ended: () => boolean,
    onProgress: () => void,
  ): Promise<void> {
    const { db, ledger } = this.ctx;
    const pools = await listPools(db);
    this.streamParties = new Set(poolParties(pools));
    const from = (await getLedgerOffset(db, this.settings.stream)) ?? this.settings.startOffset;
    const parties = poolParties(pools);
    // Ends the subscription however this returns: a read may be pending ahead of the batch.
    const following = new AbortController();
    const stream = ledger.updates(from, {
      parties,
      signal: AbortSignal.any([signal, following.signal]),
    });
    try {
      for await (const batch of batchesOf(stream, this.settings.ingestBatchMax)) {
        if (ended() || signal.aborted) return;
        const applied = await this.ingestBatch(batch, pools);
        onProgress();
        if (applied.applied === 0) continue;
        this.ctx.step('update_ingested');
        // Atomic swaps' updates alone leave no round any work: a round would only read the store.
        if (applied.forEngine > 0) this.poke();
      }
    } finally {
      following.abort();
    }
  }

  /**
   * Applies a batch in one transaction. Should it fail, its updates are applied one by one, so
   * every update before the one that fails still commits and the stream resumes at that one, as
   * it would without batches.
   */
  private async ingestBatch(
    batch: readonly LedgerUpdate[],
    pools: readonly PoolRecord[],
  ): Promise<Applied> {
    if (batch.length > 1) {
      try {
        return await ingestUpdates(this.ctx, batch, pools);
      } catch (error) {
        // Without the store, one by one fails as the batch did: the stream waits and resumes.
        if (!isItemFailure(error)) throw error;
        this.log.warn('an ingest batch failed; applying its updates one by one', {
          updates: batch.length,
          error: String(error),
        });
      }
    }
    const applied = { applied: 0, forEngine: 0 };
    for (const update of batch) {
      const one = await this.ingestAlone(update, pools);
      applied.applied += one.applied;
      applied.forEngine += one.forEngine;
    }
    return applied;
  }

  /**
   * Applies one update. A failure of its own is counted; the stream resumes at it after a backoff
   * until `itemAttemptsMax` failures, and then it is set aside with an operator flag and the
   * stream goes on past it (docs/operations.md#items-set-aside).
   */
  private async ingestAlone(update: LedgerUpdate, pools: readonly PoolRecord[]): Promise<Applied> {
    try {
      const applied = await ingestUpdates(this.ctx, [update], pools);
      this.failedUpdates.settled(update.offset);
      return applied;
    } catch (error) {
      if (!isItemFailure(error)) throw error;
      const attempts = this.failedUpdates.failed(update.offset);
      if (judgeItemFailure(attempts, this.settings.itemAttemptsMax) === 'retry') throw error;
      const setAside = await setUpdateAside(this.ctx, update, { error, attempts });
      this.failedUpdates.settled(update.offset);
      if (setAside) {
        this.log.error('an update kept failing and was set aside with an operator flag', {
          offset: update.offset,
          updateId: update.updateId,
          attempts,
          error: String(error),
        });
      }
      // An update set aside is the operator's now: the round is poked as for any other.
      const count = setAside ? 1 : 0;
      return { applied: count, forEngine: count };
    }
  }

  private async workLoop(): Promise<void> {
    let failures = 0;
    while (!this.halted()) {
      this.wakeRequested = false;
      try {
        const progressed = await this.round();
        failures = 0;
        // Inside the try: choosing how long to idle reads the store, which may be out of reach.
        if (!progressed && !this.halted()) await this.idle();
      } catch (error) {
        if (error instanceof EngineCrash || this.halted()) return;
        failures += 1;
        const { retryBaseDelayMs, retryDelayMaxMs } = this.settings;
        const retryInMs = backoffMs(failures, retryBaseDelayMs, retryDelayMaxMs);
        this.reportFailure('settlement work failed', error, retryInMs);
        await this.pause(retryInMs, false);
      }
    }
  }

  /** One round of work; true when it did something (another round may find more). */
  private async round(): Promise<boolean> {
    const ctx = this.ctx;
    let progressed = (await expireDue(ctx)) > 0;
    if (this.halted()) return progressed;
    progressed = (await withdrawExpiredOffers(ctx)) > 0 || progressed;
    if (this.halted()) return progressed;
    // Execution before submission: the payouts and refunds it records go out in the same round.
    progressed = (await executeQueued(ctx, this.failedSwaps)) > 0 || progressed;
    if (this.halted()) return progressed;
    progressed = (await this.submissions.fill()) > 0 || progressed;
    return progressed;
  }

  private async reconcileLoop(): Promise<void> {
    while (!this.halted()) {
      await this.pause(this.settings.reconcileIntervalMs, false);
      if (this.halted()) return;
      try {
        await this.reconcileNow();
      } catch (error) {
        if (error instanceof EngineCrash || this.halted()) return;
        this.reportFailure('reconciliation failed', error, this.settings.reconcileIntervalMs);
      }
    }
  }

  private streamRetryMs(failures: number): number {
    const { streamRetryBaseDelayMs, streamRetryDelayMaxMs } = this.settings;
    return backoffMs(failures, streamRetryBaseDelayMs, streamRetryDelayMaxMs);
  }

  /**
   * A lost store connection is a wait, not a fault of the engine's: it is said as what the
   * engine waits for, at warn. Anything else is an error.
   */
  private reportFailure(what: string, error: unknown, retryInMs: number): void {
    if (causedByConnectionLoss(error)) {
      this.log.warn(`${what}: waiting for the store connection`, {
        error: String(error),
        retryInMs,
      });
      return;
    }
    this.log.error(what, { error: String(error), retryInMs });
  }

  reconcileNow(): Promise<ReconciliationReport> {
    const run = this.reconciling.then(() =>
      this.leading
        ? reconcile(this.ctx, this.abort.signal)
        : { runs: [], deferred: [], skipped: 'not_leading' as const },
    );
    this.reconciling = run.catch(() => {});
    return run;
  }

  private async idle(): Promise<void> {
    let waitMs = this.settings.idleIntervalMs;
    const retryAt = await nextRetryAt(this.ctx.db);
    if (retryAt !== null) {
      waitMs = Math.min(waitMs, Math.max(retryAt.getTime() - this.ctx.clock.now().getTime(), 0));
    }
    await this.pause(waitMs, true);
  }

  /** Waits `ms`, or less when stopped (or, with `onPoke`, when poked). */
  private pause(ms: number, onPoke: boolean): Promise<void> {
    if ((onPoke && this.wakeRequested) || this.halted()) return Promise.resolve();
    return new Promise((resolve) => {
      const sleeper = {
        onPoke,
        wake: () => {
          clearTimeout(timer);
          this.sleepers.delete(sleeper);
          resolve();
        },
      };
      const timer = setTimeout(sleeper.wake, ms);
      this.sleepers.add(sleeper);
    });
  }
}

/** The parties whose updates the engine follows: each pool's swap party and its LP party. */
function poolParties(pools: readonly { swapParty: string; lpParty: string }[]): string[] {
  return pools.flatMap((pool) => [pool.swapParty, pool.lpParty]);
}
