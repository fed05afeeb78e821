/**
 * The traders of a chaos run: devnet wallets that swap through @poolparty/sdk as an integrator's
 * users would — create the swap, send the deposit from their wallet, accept the payout or refund
 * offers when they pre-approve nothing, and wait for the end. Each keeps going through whatever
 * the ledger's faults throw at its own calls: a refused or timed-out wallet submission is sent
 * again with the same command id (the ledger deduplicates it), an offer is accepted until it is
 * no longer pending.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Amount, IN_PROGRESS_STATES } from '@poolparty/core';
import { PoolParty, type Swap } from '@poolparty/sdk';
import { Devnet, type DevnetWallet } from '@poolparty/sdk/devnet';
import type { DevnetPoolInfo } from '../src/devnet-bootstrap.js';
import type { PlannedSwap, SwapSetup } from './schedule.js';

/** The least slippage tolerance a client may ask for. */
const TIGHT_SLIPPAGE = 0.001;
/** Base swap size, in Amulet (the other side is its value at the pool's seeded price). */
const BASE_AMULET = 20;
/** Wallet tokens last 15 minutes; a trader signs in again well before. */
const TOKEN_REFRESH_MS = 10 * 60_000;
/**
 * Sign-ins are limited per client address (30 requests a minute, two per sign-in), and every
 * wallet of the run signs in from one: a refused one waits for the limit to refill, as an app
 * would, for at most a little over a minute.
 */
const SIGN_IN_ATTEMPTS = 15;
const SIGN_IN_RETRY_MS = 5_000;

/**
 * The wallets of a run sign in one at a time. Were each to retry on its own, a few refused
 * wallets retrying together would take the limit's refill as fast as it comes and none would
 * get through; in turn, one retries while the others wait.
 */
export class SignInQueue {
  private last: Promise<unknown> = Promise.resolve();

  run<T>(work: () => Promise<T>): Promise<T> {
    const next = this.last.then(work, work);
    this.last = next.catch(() => {});
    return next;
  }
}
/** A swap still running after this long is recorded as such; the final checks judge it. */
const SWAP_WAIT_MS = 10 * 60_000;
const SUBMIT_ATTEMPTS = 40;
/** How long a trader looks for the offer that returns a deposit no intent took. */
const RETURN_WAIT_MS = 60_000;

/** How one planned swap went, as its trader saw it. */
export interface SwapRecord {
  readonly index: number;
  readonly party: string;
  readonly poolId: string;
  readonly aIn: boolean;
  readonly setup: SwapSetup;
  /** The intent, or null when it could not be created. */
  readonly intentId: string | null;
  /** The deposit's update, or null when none was made. */
  readonly depositUpdateId: string | null;
  /** The swap's last state seen (`completed`, `slippage_failed`, `cancelled`, …), or what failed. */
  readonly outcome: string;
  /** Deposit sent to the swap's end, in milliseconds; null when it did not end. */
  readonly depositToTerminalMs: number | null;
}

/** What the traders' own calls met of the ledger's faults. */
export interface TraderFaults {
  /** Wallet submissions (deposits, offer answers) sent again after an error. */
  submissionRetries: number;
  /** Errors by code. */
  readonly errors: Record<string, number>;
}

export function codeOf(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : error instanceof Error ? error.name : 'unknown';
}

/** A decimal string of `value` with at most 10 decimals, never in exponent form. */
export function decimal(value: number): string {
  const fixed = value.toFixed(10);
  return fixed.replace(/\.?0+$/, '');
}

/** The amount a planned swap puts in, in the input token. */
export function amountFor(pool: DevnetPoolInfo, planned: PlannedSwap): string {
  const amulet = BASE_AMULET * planned.size;
  if (planned.aIn) return decimal(amulet);
  const price = Number(pool.reserveB) / Number(pool.reserveA);
  return decimal(Number((amulet * price).toPrecision(6)));
}

/**
 * A devnet wallet signed in to the service as its user would be, that keeps going through the
 * ledger's faults: the traders and the liquidity providers are both one.
 */
export class WalletUser {
  private token: string | undefined;
  private tokenAt = 0;
  readonly pp: PoolParty;

  constructor(
    readonly wallet: DevnetWallet,
    readonly preapproved: boolean,
    apiUrl: string,
    apiKey: string,
    protected readonly faults: TraderFaults,
    private readonly signIns: SignInQueue,
  ) {
    this.pp = new PoolParty({
      apiKey,
      environment: 'devnet',
      baseUrl: apiUrl,
      walletToken: () => this.token,
    });
  }

