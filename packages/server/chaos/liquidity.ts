/**
 * The liquidity providers of a chaos run: devnet wallets that, beside the traders, send pools'
 * LP parties deposits nobody asked for and race cancels of their own liquidity intents against
 * their deposits, through @poolparty/sdk/liquidity as an app's users would. What the service must
 * do with each: return a stray deposit whole; refuse a cancel once a deposit was taken (then the
 * provider sends the other side and the intent completes), or accept it and return a deposit that
 * arrives after it. Each round's outcome, as the provider saw it, goes into the report; the final
 * checks (evidence.ts, verdict.ts) judge what the store and the ledger show.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Amount, type Instrument, instrumentKey } from '@poolparty/core';
import { Devnet, type DevnetWallet } from '@poolparty/sdk/devnet';
import {
  type LiquidityIntentObject,
  type Liquidity as LiquidityResource,
  withLiquidity,
} from '@poolparty/sdk/liquidity';
import type { DevnetPoolInfo } from '../src/devnet-bootstrap.js';
import type { PlannedLiquidityRound, RaceRound, StrayKind, StrayRound } from './schedule.js';
import { codeOf, decimal, type SignInQueue, type TraderFaults, WalletUser } from './traders.js';

/** Providers; each runs its rounds one after another (one open intent per pool and provider). */
export const PROVIDERS = 4;
/** Of the providers, these many pre-approve nothing: what comes back to them are offers. */
export const PROVIDERS_WITHOUT_PREAPPROVAL = 1;
/** A stray deposit's size, in Amulet (another token: its value at the seeded price). */
const STRAY_AMULET = 1;
/** A liquidity intent's token A, in Amulet; token B follows at the pool's ratio. */
const INTENT_AMULET = 5;
/** How long a provider waits for a deposit to come back to it. */
const RETURN_WAIT_MS = 90_000;
const RETURN_POLL_MS = 300;
/** How long a provider waits for an intent whose cancel was refused to end. */
const INTENT_WAIT_MS = 5 * 60_000;
/** Cancel attempts after errors other than the refusal (the SDK retries 5xx itself first). */
const CANCEL_ATTEMPTS = 10;
const CANCEL_RETRY_MS = 200;
/** How many recent intents a provider looks through for one whose creation it did not hear of. */
const ADOPT_LOOKBACK = 5;
const NOT_CANCELLABLE = 'liquidity_intent_not_cancellable';

export type CancelAnswer = 'accepted' | 'refused' | 'failed';

/** How one planned liquidity round went, as its provider saw it. */
export interface LiquidityRecord {
  readonly index: number;
  readonly party: string;
  readonly poolId: string;
  /** The stray's kind as sent (a missing reference to borrow makes one up), or `cancel-race`. */
  readonly kind: StrayKind | 'cancel-race';
  /** A cancel race's order: the cancel sent before the deposit; null for a stray. */
  readonly cancelFirst: boolean | null;
  /** What a race's cancel was answered: `accepted`, `refused`, or `failed` (no answer); null for a stray. */
  readonly cancel: CancelAnswer | null;
  /** The token sent, `<id>@<admin>`. */
  readonly token: string;
  readonly intentId: string | null;
  /**
   * `returned`, `return_not_seen`; for a race `cancelled_returned`, `cancelled_return_not_seen`,
   * `refused_completed`, `refused_<end>`, `refused_not_ended:<state>`; or what failed.
   */
  readonly outcome: string;
}

/** What the rounds share: the pools, every instrument they trade, the references made so far. */
export interface LiquidityScene {
  readonly pools: readonly DevnetPoolInfo[];
  /** Every swap and LP party: where returns come from. */
  readonly poolParties: ReadonlySet<string>;
  /** Intent references by the provider that made them, for strays that borrow one. */
  readonly references: { provider: number; reference: string }[];
}

// --- decisions --------------------------------------------------------------------------------

