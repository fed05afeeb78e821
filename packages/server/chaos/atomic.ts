/**
 * The atomic traders of a chaos run: devnet wallets that pre-approve every token and swap Amulet
 * into a pool's other token through @poolparty/sdk/atomic, as a wallet app would — prepare the
 * swap, check the prepared transaction (`verify`), sign its hash with the party's own key,
 * execute, and read the swap until it ends. Amulet in only: the seeded swap parties pre-approve
 * Amulet, and a leg the receiver does not pre-approve is refused at prepare. A swap prepared
 * again (an input spent since it was signed) is signed again; an execution whose answer was lost
 * (a dropped store session, a ledger timeout) is read until the service ends it. Each swap's
 * outcome, as its trader saw it, goes into the report; the final checks (evidence.ts,
 * verdict.ts) judge what the store and the ledger show.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { isAtomicSwapTerminal } from '@poolparty/core';
import { type AtomicSwapObject, type WalletSigner, withAtomicSwaps } from '@poolparty/sdk/atomic';
import { Devnet, type DevnetWallet } from '@poolparty/sdk/devnet';
import type { DevnetPoolInfo } from '../src/devnet-bootstrap.js';
import type { SwapMilestones } from './liquidity.js';
import type { AtomicSetup, PlannedAtomicSwap } from './schedule.js';
import { codeOf, decimal, type SignInQueue, type TraderFaults, WalletUser } from './traders.js';

/** Atomic traders; each runs its swaps one after another. */
export const ATOMIC_TRADERS = 3;
/** Base atomic swap size, in Amulet. */
const BASE_AMULET = 10;
/** The least slippage tolerance a client may ask for. */
const TIGHT_SLIPPAGE = 0.001;
/** Signatures a trader gives one swap at most (each preparation again asks for one). */
const SIGNATURES_MAX = 5;
/** A swap ends within its signing window (60 s) and the ledger's tolerance after it (60 s). */
const ATOMIC_WAIT_MS = 3 * 60_000;
const READ_EVERY_MS = 250;

/** How one planned atomic swap went, as its trader saw it. */
export interface AtomicTradeRecord {
  readonly index: number;
  readonly party: string;
  readonly poolId: string;
  readonly setup: AtomicSetup;
  /** The swap, or null when it could not be prepared. */
  readonly atomicSwapId: string | null;
  /**
   * Its last state seen (`completed`, `price_moved`, `rejected`, `expired`, `cancelled`), or what
   * failed (`not_created:<code>`, `not_ended:<state>`, `cancel_failed:<code>`).
   */
  readonly outcome: string;
  /** Signatures given (0 for a cancelled swap; more than 1 when it was prepared again). */
  readonly signatures: number;
  /** First signature to the swap's end, in milliseconds; null when it did not end signed. */
  readonly signedToEndMs: number | null;
}

export class AtomicTrader extends WalletUser {
  private signer: WalletSigner | null = null;

  /** One planned atomic swap, start to end. Never throws: what went wrong is its outcome. */
  async swap(planned: PlannedAtomicSwap, pool: DevnetPoolInfo): Promise<AtomicTradeRecord> {
    const base = { index: planned.index, party: this.party, poolId: pool.poolId };
    const record = { ...base, setup: planned.setup, signatures: 0, signedToEndMs: null };
    let swap: AtomicSwapObject;
    try {
      await this.signedIn();
      this.signer ??= await this.wallet.atomicSigner();
      swap = await withAtomicSwaps(this.pp).atomicSwaps.create({
        fromToken: pool.tokenA.id,
        fromAdmin: pool.tokenA.admin,
        toToken: pool.tokenB.id,
        toAdmin: pool.tokenB.admin,
        amount: decimal(BASE_AMULET * planned.size),
        poolId: pool.poolId,
        keyFingerprint: this.signer.fingerprint,
        ...(planned.setup === 'tight' && { slippageTolerance: TIGHT_SLIPPAGE }),
      });
    } catch (error) {
      this.noteError(error);
      return { ...record, atomicSwapId: null, outcome: `not_created:${codeOf(error)}` };
    }
    const { atomicSwapId } = swap;
    if (planned.setup === 'cancelled') {
      const outcome = await this.persist(() => swap.cancel()).then(
        (cancelled) => cancelled?.status ?? 'cancel_failed:unanswered',
        (error) => `cancel_failed:${codeOf(error)}`,
      );
      return { ...record, atomicSwapId, outcome };
    }
    const signedAt = Date.now();
    const { outcome, signatures } = await this.signedToEnd(swap, this.signer);
    const ended = isAtomicSwapTerminal(swap.status);
    return {
      ...record,
      atomicSwapId,
      outcome,
      signatures,
      signedToEndMs: ended ? Date.now() - signedAt : null,
    };
  }