  get party(): string {
    return this.wallet.partyId;
  }

  protected async signedIn(): Promise<void> {
    if (this.token !== undefined && Date.now() - this.tokenAt < TOKEN_REFRESH_MS) return;
    await this.signIns.run(() => this.signIn());
  }

  private async signIn(): Promise<void> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        ({ token: this.token } = await this.wallet.authenticate(this.pp));
        this.tokenAt = Date.now();
        return;
      } catch (error) {
        if (codeOf(error) !== 'rate_limited' || attempt >= SIGN_IN_ATTEMPTS) throw error;
        this.noteError(error);
        await sleep(SIGN_IN_RETRY_MS);
      }
    }
  }

  protected noteError(error: unknown): void {
    const code = codeOf(error);
    this.faults.errors[code] = (this.faults.errors[code] ?? 0) + 1;
  }

  /** Runs `call` until it succeeds, `done()` says it took effect, or the attempts run out. */
  protected async persist<T>(
    call: () => Promise<T>,
    done?: () => Promise<boolean>,
  ): Promise<T | null> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await call();
      } catch (error) {
        this.noteError(error);
        if (done && (await done().catch(() => false))) return null;
        if (attempt >= SUBMIT_ATTEMPTS) throw error;
        this.faults.submissionRetries += 1;
        await sleep(Math.min(2_000, 50 * attempt));
      }
    }
  }

  /** Accepts an offer to this party until it is accepted or no longer pending. */
  protected async accept(offerId: string): Promise<void> {
    const gone = async () => !(await this.wallet.offers()).some((o) => o.offerId === offerId);
    await this.persist(() => this.wallet.acceptOffer(offerId), gone);
  }

  /**
   * Accepts every offer pending from one of `senders`, as a wallet's user clears the inbox: what
   * the run's own waiting may have missed. Answers how many there were.
   */
  async acceptPendingFrom(senders: ReadonlySet<string>): Promise<number> {
    if (this.preapproved) return 0;
    const offers = (await this.wallet.offers()).filter((o) => senders.has(o.sender));
    for (const offer of offers) await this.accept(offer.offerId).catch((e) => this.noteError(e));
    return offers.length;
  }
}

export class Trader extends WalletUser {
  /** Waits for the offer returning the deposit of `depositUpdateId` and accepts it. */
  private async acceptReturn(depositUpdateId: string): Promise<boolean> {
    const deadline = Date.now() + RETURN_WAIT_MS;
    while (Date.now() < deadline) {
      const offers = await this.wallet.offers().catch(() => []);
      const offer = offers.find((o) => o.reason?.startsWith(`refund:${depositUpdateId}:`));
      if (offer) {
        await this.accept(offer.offerId).catch((e) => this.noteError(e));
        return true;
      }
      await sleep(250);
    }
    return false;
  }