/** Every instrument the pools trade, each once, Amulet first. */
export function instrumentsOf(pools: readonly DevnetPoolInfo[]): Instrument[] {
  const seen = new Map<string, Instrument>();
  for (const pool of pools) {
    for (const instrument of [pool.tokenA, pool.tokenB]) {
      seen.set(instrumentKey(instrument), instrument);
    }
  }
  return [...seen.values()];
}

/** `amulet` Amulet's worth of `instrument` at the seeded price of a pool that trades it. */
export function amountIn(
  instrument: Instrument,
  amulet: number,
  pools: readonly DevnetPoolInfo[],
): string {
  const key = instrumentKey(instrument);
  const pool = pools.find((p) => instrumentKey(p.tokenB) === key);
  if (pool === undefined) return decimal(amulet);
  const price = Number(pool.reserveB) / Number(pool.reserveA);
  return decimal(Number((amulet * price).toPrecision(6)));
}

/** The token of a stray: one the pool does not trade for `untraded-token`, else one of its two. */
export function strayInstrument(
  round: StrayRound,
  pool: DevnetPoolInfo,
  pools: readonly DevnetPoolInfo[],
): Instrument {
  const traded = new Set([instrumentKey(pool.tokenA), instrumentKey(pool.tokenB)]);
  const candidates =
    round.stray === 'untraded-token'
      ? instrumentsOf(pools).filter((i) => !traded.has(instrumentKey(i)))
      : [pool.tokenA, pool.tokenB];
  const chosen = candidates[Math.floor(round.pick * candidates.length)] ?? candidates[0];
  if (chosen === undefined) throw new Error(`no token for a ${round.stray} stray`);
  return chosen;
}

/**
 * The reason a stray carries, and its kind as sent: another provider's reference when one was
 * made (else a made-up one, and the kind says so), a made-up one, or none.
 */
export function strayReference(
  planned: PlannedLiquidityRound & { readonly round: StrayRound },
  references: readonly { provider: number; reference: string }[],
): { readonly reference: string | undefined; readonly kind: StrayKind } {
  const { stray, pick } = planned.round;
  const madeUp = { reference: `pp-stray-${planned.index}`, kind: 'made-up-reference' } as const;
  if (stray === 'made-up-reference') return madeUp;
  if (stray === 'other-reference') {
    const others = references.filter((r) => r.provider !== planned.provider);
    const borrowed = others[Math.floor(pick * others.length)];
    return borrowed ? { reference: borrowed.reference, kind: stray } : madeUp;
  }
  return { reference: undefined, kind: stray };
}

/**
 * What a cancel race does once the cancel was answered, by the answer and the intent's state
 * then: a cancelled intent's deposit must come back; an open one (the cancel refused: a deposit
 * was taken, or not yet seen) gets its other side; any other has ended or is on its way to an
 * end. A cancel accepted of an intent that is not cancelled is the service contradicting itself:
 * the round stops there and says so.
 */
export function afterCancel(
  answer: CancelAnswer,
  status: string,
): 'await_return' | 'send_other_side' | 'await_end' | 'contradiction' {
  if (status === 'cancelled') return 'await_return';
  if (answer === 'accepted') return 'contradiction';
  if (status === 'pending' || status === 'partial') return 'send_other_side';
  return 'await_end';
}

// --- the shell --------------------------------------------------------------------------------

export class LiquidityProvider extends WalletUser {
  private readonly liquidity: LiquidityResource;

  constructor(
    wallet: DevnetWallet,
    preapproved: boolean,
    apiUrl: string,
    apiKey: string,
    faults: TraderFaults,
    signIns: SignInQueue,
    readonly index: number,
  ) {
    super(wallet, preapproved, apiUrl, apiKey, faults, signIns);
    this.liquidity = withLiquidity(this.pp).liquidity;
  }

