/**
 * A service with `LEDGER=canton` on the seeded devnet ledger server, set up for atomic swaps on
 * one pool in both directions: the pool's swap party pre-approves both of its tokens, its reserve
 * is split into many holdings when a test asks (so that many swaps can be prepared at once), and
 * traders — parties of keys of their own that pre-approve everything, funded with as many
 * holdings as asked — each sign in with a wallet token and an API key of their own.
 */
import { Amount, fingerprint, generateKeyPair, type Instrument, sign } from '@poolparty/core';
import type { DevnetPool } from '@poolparty/ledger';
import { PoolParty } from '@poolparty/sdk';
import {
  type AtomicSwap,
  type AtomicSwapObject,
  type WalletSigner,
  type WithAtomicSwaps,
  withAtomicSwaps,
} from '@poolparty/sdk/atomic';
import { Devnet, type DevnetWallet } from '@poolparty/sdk/devnet';
import type { DevnetParty } from '../../src/devnet-bootstrap.js';
import type { RunningService } from '../../src/service.js';
import {
  issueApiKey,
  type ServedDevnet,
  serveSeededDevnet,
  startServiceOn,
} from './devnet-ledger.js';
import { walletTokenFor } from './service.js';

export const ATOMIC_POOL_ID = 'amulet-usdcx';
/** Times a swap prepared again (a holding it named was spent) is signed again, at most. */
export const SIGNING_ROUNDS_MAX = 5;

export interface AtomicTrader {
  readonly party: DevnetParty;
  /** The trader's client, with `atomicSwaps`, under its own API key and wallet token. */
  readonly pp: WithAtomicSwaps<PoolParty>;
  /** The trader's wallet on the devnet: its deposits for the deposit flow. */
  readonly wallet: DevnetWallet;
  /** Signs a prepared transaction's hash with the trader's own key. */
  readonly signer: WalletSigner;
}

export interface AtomicWorld {
  readonly devnet: ServedDevnet;
  readonly service: RunningService;
  readonly pool: DevnetPool;
  readonly traders: readonly AtomicTrader[];
  /** How a trader's party holds one of the pool's tokens: its holdings' ids, largest first. */
  holdingsOf(partyId: string, instrument: Instrument): Promise<string[]>;
  close(): Promise<void>;
}

export interface AtomicWorldOptions {
  readonly traders: number;
  /** Each trader's holdings of each of the pool's tokens, and the amount of each. */
  readonly traderHoldings: {
    readonly count: number;
    readonly tokenA: string;
    readonly tokenB: string;
  };
  /** Holdings of each token split off the pool's reserve before it is imported, and their amount. */
  readonly poolSplits?: {
    readonly count: number;
    readonly tokenA: string;
    readonly tokenB: string;
  };
}

/** The pool's reserve of `instrument` split into `count` more holdings of `amount` (self-transfers). */
async function splitReserve(
  devnet: ServedDevnet,
  pool: DevnetPool,
  instrument: Instrument,
  split: { readonly count: number; readonly amount: Amount },
): Promise<void> {
  for (let n = 0; n < split.count; n++) {
    await devnet.ledger.submitTransfer({
      commandId: `split-${instrument.id}-${n}`,
      sender: pool.swapParty,
      receiver: pool.swapParty,
      instrument,
      amount: split.amount,
    });
  }
}

async function newTrader(
  world: {
    readonly devnet: ServedDevnet;
    readonly service: RunningService;
    readonly pool: DevnetPool;
  },
  index: number,
  holdings: AtomicWorldOptions['traderHoldings'],
): Promise<AtomicTrader> {
  const { devnet, service, pool } = world;
  const keys = generateKeyPair();
  const { partyId } = await devnet.ledger.createParty({
    hint: `trader-${index}`,
    publicKey: keys.publicKey,
    preapprovals: 'all',
  });
  for (let n = 0; n < holdings.count; n++) {
    await devnet.ledger.mint({
      owner: partyId,
      instrument: pool.tokenA,
      amount: Amount.parse(holdings.tokenA),
    });
    await devnet.ledger.mint({
      owner: partyId,
      instrument: pool.tokenB,
      amount: Amount.parse(holdings.tokenB),
    });
  }
  const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
  const party = { partyId, publicKey: hex(keys.publicKey), privateKey: hex(keys.privateKey) };
  const apiKey = await issueApiKey(service.ctx.db, devnet.seed.developer.partyId, new Date());
  const baseUrl = service.url ?? '';
  const walletToken = await walletTokenFor({ url: baseUrl, apiKey }, party);
  const pp = withAtomicSwaps(
    new PoolParty({ apiKey, environment: 'devnet', baseUrl, walletToken }),
  );
  const wallet = await new Devnet({ baseUrl: devnet.server.url }).wallet(partyId, party.privateKey);
  const signer: WalletSigner = {
    partyId,
    fingerprint: fingerprint(keys.publicKey),
    publicKey: keys.publicKey,
    signHash: (hash) => sign(hash, keys.privateKey),
  };
  return { party, pp, wallet, signer };
}

export async function startAtomicWorld(options: AtomicWorldOptions): Promise<AtomicWorld> {
  const devnet = await serveSeededDevnet();
  const pool = devnet.seed.pools.find((p) => p.poolId === ATOMIC_POOL_ID);
  if (pool === undefined) throw new Error(`no ${ATOMIC_POOL_ID} in the seed`);
  // The swap party takes both tokens by pre-approval: atomic swaps run in both directions.
  await devnet.ledger.setPreapproval(pool.swapParty, pool.tokenB, true);
  const splits = options.poolSplits;
  if (splits !== undefined) {
    const { count } = splits;
    await splitReserve(devnet, pool, pool.tokenA, { count, amount: Amount.parse(splits.tokenA) });
    await splitReserve(devnet, pool, pool.tokenB, { count, amount: Amount.parse(splits.tokenB) });
  }
  const running = await startServiceOn(devnet, 'pp-atomic-world-');
  const { service } = running;
  const traders: AtomicTrader[] = [];
  for (let index = 0; index < options.traders; index++) {
    traders.push(await newTrader({ devnet, service, pool }, index, options.traderHoldings));
  }
  return {
    devnet,
    service,
    pool,
    traders,
    holdingsOf: async (partyId, instrument) => {
      const held = (await devnet.ledger.getHoldings(partyId)).filter(
        (h) =>
          h.lock === null &&
          h.instrument.id === instrument.id &&
          h.instrument.admin === instrument.admin,
      );
      return held.sort((a, b) => b.amount.compare(a.amount)).map((h) => h.holdingId);
    },
    close: async () => {
      await running.close();
      await devnet.close();
    },
  };
}

/**
 * Signs the swap and answers it as it ended; a swap the service prepared again (a holding it named
 * was spent meanwhile: nothing moved) is signed again, up to `SIGNING_ROUNDS_MAX` times.
 */
export async function signedToEnd(
  swap: AtomicSwapObject,
  signer: WalletSigner,
): Promise<AtomicSwap> {
  let ended = await swap.execute(signer);
  for (let round = 1; ended.status === 'prepared' && round < SIGNING_ROUNDS_MAX; round++) {
    ended = await swap.execute(signer);
  }
  return ended;
}