  /** One planned swap, start to end. Never throws: what went wrong is its outcome. */
  async swap(planned: PlannedSwap, pool: DevnetPoolInfo): Promise<SwapRecord> {
    const input = planned.aIn ? pool.tokenA : pool.tokenB;
    const output = planned.aIn ? pool.tokenB : pool.tokenA;
    const base = {
      index: planned.index,
      party: this.party,
      poolId: pool.poolId,
      aIn: planned.aIn,
      setup: planned.setup,
    };
    let swap: Swap;
    try {
      await this.signedIn();
      swap = await this.pp.swaps.create({
        fromToken: input.id,
        fromAdmin: input.admin,
        toToken: output.id,
        toAdmin: output.admin,
        amount: amountFor(pool, planned),
        poolId: pool.poolId,
        ...(planned.setup === 'tight' && { slippageTolerance: TIGHT_SLIPPAGE }),
      });
    } catch (error) {
      this.noteError(error);
      return {
        ...base,
        intentId: null,
        depositUpdateId: null,
        outcome: `not_created:${codeOf(error)}`,
        depositToTerminalMs: null,
      };
    }
    const accepting: Promise<void>[] = [];
    if (!this.preapproved) {
      for (const leg of ['payout', 'refund'] as const) {
        swap.on(`${leg}_offered`, (status) => {
          const offerId = status[leg]?.offerId;
          if (offerId) accepting.push(this.accept(offerId).catch((e) => this.noteError(e)));
        });
      }
    }
    const amount =
      planned.setup === 'wrong-amount'
        ? Amount.parse(swap.expectedAmount).mulDiv(101n, 100n, 'up').toString()
        : swap.expectedAmount;
    const commandId = `chaos-${randomUUID()}`;
    const sentAt = Date.now();
    let depositUpdateId: string | null = null;
    try {
      const sent = await this.persist(() =>
        this.wallet.transfer({
          commandId,
          receiver: swap.depositAddress,
          token: swap.inputToken,
          admin: swap.inputTokenAdmin,
          amount,
          reason: swap.depositReference,
        }),
      );
      depositUpdateId = sent?.updateId ?? null;
    } catch (error) {
      await this.persist(() => swap.cancel()).catch((e) => this.noteError(e));
      return {
        ...base,
        intentId: swap.intentId,
        depositUpdateId: null,
        outcome: `deposit_failed:${codeOf(error)}`,
        depositToTerminalMs: null,
      };
    }
    if (planned.setup === 'wrong-amount') {
      // No intent takes this deposit: it comes back, and the intent it left unfunded is
      // cancelled. The final checks see the deposit's return on the ledger.
      const cancelled = await this.persist(() => swap.cancel()).catch((e) => {
        this.noteError(e);
        return null;
      });
      // A returned transfer to a party that pre-approves nothing is an offer it accepts (a
      // returned deposit offer is rejected instead: nothing to accept then).
      const returned =
        this.preapproved || !planned.aIn || depositUpdateId === null
          ? true
          : await this.acceptReturn(depositUpdateId);
      return {
        ...base,
        intentId: swap.intentId,
        depositUpdateId,
        outcome: !cancelled ? 'cancel_failed' : returned ? 'cancelled' : 'return_not_offered',
        depositToTerminalMs: null,
      };
    }
    let outcome: string;
    let depositToTerminalMs: number | null = null;
    try {
      const result = await swap.wait({ timeout: SWAP_WAIT_MS });
      outcome = result.status;
      depositToTerminalMs = Date.now() - sentAt;
    } catch (error) {
      const status = swap.latestStatus;
      // `wait()` rejects for every end but `completed`: a refund is an end, not a failure.
      if (status && codeOf(error) !== 'wait_timeout' && isEnded(status.status)) {
        outcome = status.status;
        depositToTerminalMs = Date.now() - sentAt;
      } else {
        this.noteError(error);
        outcome = `not_ended:${status?.status ?? codeOf(error)}`;
      }
    }
    await Promise.all(accepting);
    return { ...base, intentId: swap.intentId, depositUpdateId, outcome, depositToTerminalMs };
  }
}

const IN_PROGRESS: ReadonlySet<string> = new Set(IN_PROGRESS_STATES);

function isEnded(status: string): boolean {
  return !IN_PROGRESS.has(status);
}

export interface TraderSetup {
  readonly devnetUrl: string;
  readonly apiUrl: string;
  readonly apiKey: string;
  readonly pools: readonly DevnetPoolInfo[];
  readonly parties: number;
  /** Of the parties, these many pre-approve nothing. */
  readonly withoutPreapproval: number;
  /** Swaps each party will make at most, to size its funding. */
  readonly swapsPerParty: number;
  readonly faults: TraderFaults;
  readonly signIns: SignInQueue;
  /** Makes party hints unique across runs on one ledger. */
  readonly tag: string;
}

/** Funded traders; each signs in at its first swap. */
export async function makeTraders(setup: TraderSetup): Promise<Trader[]> {
  const devnet = new Devnet({ baseUrl: setup.devnetUrl });
  const amulet = setup.pools[0]?.tokenA;
  if (!amulet) throw new Error('no pools to trade');
  // Enough for every swap to go in the costlier direction, with room for fees.
  const amuletFunding = (setup.swapsPerParty + 10) * BASE_AMULET * 2;
  const traders: Trader[] = [];
  for (let index = 0; index < setup.parties; index += 1) {
    const preapproved = index >= setup.withoutPreapproval;
    const wallet = await devnet.createWallet({
      partyHint: `chaos-${setup.tag}-${index}`,
      preapproval: preapproved,
    });
    await wallet.fund(amulet.id, decimal(amuletFunding), amulet.admin);
    for (const pool of setup.pools) {
      const price = Number(pool.reserveB) / Number(pool.reserveA);
      await wallet.fund(pool.tokenB.id, decimal(amuletFunding * price), pool.tokenB.admin);
    }
    const trader = new Trader(
      wallet,
      preapproved,
      setup.apiUrl,
      setup.apiKey,
      setup.faults,
      setup.signIns,
    );
    traders.push(trader);
  }
  return traders;
}
