/**
 * The official wallet SDK 1.4.0 (installed as `wallet-sdk-1`, beside 0.20.0) against the devnet
 * ledger, as a wallet integrator on its 1.x API drives it: `SDK.create` with the token, asset and
 * events namespaces, external parties made with its own keys, holdings listed, one- and two-step
 * transfers prepared, signed and executed, a merge of a party's holdings, the registry's asset
 * list, transactions read back, and the update stream over WebSocket. Every request and answer
 * passes through the wire proxy, which checks them against Canton's documents.
 */
import type { Instrument } from '@poolparty/core';
import type { LocalLedger } from '@poolparty/ledger';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SDK, type TokenProviderConfig } from 'wallet-sdk-1';
import type { DevnetLedgerServer } from '../../src/server.js';
import { assertNoWireMismatches, type WireProxy } from '../canton/support/wire-proxy.js';
import { AUDIENCE, SECRET, USER } from '../support/localnet.js';
import { openWalletSdkWorld, type WalletSdkWorld } from './support/world.js';

let world: WalletSdkWorld;
let ledger: LocalLedger;
let server: DevnetLedgerServer;
let proxy: WireProxy;
let amulet: Instrument;
let pool: string;
/** A second instrument, under an admin with a registry of its own. */
let usdcx: Instrument;
let sdk: Sdk;

type Sdk = Awaited<ReturnType<typeof createSdk>>;

interface Wallet {
  readonly partyId: string;
  readonly privateKey: string;
}

const HOLDING_INTERFACE = '#splice-api-token-holding-v1:Splice.Api.Token.HoldingV1:Holding';
/** How many updates the stream test reads at most before giving up on the one it waits for. */
const STREAM_UPDATES_MAX = 50;

const amuletRegistry = () => new URL(`${proxy.url}/api/validator/v0/scan-proxy`);
const usdcxRegistry = () => new URL(`${proxy.url}/registries/${usdcx.admin}`);

/** The SDK as a 1.x integrator configures it: the ledger, both registries and the event stream. */
function createSdk() {
  const registries = [amuletRegistry(), usdcxRegistry()];
  return SDK.create({
    auth: auth(),
    ledgerClientUrl: proxy.url,
    logAdapter: 'console',
    token: { validatorUrl: `${proxy.url}/api/validator`, registries, auth: auth() },
    asset: { registries, auth: auth() },
    events: { websocketURL: proxy.url.replace(/^http/, 'ws'), auth: auth() },
  });
}

async function onboard(partyHint: string): Promise<Wallet> {
  const keys = sdk.keys.generate();
  const party = await sdk.party.external
    .create(keys.publicKey, { partyHint })
    .sign(keys.privateKey)
    .execute();
  return { partyId: party.partyId, privateKey: keys.privateKey };
}

/** `sender`'s transfer as the SDK builds it (Amulet unless named), through its instrument's registry. */
async function send(
  sender: Wallet,
  recipient: string,
  amount: string,
  instrumentId: 'Amulet' | 'USDCx' = 'Amulet',
) {
  const registryUrl = instrumentId === 'Amulet' ? amuletRegistry() : usdcxRegistry();
  const transfer = await sdk.token.transfer.create({
    sender: sender.partyId,
    recipient,
    instrumentId,
    registryUrl,
    amount,
  });
  return submit(sender, transfer);
}

/** Prepares the commands as the wallet, signs them with its key and executes them. */
async function submit(wallet: Wallet, [commands, disclosedContracts]: readonly [unknown, unknown]) {
  return sdk.ledger
    .prepare({
      partyId: wallet.partyId,
      commands: commands as never,
      disclosedContracts: disclosedContracts as never,
    })
    .sign(wallet.privateKey)
    .execute({ partyId: wallet.partyId });
}

async function amounts(wallet: Wallet, instrumentId = 'Amulet'): Promise<string[]> {
  const utxos = await sdk.token.utxos.list({ partyId: wallet.partyId });
  return utxos
    .filter((utxo) => utxo.interfaceViewValue.instrumentId.id === instrumentId)
    .map((utxo) => utxo.interfaceViewValue.amount)
    .sort();
}

/** The labels core-tx-parser, through the SDK, gives the party's side of an update. */
async function labelsOf(updateId: string, partyId: string): Promise<string[]> {
  const transaction = await sdk.token.transactionsById({ updateId, partyId });
  return transaction.events.map((event) => event.label.type);
}

const auth = (): TokenProviderConfig => ({
  method: 'self_signed',
  issuer: 'unsafe-auth',
  credentials: {
    clientId: USER,
    clientSecret: SECRET,
    audience: AUDIENCE,
    scope: '',
  },
});

async function faucet(partyId: string, amount: string, token = 'Amulet'): Promise<void> {
  const answer = await fetch(`${server.url}/devnet/faucet`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ partyId, token, amount }),
  });
  expect(answer.status).toBe(200);
}

beforeAll(async () => {
  world = await openWalletSdkWorld({
    populate: async (local, dso) => {
      usdcx = { admin: (await local.createParty({ hint: 'USDCxIssuer' })).partyId, id: 'USDCx' };
      await local.createInstrument(usdcx);
      pool = (await local.createParty({ hint: 'pool', preapprovals: [dso, usdcx] })).partyId;
    },
    uncheckedPrefixes: ['/devnet/', '/api/validator/v0/validator-user'],
  });
  ({ ledger, server, proxy, amulet } = world);
  sdk = await createSdk();
});

afterAll(() => world?.close());

