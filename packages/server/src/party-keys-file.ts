/**
 * The keys file of `CANTON_PARTY_KEYS_FILE`: read once at start, its mode checked (a key file
 * others may read is refused, as ssh refuses one), its keys checked by core's `readPartyKeys`,
 * and handed to the Canton adapter as the signers of those parties. No key is ever logged or
 * printed: errors and the banner name the file and the parties only.
 */
import { readFile, stat } from 'node:fs/promises';
import { BaseError, type Ed25519KeyPair, readPartyKeys, sign } from '@poolparty/core';
import type { ExternalSigner } from '@poolparty/ledger';

export class PartyKeysFileError extends BaseError<'party_keys_file_invalid'> {
  override readonly name = 'PartyKeysFileError';
  constructor(file: string, problems: readonly string[]) {
    super('party_keys_file_invalid', `CANTON_PARTY_KEYS_FILE ${file}: ${problems.join('; ')}`);
  }
}

/** Permission bits for the group and others: none may be set on a file of secret keys. */
const GROUP_AND_OTHERS = 0o077;

/** The keys of the file, by party; refuses a file others can read, or any bad entry. */
export async function loadPartyKeys(file: string): Promise<ReadonlyMap<string, Ed25519KeyPair>> {
  const info = await stat(file).catch((error: NodeJS.ErrnoException) => {
    throw new PartyKeysFileError(file, [`cannot be read (${error.code ?? error.message})`]);
  });
  if ((info.mode & GROUP_AND_OTHERS) !== 0) {
    const mode = (info.mode & 0o777).toString(8);
    throw new PartyKeysFileError(file, [
      `is readable or writable by others (mode ${mode}); run: chmod 600 ${file}`,
    ]);
  }
  let json: unknown;
  try {
    json = JSON.parse(await readFile(file, 'utf8'));
  } catch {
    throw new PartyKeysFileError(file, ['is not JSON']);
  }
  const reading = readPartyKeys(json);
  if (!reading.ok) throw new PartyKeysFileError(file, reading.problems);
  return reading.keys;
}

/** The adapter's signer lookup over the keys. */
export function signersOfKeys(
  keys: ReadonlyMap<string, Ed25519KeyPair>,
): (partyId: string) => ExternalSigner | undefined {
  const signers = new Map(
    [...keys].map(([party, pair]) => [
      party,
      {
        publicKey: pair.publicKey,
        sign: async (message: Uint8Array) => sign(message, pair.privateKey),
      },
    ]),
  );
  return (partyId) => signers.get(partyId);
}