  /** One planned round, start to end. Never throws: what went wrong is its outcome. */
  async round(planned: PlannedLiquidityRound, scene: LiquidityScene): Promise<LiquidityRecord> {
    const pool = scene.pools[planned.pool];
    if (!pool) throw new Error(`no pool ${planned.pool}`);
    const { round } = planned;
    return round.kind === 'stray'
      ? this.stray({ ...planned, round }, pool, scene)
      : this.race({ ...planned, round }, pool, scene);
  }

  /** Sends `amount` of `instrument` to `receiver` with the reason, once, whatever the faults. */
  private async send(
    receiver: string,
    instrument: Instrument,
    amount: string,
    reason: string | undefined,
  ): Promise<void> {
    const commandId = `chaos-lp-${randomUUID()}`;
    const transfer = { commandId, receiver, token: instrument.id, admin: instrument.admin, amount };
    await this.persist(() =>
      this.wallet.transfer(reason === undefined ? transfer : { ...transfer, reason }),
    );
  }

  private async freeBalance(instrument: Instrument): Promise<Amount> {
    const balance = await this.persist(() => this.wallet.balance(instrument.id, instrument.admin));
    return Amount.parse(balance ?? '0');
  }

  /**
   * Waits until this party's spendable `instrument` is back to `before`: the deposit it sent came
   * back (an offer rejected unlocks it; a return arrives, accepted when it is an offer).
   */
  private async awaitReturn(
    instrument: Instrument,
    before: Amount,
    scene: LiquidityScene,
  ): Promise<boolean> {
    const deadline = Date.now() + RETURN_WAIT_MS;
    while (Date.now() < deadline) {
      await this.acceptPendingFrom(scene.poolParties).catch((e) => this.noteError(e));
      if ((await this.freeBalance(instrument)).gte(before)) return true;
      await sleep(RETURN_POLL_MS);
    }
    return false;
  }

  private async stray(
    planned: PlannedLiquidityRound & { readonly round: StrayRound },
    pool: DevnetPoolInfo,
    scene: LiquidityScene,
  ): Promise<LiquidityRecord> {
    const instrument = strayInstrument(planned.round, pool, scene.pools);
    const { reference, kind } = strayReference(planned, scene.references);
    const base = {
      index: planned.index,
      party: this.party,
      poolId: pool.poolId,
      kind,
      cancelFirst: null,
      cancel: null,
      token: instrumentKey(instrument),
      intentId: null,
    };
    try {
      const before = await this.freeBalance(instrument);
      const amount = amountIn(instrument, STRAY_AMULET * planned.size, scene.pools);
      await this.send(pool.lpParty, instrument, amount, reference);
      const back = await this.awaitReturn(instrument, before, scene);
      return { ...base, outcome: back ? 'returned' : 'return_not_seen' };
    } catch (error) {
      this.noteError(error);
      return { ...base, outcome: `send_failed:${codeOf(error)}` };
    }
  }

  /** The intent for the round: created, or one whose creation committed unheard (adopted). */
  private async openIntent(pool: DevnetPoolInfo, size: number): Promise<LiquidityIntentObject> {
    await this.signedIn();
    try {
      return await this.liquidity.create({
        poolId: pool.poolId,
        amountA: decimal(INTENT_AMULET * size),
      });
    } catch (error) {
      this.noteError(error);
      const recent = await this.liquidity.list({ limit: ADOPT_LOOKBACK }).catch(() => []);
      const open = recent.find((i) => i.poolId === pool.poolId && i.status === 'pending');
      if (open === undefined) throw error;
      return this.liquidity.get(open.liquidityIntentId);
    }
  }

  /** Cancels; answers whether the service accepted, refused, or never answered either way. */
  private async cancel(intent: LiquidityIntentObject): Promise<CancelAnswer> {
    for (let attempt = 1; attempt <= CANCEL_ATTEMPTS; attempt += 1) {
      try {
        await intent.cancel();
        return 'accepted';
      } catch (error) {
        if (codeOf(error) === NOT_CANCELLABLE) return 'refused';
        this.noteError(error);
        await sleep(CANCEL_RETRY_MS);
      }
    }
    return 'failed';
  }