  /**
   * Signs the swap and reads it until it ends: signed again each time it is `prepared` again,
   * read again after an execute whose answer did not come.
   */
  private async signedToEnd(swap: AtomicSwapObject, signer: WalletSigner) {
    const deadline = Date.now() + ATOMIC_WAIT_MS;
    let signatures = 0;
    while (Date.now() < deadline && !isAtomicSwapTerminal(swap.status)) {
      if (swap.status === 'prepared') {
        if (signatures >= SIGNATURES_MAX) break;
        signatures += 1;
        const answered = await swap.execute(signer).then(
          () => true,
          (error) => {
            this.noteError(error);
            return false;
          },
        );
        if (answered) continue;
      }
      await sleep(READ_EVERY_MS);
      await swap.refresh().catch((error) => this.noteError(error));
    }
    const ended = isAtomicSwapTerminal(swap.status);
    return { outcome: ended ? swap.status : `not_ended:${swap.status}`, signatures };
  }
}

export interface AtomicTraderSetup {
  readonly devnetUrl: string;
  readonly apiUrl: string;
  readonly apiKey: string;
  /** Atomic swaps each trader will make at most, to size its funding. */
  readonly swapsPerTrader: number;
  readonly amulet: { readonly id: string; readonly admin: string };
  readonly faults: TraderFaults;
  readonly signIns: SignInQueue;
  /** Makes party hints unique across runs on one ledger. */
  readonly tag: string;
}

/** Funded atomic traders, pre-approving every token; each signs in at its first swap. */
export async function makeAtomicTraders(setup: AtomicTraderSetup): Promise<AtomicTrader[]> {
  const devnet = new Devnet({ baseUrl: setup.devnetUrl });
  // The largest swap is twice the base; the room besides covers the transfers' fees.
  const funding = (setup.swapsPerTrader + 10) * BASE_AMULET * 2;
  const traders: AtomicTrader[] = [];
  for (let index = 0; index < ATOMIC_TRADERS; index += 1) {
    const wallet: DevnetWallet = await devnet.createWallet({
      partyHint: `chaos-atomic-${setup.tag}-${index}`,
    });
    await wallet.fund(setup.amulet.id, decimal(funding), setup.amulet.admin);
    const { apiUrl, apiKey, faults, signIns } = setup;
    traders.push(new AtomicTrader(wallet, true, apiUrl, apiKey, faults, signIns));
  }
  return traders;
}

/** Runs the planned atomic swaps: each trader its own, one after another, each at its point. */
export async function runAtomicSwaps(
  traders: readonly AtomicTrader[],
  plan: readonly PlannedAtomicSwap[],
  pools: readonly DevnetPoolInfo[],
  milestones: SwapMilestones,
  ended: (record: AtomicTradeRecord) => void,
): Promise<void> {
  await Promise.all(
    traders.map(async (trader, t) => {
      for (const planned of plan.filter((p) => p.trader === t)) {
        const pool = pools[planned.pool];
        if (!pool) throw new Error(`no pool ${planned.pool}`);
        await milestones.at(planned.afterSwaps);
        ended(await trader.swap(planned, pool));
      }
    }),
  );
}
