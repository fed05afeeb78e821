/**
 * The devnet seed (docs/spec/ledger.md#devnet-seed): instruments, three pools with their swap
 * and LP parties and reserves, a developer party and two funded user parties.
 *
 * Prices: Amulet at 0.145 USD, USDCx at 1 USD, CBTC at 100 000 USD. Both Amulet/USDCx pools sit
 * at 0.145 USDCx per Amulet (the canonical one with 1 000 000 / 145 000, the second admin's with
 * 400 000 / 58 000); Amulet/CBTC holds 145 000 USD a side: 1 000 000 Amulet / 1.45 CBTC.
 *
 * The seed runs once: the caller stores what it returns (private keys included; devnet only).
 * Run on a seeded ledger it refuses with `DevnetSeedError` instead of creating a second set of
 * parties and doubling the pools' reserves; `isDevnetSeeded` tells beforehand.
 */
import { Amount, BaseError, generateKeyPair, type Instrument } from '@poolparty/core';
import type { LocalLedger } from './control.js';

export interface DevnetInstruments {
  readonly amulet: Instrument;
  /** USDCx of the canonical admin. */
  readonly usdcx: Instrument;
  /** The same symbol under a second admin. */
  readonly usdcxBridged: Instrument;
  readonly cbtc: Instrument;
}

export interface DevnetPool {
  readonly poolId: string;
  readonly tokenA: Instrument;
  readonly tokenB: Instrument;
  /** Internal party holding the reserves; pre-approves Amulet only, as on mainnet. */
  readonly swapParty: string;
  readonly lpParty: string;
  readonly reserves: { readonly tokenA: Amount; readonly tokenB: Amount };
  readonly feeBps: number;
}

export interface DevnetKeyParty {
  readonly partyId: string;
  /** Hex of the raw 32-byte Ed25519 public key. */
  readonly publicKey: string;
  /** Hex of the 32-byte Ed25519 secret key. */
  readonly privateKey: string;
}

export interface DevnetBalance {
  readonly instrument: Instrument;
  readonly amount: Amount;
}

export interface DevnetUser extends DevnetKeyParty {
  readonly balances: readonly DevnetBalance[];
}

export interface DevnetSeed {
  readonly instruments: DevnetInstruments;
  readonly pools: readonly DevnetPool[];
  readonly developer: DevnetKeyParty;
  readonly users: readonly DevnetUser[];
}

export interface DevnetSeedOptions {
  readonly developerHint?: string;
  /** Hints of the funded user parties; default `alice`, `bob`. */
  readonly userHints?: readonly string[];
  /** Told after each step, e.g. `('pools', 2, 3)`: seeding takes seconds, a person watches. */
  readonly onProgress?: (step: DevnetSeedStep, done: number, total: number) => void;
}

export type DevnetSeedStep = 'instruments' | 'pools' | 'parties';

export class DevnetSeedError extends BaseError<'devnet_seed_refused'> {
  override readonly name = 'DevnetSeedError';
  constructor(message: string) {
    super('devnet_seed_refused', message);
  }
}

export const DEVNET_POOL_FEE_BPS = 30;

const ADMIN_HINTS = {
  amulet: 'DSO',
  usdcx: 'circle',
  usdcxBridged: 'usdx-bridge',
  cbtc: 'bitsafe',
};

const POOLS: readonly {
  readonly poolId: string;
  readonly tokenB: keyof DevnetInstruments;
  readonly reserveA: string;
  readonly reserveB: string;
}[] = [
  { poolId: 'amulet-usdcx', tokenB: 'usdcx', reserveA: '1000000', reserveB: '145000' },
  { poolId: 'amulet-usdcx-bridge', tokenB: 'usdcxBridged', reserveA: '400000', reserveB: '58000' },
  { poolId: 'amulet-cbtc', tokenB: 'cbtc', reserveA: '1000000', reserveB: '1.45' },
];

const USER_BALANCES: readonly [keyof DevnetInstruments, string][] = [
  ['amulet', '10000'],
  ['usdcx', '5000'],
  ['usdcxBridged', '2500'],
  ['cbtc', '0.05'],
];

/** Whether the ledger already holds the seed (an Amulet instrument of a `DSO` admin). */
export async function isDevnetSeeded(ledger: LocalLedger): Promise<boolean> {
  const instruments = await ledger.listInstruments();
  return instruments.some((i) => i.id === 'Amulet' && i.admin.startsWith('DSO::'));
}

