/**
 * The devnet seed of a data folder (docs/spec/ledger.md#devnet-seed): on first start the embedded
 * ledger is seeded, and what the seed made — the parties' key pairs, the pools and the
 * developer's API key, which only exist on devnet — is kept in `<dataDir>/devnet.json`, readable
 * by the operator only. Every later start reads it back. `poolparty serve` (devnet mode) and
 * `poolparty devnet-ledger` both seed through here, so both see the same parties and keys; the
 * service then registers the pools and the key in its store.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Instrument } from '@poolparty/core';
import {
  type DevnetKeyParty,
  type DevnetSeedStep,
  isDevnetSeeded,
  type LocalLedger,
  seedDevnet,
} from '@poolparty/ledger';

export const DEVNET_FILE = 'devnet.json';

export interface DevnetParty {
  readonly partyId: string;
  /** Hex of the raw Ed25519 keys. */
  readonly publicKey: string;
  readonly privateKey: string;
}

export interface DevnetPoolInfo {
  readonly poolId: string;
  readonly tokenA: Instrument;
  readonly tokenB: Instrument;
  readonly swapParty: string;
  readonly lpParty: string;
  readonly reserveA: string;
  readonly reserveB: string;
  readonly feeBps: number;
}

export interface DevnetWelcome {
  /** The developer's `pp_test_` key, which the service registers in its store. */
  readonly apiKey: string;
  readonly developer: DevnetParty;
  readonly users: readonly DevnetParty[];
  readonly pools: readonly DevnetPoolInfo[];
  /**
   * The operator's treasury, where the pools' platform fees are swept (docs/spec/treasury.md); it
   * pre-approves every instrument. Absent from a `devnet.json` written before sweeps existed
   * until its next start allocates it.
   */
  readonly treasury?: { readonly partyId: string };
}

/** The hint of the devnet treasury party. */
const TREASURY_HINT = 'treasury';

export interface DevnetSeedFileOptions {
  readonly dataDir: string;
  /** The developer key to answer with; null: the one stored, or a new one on first start. */
  readonly apiKey: string | null;
  /** A new developer key, for a first start without `apiKey`: its format is the service's. */
  readonly newApiKey: () => string;
  /** One line per step of a first-start seed, e.g. "seeding devnet: pools 2/3". */
  readonly onProgress?: (line: string) => void;
}

/** The progress line of a seed step, as `serve` prints it. */
function seedProgressLine(step: DevnetSeedStep, done: number, total: number): string {
  return `seeding devnet: ${step} ${done}/${total}`;
}

/**
 * The devnet seed of `dataDir`: what `devnet.json` holds, or a fresh seed of the ledger (stored
 * there). A seeded ledger without its `devnet.json` is refused: its keys are lost.
 */
export async function loadOrSeed(
  ledger: LocalLedger,
  options: DevnetSeedFileOptions,
): Promise<DevnetWelcome> {
  const file = join(options.dataDir, DEVNET_FILE);
  if (existsSync(file)) {
    const read = JSON.parse(readFileSync(file, 'utf8')) as DevnetWelcome;
    const stored = read.treasury === undefined ? await withTreasury(ledger, read, file) : read;
    return options.apiKey === null ? stored : { ...stored, apiKey: options.apiKey };
  }
  if (await isDevnetSeeded(ledger)) {
    throw new Error(
      `the devnet ledger in ${options.dataDir} is seeded but ${DEVNET_FILE} is missing; remove the data folder to start afresh`,
    );
  }
  const report = options.onProgress;
  const seed = await seedDevnet(ledger, {
    ...(report && {
      onProgress: (step, done, total) => report(seedProgressLine(step, done, total)),
    }),
  });
  const welcome: DevnetWelcome = {
    apiKey: options.apiKey ?? options.newApiKey(),
    developer: keyParty(seed.developer),
    users: seed.users.map(keyParty),
    pools: seed.pools.map((pool) => ({
      poolId: pool.poolId,
      tokenA: pool.tokenA,
      tokenB: pool.tokenB,
      swapParty: pool.swapParty,
      lpParty: pool.lpParty,
      reserveA: pool.reserves.tokenA.toString(),
      reserveB: pool.reserves.tokenB.toString(),
      feeBps: pool.feeBps,
    })),
    treasury: await allocateTreasury(ledger),
  };
  mkdirSync(options.dataDir, { recursive: true });
  writeWelcome(file, welcome);
  return welcome;
}

function writeWelcome(file: string, welcome: DevnetWelcome): void {
  writeFileSync(file, `${JSON.stringify(welcome, null, 2)}\n`, { mode: 0o600 });
}

/** The treasury party; allocating it again answers the same party (its id is the hint's). */
async function allocateTreasury(ledger: LocalLedger): Promise<{ readonly partyId: string }> {
  const { partyId } = await ledger.createParty({ hint: TREASURY_HINT, preapprovals: 'all' });
  return { partyId };
}

/** A seed written before treasury sweeps, given its treasury and written back. */
async function withTreasury(
  ledger: LocalLedger,
  stored: DevnetWelcome,
  file: string,
): Promise<DevnetWelcome> {
  const welcome = { ...stored, treasury: await allocateTreasury(ledger) };
  writeWelcome(file, welcome);
  return welcome;
}

function keyParty(party: DevnetKeyParty): DevnetParty {
  return { partyId: party.partyId, publicKey: party.publicKey, privateKey: party.privateKey };
}