  private async race(
    planned: PlannedLiquidityRound & { readonly round: RaceRound },
    pool: DevnetPoolInfo,
    scene: LiquidityScene,
  ): Promise<LiquidityRecord> {
    const { side, cancelOffsetMs } = planned.round;
    const instrument = tokenOf(pool, side);
    const base = {
      index: planned.index,
      party: this.party,
      poolId: pool.poolId,
      kind: 'cancel-race' as const,
      cancelFirst: cancelOffsetMs < 0,
      token: instrumentKey(instrument),
    };
    let intent: LiquidityIntentObject;
    try {
      intent = await this.openIntent(pool, planned.size);
    } catch (error) {
      return { ...base, cancel: null, intentId: null, outcome: `not_created:${codeOf(error)}` };
    }
    scene.references.push({ provider: this.index, reference: intent.depositReference });
    let record = {
      ...base,
      cancel: null as CancelAnswer | null,
      intentId: intent.liquidityIntentId,
    };
    try {
      const before = await this.freeBalance(instrument);
      const raced = await this.depositAndCancel(intent, side, cancelOffsetMs);
      record = { ...record, cancel: raced.cancel };
      if (raced.depositFailed !== null) {
        return { ...record, outcome: `deposit_failed:${raced.depositFailed}` };
      }
      const status = (await this.persist(() => intent.get()))?.status ?? intent.latest.status;
      switch (afterCancel(raced.cancel, status)) {
        case 'await_return': {
          const back = await this.awaitReturn(instrument, before, scene);
          return { ...record, outcome: back ? 'cancelled_returned' : 'cancelled_return_not_seen' };
        }
        case 'contradiction':
          return { ...record, outcome: `cancel_accepted_but_${status}` };
        case 'send_other_side': {
          const other = side === 'a' ? 'b' : 'a';
          const { depositAddress, depositReference } = intent;
          await this.send(
            depositAddress,
            tokenOf(pool, other),
            intent.expected[other],
            depositReference,
          );
          return { ...record, outcome: await this.awaitEnd(intent, scene) };
        }
        case 'await_end':
          return { ...record, outcome: await this.awaitEnd(intent, scene) };
      }
    } catch (error) {
      this.noteError(error);
      return { ...record, outcome: `failed:${codeOf(error)}` };
    }
  }

  /**
   * One side's deposit and the cancel, `offsetMs` apart: the cancel that long after the deposit
   * committed, or, when negative, that long before the deposit is sent. Answers the cancel's
   * answer, and why the deposit could not be sent (null when it was).
   */
  private async depositAndCancel(
    intent: LiquidityIntentObject,
    side: 'a' | 'b',
    offsetMs: number,
  ): Promise<{ readonly cancel: CancelAnswer; readonly depositFailed: string | null }> {
    const instrument =
      side === 'a'
        ? { id: intent.tokenA, admin: intent.tokenAAdmin }
        : { id: intent.tokenB, admin: intent.tokenBAdmin };
    const depositing = (async () => {
      if (offsetMs < 0) await sleep(-offsetMs);
      await this.send(
        intent.depositAddress,
        instrument,
        intent.expected[side],
        intent.depositReference,
      );
    })();
    const cancelling = (async () => {
      if (offsetMs >= 0) {
        await depositing.catch(() => {});
        await sleep(offsetMs);
      }
      return this.cancel(intent);
    })();
    const [deposit, cancel] = await Promise.all([
      depositing.then(
        () => null,
        (error: unknown) => codeOf(error),
      ),
      cancelling,
    ]);
    return { cancel, depositFailed: deposit };
  }