describe('the official wallet SDK 1.4.0 against the devnet ledger', () => {
  let alice: Wallet;
  let bob: Wallet;
  let oneStep: string;

  it('onboards external parties with keys of its own and lists them', async () => {
    alice = await onboard('alice');
    bob = await onboard('bob');
    expect(alice.partyId).toMatch(/^alice::1220[0-9a-f]{64}$/);
    expect(await ledger.getParty(alice.partyId)).toEqual({
      partyId: alice.partyId,
      kind: 'external',
    });
    expect(await sdk.party.list()).toEqual(expect.arrayContaining([alice.partyId, bob.partyId]));
    assertNoWireMismatches(proxy);
  });

  it('lists each registry’s instruments under their own admin', async () => {
    const assets = sdk.asset.list.map((asset) => ({
      id: asset.id,
      admin: asset.admin,
      registry: asset.registryUrl.href,
    }));
    expect(assets).toEqual(
      expect.arrayContaining([
        { id: 'Amulet', admin: amulet.admin, registry: amuletRegistry().href },
        { id: 'USDCx', admin: usdcx.admin, registry: usdcxRegistry().href },
      ]),
    );
    expect(assets).toHaveLength(2);
    expect((await sdk.asset.find('USDCx')).admin).toBe(usdcx.admin);
    assertNoWireMismatches(proxy);
  });

  it('lists a funded party’s holdings, the same twice', async () => {
    await faucet(alice.partyId, '100');
    await faucet(alice.partyId, '50', 'USDCx');
    for (const _time of [1, 2]) expect(await amounts(alice)).toEqual(['100.0000000000']);
    expect(await amounts(alice, 'USDCx')).toEqual(['50.0000000000']);
    assertNoWireMismatches(proxy);
  });

  it('sends a one-step transfer to a pre-approving party and reads it back on both sides', async () => {
    const done = await send(alice, pool, '10');
    oneStep = done.updateId;
    expect(oneStep).toMatch(/^update-/);
    expect(await amounts(alice)).toEqual(['90.0000000000']);
    expect(await labelsOf(oneStep, alice.partyId)).toContain('TransferOut');
    expect(await labelsOf(oneStep, pool)).toContain('TransferIn');
    const history = await sdk.token.holdings({ partyId: alice.partyId });
    expect(history.transactions.map((t) => t.updateId)).toContain(oneStep);
    assertNoWireMismatches(proxy);
  });

  it('sends another admin’s token through that admin’s registry', async () => {
    const done = await send(alice, pool, '12.5', 'USDCx');
    expect(await amounts(alice, 'USDCx')).toEqual(['37.5000000000']);
    expect(await labelsOf(done.updateId, pool)).toContain('TransferIn');
    assertNoWireMismatches(proxy);
  });

  it('sends a two-step transfer the receiver finds pending and accepts', async () => {
    const offered = await send(alice, bob.partyId, '5');
    const [pending, ...more] = await sdk.token.transfer.pending(bob.partyId);
    expect(more).toEqual([]);
    if (pending === undefined) throw new Error('no pending instruction for the receiver');
    const accept = await sdk.token.transfer.accept({
      transferInstructionCid: pending.contractId,
      registryUrl: amuletRegistry(),
    });
    const accepted = await submit(bob, accept);
    expect(await amounts(bob)).toEqual(['5.0000000000']);
    expect(await amounts(alice)).toEqual(['85.0000000000']);
    // Offering only locks the sender's holding; the transfer happens when the receiver accepts.
    expect(await labelsOf(offered.updateId, alice.partyId)).toEqual(['MergeSplit']);
    expect(await labelsOf(accepted.updateId, bob.partyId)).toContain('TransferIn');
    assertNoWireMismatches(proxy);
  });

  it('withdraws a two-step transfer before the receiver acts, its holding unlocked again', async () => {
    await send(alice, bob.partyId, '7');
    const [pending] = await sdk.token.transfer.pending(alice.partyId);
    if (pending === undefined) throw new Error('no pending instruction for the sender');
    const withdraw = await sdk.token.transfer.withdraw({
      transferInstructionCid: pending.contractId,
      registryUrl: amuletRegistry(),
    });
    await submit(alice, withdraw);
    expect(await sdk.token.transfer.pending(bob.partyId)).toEqual([]);
    expect((await amounts(alice)).reduce((sum, a) => sum + Number(a), 0)).toBe(85);
    assertNoWireMismatches(proxy);
  });

  it('merges a party’s holdings into one with its self-transfer', async () => {
    for (const amount of ['3', '4']) await faucet(alice.partyId, amount);
    expect((await amounts(alice)).length).toBeGreaterThanOrEqual(3);
    const [commands, disclosed] = await sdk.token.utxos.merge({ partyId: alice.partyId });
    expect(commands.length).toBeGreaterThan(0);
    for (const command of commands) await submit(alice, [command, disclosed]);
    expect(await amounts(alice)).toEqual(['92.0000000000']);
    assertNoWireMismatches(proxy);
  });

  it('streams the party’s holding updates over WebSocket from an offset', async () => {
    const from = await sdk.ledger.ledgerEnd();
    await faucet(alice.partyId, '1');
    const stream = sdk.events.updates({
      partyId: alice.partyId,
      beginOffset: from,
      interfaceIds: [HOLDING_INTERFACE],
    });
    let seen: unknown = null;
    for (let read = 0; read < STREAM_UPDATES_MAX && seen === null; read += 1) {
      const next = await stream.next();
      if (next.done === true) break;
      const text = JSON.stringify(next.value);
      if (text.includes('1.0000000000') && text.includes(alice.partyId)) seen = next.value;
    }
    await stream.return?.();
    expect(seen).not.toBeNull();
    assertNoWireMismatches(proxy);
  });
});
