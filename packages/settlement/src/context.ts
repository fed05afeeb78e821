/** What every part of the engine is given: the ports, the settings, and the step hook. */
import { BaseError } from '@poolparty/core';
import type { LedgerPort } from '@poolparty/ledger';
import type { Database } from '@poolparty/store';
import type { ServiceClock } from './clock.js';
import type { EngineFaults, EngineLog, EngineSettings, EngineStep } from './settings.js';

/**
 * What changed of a pool: `reserves`, its reserves moved (a trade, liquidity), which changes its
 * row and the history trades make (the trailing hour's outputs, swaps with incomplete
 * accounting) but not its hourly snapshots or its reconciliation; `any`, anything.
 */
export type PoolChange = 'reserves' | 'any';

/** Told which pool changed, so that its quotes are computed again. */
export interface QuoteInvalidator {
  invalidate(poolId: string, change?: PoolChange): void;
}

export interface EngineContext {
  readonly db: Database;
  readonly ledger: LedgerPort;
  readonly clock: ServiceClock;
  readonly quoter: QuoteInvalidator;
  readonly log: EngineLog;
  readonly settings: EngineSettings;
  /** Faults a test injects into the items the engine applies; none in service. */
  readonly faults?: Pick<EngineFaults, 'applying' | 'executing'>;
  /** Marks a step boundary: throws `EngineCrash` once the engine has crashed or is told to. */
  step(step: EngineStep): void;
}

/** What a committed transaction asks of the world outside the store. */
export class Effects {
  /** Pools whose reserves changed: their quotes must be recomputed. */
  readonly poolsRepriced = new Set<string>();

  apply(ctx: Pick<EngineContext, 'quoter'>): void {
    for (const poolId of this.poolsRepriced) ctx.quoter.invalidate(poolId, 'reserves');
  }
}

/** Thrown at a step boundary once the engine crashed (injected) or stopped for good. */
export class EngineCrash extends BaseError<'engine_crashed'> {
  override readonly name = 'EngineCrash';
  constructor(message: string) {
    super('engine_crashed', message);
  }
}
