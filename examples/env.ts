/**
 * Where the examples find the service and the keys: environment variables, with the defaults of
 * `npm start` (http://127.0.0.1:8787, the seed file `.poolparty/devnet.json`).
 *
 * | variable                  | default                                              |
 * | ------------------------- | ---------------------------------------------------- |
 * | `POOLPARTY_URL`           | `http://$HOST:$PORT`, i.e. `http://127.0.0.1:8787`   |
 * | `POOLPARTY_API_KEY`       | `POOLPARTY_DEVNET_API_KEY`, else devnet.json's key   |
 * | `POOLPARTY_PARTY_ID`      | the first seeded user in devnet.json                 |
 * | `POOLPARTY_PRIVATE_KEY`   | that user's key (hex, base64, PKCS#8 PEM or a JWK)   |
 * | `POOLPARTY_DATA_DIR`      | `./.poolparty`, where `npm start` keeps devnet.json  |
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { PoolParty } from '@poolparty/sdk';
import type { DevnetWallet } from '@poolparty/sdk/devnet';

/** A party and its private key, as devnet.json lists them (hex of the raw keys). */
export interface KeyedParty {
  readonly partyId: string;
  readonly privateKey: string;
}

/** The part of `.poolparty/devnet.json` the examples read. */
interface DevnetFile {
  readonly apiKey: string;
  readonly developer: KeyedParty;
  readonly users: readonly KeyedParty[];
}

export interface ExampleEnv {
  readonly baseUrl: string;
  readonly apiKey: string;
  /** The user who swaps. */
  readonly user: KeyedParty;
  /** The developer who signs in to the portal: the seeded developer, else the user. */
  readonly developer: KeyedParty;
}

export function exampleEnv(env: NodeJS.ProcessEnv = process.env): ExampleEnv {
  const dataDir = resolve(env.POOLPARTY_DATA_DIR ?? '.poolparty');
  const seed = readSeed(join(dataDir, 'devnet.json'));
  const baseUrl = env.POOLPARTY_URL ?? `http://${env.HOST ?? '127.0.0.1'}:${env.PORT ?? '8787'}`;
  const apiKey = env.POOLPARTY_API_KEY ?? env.POOLPARTY_DEVNET_API_KEY ?? seed?.apiKey;
  const firstUser = seed?.users[0];
  const user =
    env.POOLPARTY_PARTY_ID && env.POOLPARTY_PRIVATE_KEY
      ? { partyId: env.POOLPARTY_PARTY_ID, privateKey: env.POOLPARTY_PRIVATE_KEY }
      : firstUser;
  if (!apiKey || !user) {
    throw new Error(
      `no ${join(dataDir, 'devnet.json')}: start the service with \`npm start\` (or set POOLPARTY_DATA_DIR to its data folder)`,
    );
  }
  return { baseUrl, apiKey, user, developer: seed?.developer ?? user };
}

/** A client of the example's service and the setter of the wallet token it sends from then on. */
export interface WalletClient {
  readonly pp: PoolParty;
  /** Keeps the token a signed wallet challenge got: the party's own routes need it. */
  readonly useWalletToken: (token: string) => void;
}

/**
 * A devnet client with the example's API key that sends the wallet token once there is one: a
 * party signs in through this same client, so the token can only come after it is made.
 */
export function walletClient({
  baseUrl,
  apiKey,
}: Pick<ExampleEnv, 'baseUrl' | 'apiKey'>): WalletClient {
  let walletToken: string | undefined;
  const pp = new PoolParty({
    apiKey,
    environment: 'devnet',
    baseUrl,
    walletToken: () => walletToken,
  });
  return {
    pp,
    useWalletToken: (token) => {
      walletToken = token;
    },
  };
}

/** A devnet client signed in as `wallet`'s party: the wallet signed the service's challenge. */
export async function signedInClient(
  env: Pick<ExampleEnv, 'baseUrl' | 'apiKey'>,
  wallet: DevnetWallet,
): Promise<PoolParty> {
  const { pp, useWalletToken } = walletClient(env);
  useWalletToken((await wallet.authenticate(pp)).token);
  return pp;
}

function readSeed(file: string): DevnetFile | null {
  if (!existsSync(file)) return null;
  return JSON.parse(readFileSync(file, 'utf8')) as DevnetFile;
}

/**
 * Runs an example: its result is the last line printed, `<name>: <result>`, and the exit code is
 * 0; a failure prints one line, `<name>: failed — <why>`, on stderr and exits 1. One line and no
 * stack: an SDK error's message already names what failed (for a service that cannot be reached,
 * the URL and the reason), and a stack trace and an object dump above it hid that line.
 */
export function runExample(name: string, main: () => Promise<string>): void {
  main().then(
    (result) => {
      console.log(`${name}: ${result}`);
      process.exit(0);
    },
    (error: unknown) => {
      // An SDK error's message is its short message, then a blank line and `Details: …` if any.
      const why = error instanceof Error ? error.message.replace(/\s*\n+\s*/g, ' ') : String(error);
      console.error(`${name}: failed — ${why}`);
      process.exit(1);
    },
  );
}
