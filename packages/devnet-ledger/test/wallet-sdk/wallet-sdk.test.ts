/**
 * The official wallet SDK (`@canton-network/wallet-sdk` 0.20.0) against the devnet ledger, as a
 * new wallet integrator drives it: connect, onboard an external party with a fresh Ed25519 key,
 * fund it, list its holdings, send one- and two-step transfers by interactive submission, read
 * them back, and have a tampered prepared transaction refused. Every request and answer passes
 * through the wire proxy, which checks them against Canton's documents.
 */
import {
  type AuthTokenProvider,
  createKeyPair,
  decodePreparedTransaction,
  LedgerController,
  signTransactionHash,
  TokenStandardController,
  TopologyController,
  UnsafeAuthController,
  ValidatorController,
  type WalletSDK,
  WalletSDKImpl,
} from '@canton-network/wallet-sdk';
import type { Instrument } from '@poolparty/core';
import { type LocalLedger, openLocalLedger } from '@poolparty/ledger';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  assertNoWireMismatches,
  startWireProxy,
  type WireProxy,
} from '../../../server/test/canton/support/wire-proxy.js';
import { PARTICIPANT_ID } from '../../src/identity.js';
import { type DevnetLedgerServer, startDevnetLedgerServer } from '../../src/server.js';

const SECRET = 'unsafe';
const AUDIENCE = 'https://canton.network.global';
const USER = 'poolparty';

interface Wallet {
  readonly partyId: string;
  readonly privateKey: string;
}

let ledger: LocalLedger;
let server: DevnetLedgerServer;
let proxy: WireProxy;
let sdk: WalletSDK;
let amulet: Instrument;
/** Pre-approves Amulet: transfers to it complete in one step. */
let pool: string;
const errors: unknown[] = [];

function auth() {
  const controller = new UnsafeAuthController(pino({ level: 'silent' }));
  controller.userId = USER;
  controller.adminId = USER;
  controller.audience = AUDIENCE;
  controller.unsafeSecret = SECRET;
  return controller;
}

/** The SDK configured for the devnet ledger behind the proxy, its errors collected. */
function walletSdk(base: string): WalletSDK {
  const logger = pino({ level: 'error' }, { write: (line: string) => void errors.push(line) });
  const validator = new URL(`${base}/api/validator`);
  return new WalletSDKImpl().configure({
    logger,
    authFactory: auth,
    ledgerFactory: (userId: string, provider: AuthTokenProvider, isAdmin: boolean) =>
      new LedgerController(userId, new URL(base), undefined, isAdmin, provider),
    topologyFactory: (userId: string, provider: AuthTokenProvider, synchronizerId: string) =>
      new TopologyController(
        '127.0.0.1:1',
        new URL(base),
        userId,
        synchronizerId,
        undefined,
        provider,
      ),
    tokenStandardFactory: (userId: string, provider: AuthTokenProvider, isAdmin: boolean) =>
      new TokenStandardController(userId, new URL(base), validator, undefined, provider, isAdmin),
    validatorFactory: (userId: string, provider: AuthTokenProvider) =>
      new ValidatorController(userId, validator, provider),
  });
}

async function onboard(hint: string): Promise<Wallet> {
  const keys = createKeyPair();
  const party = await sdk.userLedger?.signAndAllocateExternalParty(keys.privateKey, hint);
  if (party === undefined) throw new Error('not connected');
  return { partyId: party.partyId, privateKey: keys.privateKey };
}

async function actAs(wallet: Wallet | string): Promise<void> {
  await sdk.setPartyId(typeof wallet === 'string' ? wallet : wallet.partyId);
}

beforeAll(async () => {
  const operatorNamespace = PARTICIPANT_ID.slice(PARTICIPANT_ID.lastIndexOf('::') + 2);
  ledger = await openLocalLedger({ operatorNamespace });
  amulet = { admin: (await ledger.createParty({ hint: 'DSO' })).partyId, id: 'Amulet' };
  await ledger.createInstrument(amulet);
  pool = (await ledger.createParty({ hint: 'pool', preapprovals: [amulet] })).partyId;
  server = await startDevnetLedgerServer({ ledger, port: 0, authSecret: SECRET });
  proxy = await startWireProxy({ target: server.url, uncheckedPrefixes: ['/devnet/'] });
  sdk = walletSdk(proxy.url);
});

afterAll(async () => {
  await proxy?.close();
  await server?.close();
  await ledger?.close();
});

describe('the official wallet SDK 0.20.0 against the devnet ledger', () => {
  let alice: Wallet;

  it('connects, detects the ledger API version and finds the synchronizer', async () => {
    await sdk.connect();
    await sdk.connectAdmin();
    await sdk.connectTopology(new URL(`${proxy.url}/api/validator`));
    expect(sdk.userLedger?.getCurrentClientVersion()).toBe('3.4');
    assertNoWireMismatches(proxy);
  });

  it('onboards an external party with a fresh Ed25519 key', async () => {
    alice = await onboard('alice');
    expect(alice.partyId).toMatch(/^alice::1220[0-9a-f]{64}$/);
    expect(await ledger.getParty(alice.partyId)).toEqual({
      partyId: alice.partyId,
      kind: 'external',
    });
    await actAs(alice);
    expect(await sdk.userLedger?.listWallets()).toContain(alice.partyId);
    assertNoWireMismatches(proxy);
  });
});