export async function seedDevnet(
  ledger: LocalLedger,
  options: DevnetSeedOptions = {},
): Promise<DevnetSeed> {
  if (await isDevnetSeeded(ledger)) {
    throw new DevnetSeedError(
      'the ledger is already seeded; use the seed data stored at first start (or start from an empty data folder)',
    );
  }
  const report = options.onProgress ?? (() => {});
  // Each step reported gives the event loop a turn: the seed's ledger writes may all resolve as
  // microtasks, and a signal (a stop asked mid-seed) or a request waits for the loop.
  const progress = async (step: DevnetSeedStep, done: number, total: number) => {
    report(step, done, total);
    await new Promise((resolve) => setImmediate(resolve));
  };
  const instruments = await createInstruments(ledger);
  await progress('instruments', 4, 4);
  const pools: DevnetPool[] = [];
  for (const spec of POOLS) {
    pools.push(await createPool(ledger, instruments, spec));
    await progress('pools', pools.length, POOLS.length);
  }
  const userHints = options.userHints ?? ['alice', 'bob'];
  const partiesTotal = 1 + userHints.length;
  const developer = await createKeyParty(ledger, options.developerHint ?? 'developer');
  await progress('parties', 1, partiesTotal);
  const users: DevnetUser[] = [];
  for (const hint of userHints) {
    users.push(await createUser(ledger, instruments, hint));
    await progress('parties', 1 + users.length, partiesTotal);
  }
  return { instruments, pools, developer, users };
}

async function createInstruments(ledger: LocalLedger): Promise<DevnetInstruments> {
  const admin = async (hint: string) => (await ledger.createParty({ hint })).partyId;
  const instruments: DevnetInstruments = {
    amulet: { admin: await admin(ADMIN_HINTS.amulet), id: 'Amulet' },
    usdcx: { admin: await admin(ADMIN_HINTS.usdcx), id: 'USDCx' },
    usdcxBridged: { admin: await admin(ADMIN_HINTS.usdcxBridged), id: 'USDCx' },
    cbtc: { admin: await admin(ADMIN_HINTS.cbtc), id: 'CBTC' },
  };
  for (const instrument of Object.values(instruments)) await ledger.createInstrument(instrument);
  return instruments;
}

/**
 * A reserve is minted as this many holdings, as providers' deposits would have built it: a
 * transfer names only the inputs it needs, so payouts of one pool name disjoint holdings and
 * commit side by side instead of each waiting for the change of the one before.
 */
export const RESERVE_HOLDINGS = 8;

async function mintReserve(
  ledger: LocalLedger,
  owner: string,
  instrument: Instrument,
  total: Amount,
): Promise<void> {
  const part = total.mulDiv(1n, BigInt(RESERVE_HOLDINGS), 'down');
  let left = total;
  for (let minted = 1; minted < RESERVE_HOLDINGS && part.isPositive(); minted += 1) {
    await ledger.mint({ owner, instrument, amount: part });
    left = left.sub(part);
  }
  await ledger.mint({ owner, instrument, amount: left });
}

async function createPool(
  ledger: LocalLedger,
  instruments: DevnetInstruments,
  spec: (typeof POOLS)[number],
): Promise<DevnetPool> {
  const tokenA = instruments.amulet;
  const tokenB = instruments[spec.tokenB];
  const swap = await ledger.createParty({ hint: `${spec.poolId}-swap`, preapprovals: [tokenA] });
  // Like the swap party, the LP party pre-approves Amulet: Amulet deposits arrive in one step,
  // the other token's as offers the service accepts.
  const lp = await ledger.createParty({ hint: `${spec.poolId}-lp`, preapprovals: [tokenA] });
  const reserves = { tokenA: Amount.parse(spec.reserveA), tokenB: Amount.parse(spec.reserveB) };
  await mintReserve(ledger, swap.partyId, tokenA, reserves.tokenA);
  await mintReserve(ledger, swap.partyId, tokenB, reserves.tokenB);
  return {
    poolId: spec.poolId,
    tokenA,
    tokenB,
    swapParty: swap.partyId,
    lpParty: lp.partyId,
    reserves,
    feeBps: DEVNET_POOL_FEE_BPS,
  };
}

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('hex');
}

/** An external party with a fresh key pair, pre-approving every instrument (an auto-accept wallet). */
async function createKeyParty(ledger: LocalLedger, hint: string): Promise<DevnetKeyParty> {
  const { publicKey, privateKey: secretKey } = generateKeyPair();
  const { partyId } = await ledger.createParty({ hint, publicKey, preapprovals: 'all' });
  return { partyId, publicKey: hex(publicKey), privateKey: hex(secretKey) };
}

async function createUser(
  ledger: LocalLedger,
  instruments: DevnetInstruments,
  hint: string,
): Promise<DevnetUser> {
  const party = await createKeyParty(ledger, hint);
  const balances: DevnetBalance[] = [];
  for (const [token, amount] of USER_BALANCES) {
    const balance = { instrument: instruments[token], amount: Amount.parse(amount) };
    await ledger.mint({ owner: party.partyId, ...balance });
    balances.push(balance);
  }
  return { ...party, balances };
}