  /** Waits for the intent's end, accepting what comes back as offers meanwhile. */
  private async awaitEnd(intent: LiquidityIntentObject, scene: LiquidityScene): Promise<string> {
    let waiting = true;
    const accepting = (async () => {
      while (waiting && !this.preapproved) {
        await this.acceptPendingFrom(scene.poolParties).catch((e) => this.noteError(e));
        await sleep(RETURN_POLL_MS);
      }
    })();
    try {
      const ended = await intent.wait({ timeoutMs: INTENT_WAIT_MS });
      return `refused_${ended.status}`;
    } catch (error) {
      const status = intent.latest.status;
      // `wait()` rejects at every end but `completed`, with the end as its code.
      return codeOf(error) === status ? `refused_${status}` : `refused_not_ended:${status}`;
    } finally {
      waiting = false;
      await accepting;
    }
  }
}

function tokenOf(pool: DevnetPoolInfo, side: 'a' | 'b'): Instrument {
  return side === 'a' ? pool.tokenA : pool.tokenB;
}

/**
 * Resolves waits for a number of ended swaps, as the traders end them; `finish()` releases every
 * wait once the traders are done, so that no round is left waiting for a swap that will not come.
 */
export class SwapMilestones {
  private ended = 0;
  private finished = false;
  private readonly waits: { readonly at: number; readonly resolve: () => void }[] = [];

  /** Told the number of swaps ended so far. */
  reached(ended: number): void {
    this.ended = Math.max(this.ended, ended);
    this.release();
  }

  finish(): void {
    this.finished = true;
    this.release();
  }

  at(count: number): Promise<void> {
    if (this.finished || this.ended >= count) return Promise.resolve();
    return new Promise((resolve) => this.waits.push({ at: count, resolve }));
  }

  private release(): void {
    for (let i = this.waits.length - 1; i >= 0; i -= 1) {
      const wait = this.waits[i];
      if (wait && (this.finished || this.ended >= wait.at)) {
        this.waits.splice(i, 1);
        wait.resolve();
      }
    }
  }
}

/** Runs the planned rounds: each provider its own, one after another, each at its point. */
export async function runLiquidity(
  providers: readonly LiquidityProvider[],
  plan: readonly PlannedLiquidityRound[],
  scene: LiquidityScene,
  milestones: SwapMilestones,
  ended: (record: LiquidityRecord) => void,
): Promise<void> {
  await Promise.all(
    providers.map(async (provider) => {
      for (const planned of plan.filter((p) => p.provider === provider.index)) {
        await milestones.at(planned.afterSwaps);
        ended(await provider.round(planned, scene));
      }
    }),
  );
}

export interface ProviderSetup {
  readonly devnetUrl: string;
  readonly apiUrl: string;
  readonly apiKey: string;
  readonly pools: readonly DevnetPoolInfo[];
  /** Rounds each provider will run at most, to size its funding. */
  readonly roundsPerProvider: number;
  readonly faults: TraderFaults;
  readonly signIns: SignInQueue;
  /** Makes party hints unique across runs on one ledger. */
  readonly tag: string;
}

/** Funded providers, with every token the pools trade; each signs in at its first intent. */
export async function makeProviders(setup: ProviderSetup): Promise<LiquidityProvider[]> {
  const devnet = new Devnet({ baseUrl: setup.devnetUrl });
  // Every round could keep an intent's worth in a pool; strays and returns need room besides.
  const amulet = (setup.roundsPerProvider + 10) * (INTENT_AMULET + STRAY_AMULET) * 4;
  const providers: LiquidityProvider[] = [];
  for (let index = 0; index < PROVIDERS; index += 1) {
    const preapproved = index >= PROVIDERS_WITHOUT_PREAPPROVAL;
    const wallet = await devnet.createWallet({
      partyHint: `chaos-lp-${setup.tag}-${index}`,
      preapproval: preapproved,
    });
    for (const instrument of instrumentsOf(setup.pools)) {
      const amount = amountIn(instrument, amulet, setup.pools);
      await wallet.fund(instrument.id, amount, instrument.admin);
    }
    providers.push(
      new LiquidityProvider(
        wallet,
        preapproved,
        setup.apiUrl,
        setup.apiKey,
        setup.faults,
        setup.signIns,
        index,
      ),
    );
  }
  return providers;
}
