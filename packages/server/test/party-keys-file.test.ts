import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeBase64, fingerprint, generateKeyPair, verifyEd25519 } from '@poolparty/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSettings } from '../src/config.js';
import { openLedgerConnection } from '../src/ledger-connection.js';
import { loadPartyKeys, PartyKeysFileError, signersOfKeys } from '../src/party-keys-file.js';

let dir: string;
const key = generateKeyPair();
const party = `swap-pool::${fingerprint(key.publicKey)}`;

async function keysFile(name: string, content: string, mode: number): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, content);
  await chmod(file, mode);
  return file;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'party-keys-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('CANTON_PARTY_KEYS_FILE', () => {
  it('hands the adapter a signer per party whose signatures verify under the party’s key', async () => {
    const file = await keysFile(
      'ok.json',
      JSON.stringify({ [party]: encodeBase64(key.privateKey) }),
      0o600,
    );
    const signerOf = signersOfKeys(await loadPartyKeys(file));
    const signer = signerOf(party);
    expect(signer?.publicKey).toEqual(key.publicKey);
    const message = new Uint8Array(32).fill(7);
    const signature = (await signer?.sign(message)) ?? new Uint8Array();
    expect(verifyEd25519(message, signature, key.publicKey)).toBe(true);
    expect(signerOf('someone-else::1220ab')).toBeUndefined();
  });

  it('refuses a file others may read, saying how to fix it and never printing a key', async () => {
    const text = encodeBase64(key.privateKey);
    const file = await keysFile('open.json', JSON.stringify({ [party]: text }), 0o644);
    const refusal = await loadPartyKeys(file).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(PartyKeysFileError);
    expect((refusal as Error).message).toBe(
      `CANTON_PARTY_KEYS_FILE ${file}: is readable or writable by others (mode 644); run: chmod 600 ${file}`,
    );
  });

  it.each([
    ['missing.json', null, 'cannot be read (ENOENT)'],
    ['garbled.json', '{not json', 'is not JSON'],
    [
      'wrong.json',
      JSON.stringify({ [party]: encodeBase64(generateKeyPair().privateKey) }),
      "is not that party's",
    ],
  ])('refuses %s', async (name, content, problem) => {
    const file = content === null ? join(dir, name) : await keysFile(name, content, 0o600);
    await expect(loadPartyKeys(file)).rejects.toThrow(problem);
  });

  it('stops the start before the participant is reached when the file is bad', async () => {
    const file = await keysFile('bad.json', '[]', 0o600);
    const settings = readSettings({
      LEDGER: 'canton',
      // Nothing listens here: a refusal about the file proves it was read first.
      CANTON_LEDGER_API_URL: 'http://127.0.0.1:9',
      CANTON_REGISTRY_URL: 'http://127.0.0.1:9/registry',
      CANTON_SCAN_PROXY_URL: 'http://127.0.0.1:9/api/validator',
      CANTON_USER_ID: 'poolparty',
      CANTON_PARTY_KEYS_FILE: file,
    });
    if (!settings.ok) throw new Error(settings.errors.join('; '));
    await expect(openLedgerConnection(settings.settings)).rejects.toThrow(
      `CANTON_PARTY_KEYS_FILE ${file}: it must be a JSON object`,
    );
  });
});
