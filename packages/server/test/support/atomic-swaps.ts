/**
 * What the atomic-swap suites share, whichever ledger the service runs on: a devnet party's
 * wallet signer for the SDK, a prepared transaction changed after it was prepared, and the check
 * that the engine's update stream took a swap's update as no deposit.
 */
import { type Amount, fingerprint, sign } from '@poolparty/core';
import type { LedgerPort } from '@poolparty/ledger';
import type { WalletSigner } from '@poolparty/sdk/atomic';
import type { Queryable } from '@poolparty/store';
import { expect } from 'vitest';

/** A devnet party as the seed and `/devnet/parties` answer it: hex keys. */
export interface KeyedParty {
  readonly partyId: string;
  readonly publicKey: string;
  readonly privateKey: string;
}

const fromHex = (hex: string) => new Uint8Array(Buffer.from(hex, 'hex'));

/** The party's public key, raw. */
export function publicKeyOf(party: KeyedParty): Uint8Array {
  return fromHex(party.publicKey);
}

/**
 * The party's wallet as the SDK's `execute` takes it: its key, named by its fingerprint, signing
 * with `privateKey` (the party's own unless given: another key signing under the party's name).
 */
export function walletSignerOf(
  party: KeyedParty,
  privateKey: Uint8Array = fromHex(party.privateKey),
): WalletSigner {
  const publicKey = publicKeyOf(party);
  return {
    partyId: party.partyId,
    fingerprint: fingerprint(publicKey),
    publicKey,
    signHash: (hash: Uint8Array) => sign(hash, privateKey),
  };
}

/**
 * The prepared transaction (base64) with one digit of its output amount changed: the wire shows
 * a Numeric 10 with all its decimals. What the service would submit is then not what was signed.
 */
export function withOutputChanged(preparedTransaction: string, output: Amount): string {
  const bytes = Buffer.from(preparedTransaction, 'base64');
  const [whole, fraction = ''] = output.toString().split('.');
  const at = bytes.indexOf(`${whole}.${fraction.padEnd(10, '0')}`);
  expect(at).toBeGreaterThan(0);
  bytes[at] = bytes[at] === '9'.charCodeAt(0) ? '8'.charCodeAt(0) : '9'.charCodeAt(0);
  return bytes.toString('base64');
}

/** How often the engine's checkpoint is looked at for passing an update, and how long apart. */
const STREAM_ROUNDS_MAX = 200;
const STREAM_ROUND_MS = 50;

/**
 * Once the engine's update stream has passed the swap's update, that update left no deposit:
 * both its legs were the swap's own, recorded by its execution, never an input to refund.
 */
export async function expectNotTakenAsDeposit(
  service: { readonly db: Queryable; readonly ledger: Pick<LedgerPort, 'lookupCommand'> },
  atomicSwapId: string,
): Promise<void> {
  const { db, ledger } = service;
  const [row] = await db.query<{ command_id: string }>(
    'SELECT command_id FROM atomic_swaps WHERE atomic_swap_id = $1',
    [atomicSwapId],
  );
  const committed = await ledger.lookupCommand(row?.command_id ?? '');
  expect(committed).not.toBeNull();
  const checkpoint = async () => {
    const [at] = await db.query<{ last_offset: string }>(
      "SELECT last_offset FROM ledger_offsets WHERE stream = 'ledger'",
    );
    return Number(at?.last_offset ?? -1);
  };
  // Each read is a round of the engine's; a named number of them, never a wall-clock wait.
  for (let round = 0; round < STREAM_ROUNDS_MAX; round++) {
    if ((await checkpoint()) >= (committed?.offset ?? 0)) break;
    await new Promise((resolve) => setTimeout(resolve, STREAM_ROUND_MS));
  }
  expect(await checkpoint()).toBeGreaterThanOrEqual(committed?.offset ?? 0);
  const deposits = await db.query('SELECT deposit_id FROM deposits WHERE update_id = $1', [
    committed?.updateId ?? '',
  ]);
  expect(deposits).toEqual([]);
}
