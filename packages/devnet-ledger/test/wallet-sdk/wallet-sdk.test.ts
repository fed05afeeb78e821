/**
 * The official wallet SDK (`@canton-network/wallet-sdk` 0.20.0) against the devnet ledger, as a
 * new wallet integrator drives it: connect, onboard an external party with a fresh Ed25519 key,
 * fund it, list its holdings, send one- and two-step transfers by interactive submission, read
 * them back, and have a tampered prepared transaction refused. Every request and answer passes
 * through the wire proxy, which checks them against Canton's documents.
 */
import {
  createKeyPair,
  decodePreparedTransaction,
  signTransactionHash,
  TopologyController,
  type WalletSDK,
} from '@canton-network/wallet-sdk';
import type { Instrument } from '@poolparty/core';
import type { LocalLedger } from '@poolparty/ledger';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DevnetLedgerServer } from '../../src/server.js';
import { assertNoWireMismatches, type WireProxy } from '../canton/support/wire-proxy.js';
import { walletSdk } from './support/sdk-0.js';
import { openWalletSdkWorld, type WalletSdkWorld } from './support/world.js';

interface Wallet {
  readonly partyId: string;
  readonly publicKey: string;
  readonly privateKey: string;
}

let world: WalletSdkWorld;
let ledger: LocalLedger;
let server: DevnetLedgerServer;
let proxy: WireProxy;
let sdk: WalletSDK;
let amulet: Instrument;
/** Pre-approves Amulet: transfers to it complete in one step. */
let pool: string;
const errors: unknown[] = [];

/** The SDK configured for the devnet ledger behind the proxy, its errors collected. */
function errorCollectingSdk(base: string): WalletSDK {
  const logger = pino({ level: 'error' }, { write: (line: string) => void errors.push(line) });
  return walletSdk(base, { logger, externalParties: true });
}

async function onboard(hint: string): Promise<Wallet> {
  const keys = createKeyPair();
  const party = await sdk.userLedger?.signAndAllocateExternalParty(keys.privateKey, hint);
  if (party === undefined) throw new Error('not connected');
  return { partyId: party.partyId, ...keys };
}

/** A Token Standard transfer command from the SDK, through the registry's transfer factory. */
async function createTransfer(
  sender: Wallet,
  receiver: string,
  amount: string,
  inputHoldingCids?: string[],
) {
  sdk.tokenStandard?.setTransferFactoryRegistryUrl(
    new URL(`${proxy.url}/api/validator/v0/scan-proxy`),
  );
  const created = await sdk.tokenStandard?.createTransfer(
    sender.partyId,
    receiver,
    amount,
    { instrumentId: amulet.id, instrumentAdmin: amulet.admin },
    inputHoldingCids,
  );
  if (created === undefined) throw new Error('not connected');
  const [command, disclosed] = created;
  return { command, disclosed };
}

/** The labels the SDK's transaction parser gives the current party's side of an update. */
async function labelsOf(updateId: string): Promise<string[]> {
  const transaction = await sdk.tokenStandard?.getTransactionById(updateId);
  return (transaction?.events ?? []).map((event) => event.label.type);
}

async function actAs(wallet: Wallet | string): Promise<void> {
  await sdk.setPartyId(typeof wallet === 'string' ? wallet : wallet.partyId);
}

beforeAll(async () => {
  world = await openWalletSdkWorld({
    populate: async (local, instrument) => {
      pool = (await local.createParty({ hint: 'pool', preapprovals: [instrument] })).partyId;
    },
    // The validator's own user endpoint is in none of the vendored documents.
    uncheckedPrefixes: ['/devnet/', '/api/validator/v0/validator-user'],
  });
  ({ ledger, server, proxy, amulet } = world);
  sdk = errorCollectingSdk(proxy.url);
});

afterAll(async () => {
  await world?.close();
});

describe('the official wallet SDK 0.20.0 against the devnet ledger', () => {
  let alice: Wallet;
  let oneStep: string;
  let bob: Wallet;

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

  it('funds the party from the faucet and lists its holdings twice in one process', async () => {
    const faucet = await fetch(`${server.url}/devnet/faucet`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ partyId: alice.partyId, token: 'Amulet', amount: '100' }),
    });
    expect(faucet.status).toBe(200);
    for (const _time of [1, 2]) {
      const holdings = await sdk.tokenStandard?.listHoldingUtxos(false);
      expect(holdings?.map((h) => h.interfaceViewValue.amount)).toEqual(['100.0000000000']);
    }
    assertNoWireMismatches(proxy);
  });

  it('sends a one-step transfer the SDK decodes, recomputes the hash of, signs and executes', async () => {
    const transfer = await createTransfer(alice, pool, '10');
    const prepared = await sdk.userLedger?.prepareSubmission(
      transfer.command,
      'decode-only',
      transfer.disclosed,
    );
    if (prepared?.preparedTransaction === undefined) throw new Error('nothing prepared');
    const decoded = decodePreparedTransaction(prepared.preparedTransaction);
    expect(decoded.metadata?.submitterInfo?.actAs).toEqual([alice.partyId]);
    expect(await TopologyController.createTransactionHash(prepared.preparedTransaction)).toBe(
      prepared.preparedTransactionHash,
    );
    const completion = await sdk.userLedger?.prepareSignExecuteAndWaitFor(
      transfer.command,
      alice.privateKey,
      'one-step',
      transfer.disclosed,
    );
    expect(completion?.updateId).toMatch(/^update-/);
    expect(errors).toEqual([]);
    oneStep = completion?.updateId ?? '';
    assertNoWireMismatches(proxy);
  });

  it('reads the one-step transfer back: TransferOut for the sender, TransferIn for the receiver', async () => {
    await actAs(alice);
    expect(await labelsOf(oneStep)).toContain('TransferOut');
    expect((await sdk.userLedger?.getEventsByUpdateId(oneStep))?.length).toBeGreaterThan(0);
    const history = await sdk.tokenStandard?.listHoldingTransactions();
    expect(history?.transactions.map((t) => t.updateId)).toContain(oneStep);
    await actAs(pool);
    expect(await labelsOf(oneStep)).toContain('TransferIn');
    assertNoWireMismatches(proxy);
  });

  it('sends a two-step transfer the receiver accepts through the registry’s choice context', async () => {
    bob = await onboard('bob');
    await actAs(alice);
    const transfer = await createTransfer(alice, bob.partyId, '5');
    const offered = await sdk.userLedger?.prepareSignExecuteAndWaitFor(
      transfer.command,
      alice.privateKey,
      'two-step-offer',
      transfer.disclosed,
    );
    await actAs(bob);
    const [pending] = (await sdk.tokenStandard?.fetchPendingTransferInstructionView()) ?? [];
    if (pending === undefined) throw new Error('no pending instruction for the receiver');
    const accept = await sdk.tokenStandard?.exerciseTransferInstructionChoice(
      pending.contractId,
      'Accept',
    );
    if (accept === undefined) throw new Error('not connected');
    const [command, disclosed] = accept;
    const accepted = await sdk.userLedger?.prepareSignExecuteAndWaitFor(
      command,
      bob.privateKey,
      'two-step-accept',
      disclosed,
    );
    expect(await labelsOf(accepted?.updateId ?? '')).toContain('TransferIn');
    await actAs(alice);
    // Offering only locks the sender's holding; the transfer happens when the receiver accepts.
    expect(await labelsOf(offered?.updateId ?? '')).toEqual(['MergeSplit']);
    expect(await labelsOf(accepted?.updateId ?? '')).toContain('TransferOut');
    const holdings = await sdk.tokenStandard?.listHoldingUtxos(false);
    expect(holdings?.map((h) => h.interfaceViewValue.amount)).toEqual(['85.0000000000']);
    expect(errors).toEqual([]);
    assertNoWireMismatches(proxy);
  });

  it('refuses at execute a prepared transaction with one byte changed', async () => {
    await actAs(alice);
    const transfer = await createTransfer(alice, pool, '1.25');
    const prepared = await sdk.userLedger?.prepareSubmission(
      transfer.command,
      'tampered',
      transfer.disclosed,
    );
    if (prepared?.preparedTransaction === undefined) throw new Error('nothing prepared');
    const bytes = Buffer.from(prepared.preparedTransaction, 'base64');
    const at = bytes.indexOf('1.25');
    expect(at).toBeGreaterThan(0);
    bytes[at] = '9'.charCodeAt(0);
    const signature = signTransactionHash(prepared.preparedTransactionHash, alice.privateKey);
    const tampered = { ...prepared, preparedTransaction: bytes.toString('base64') };
    await expect(
      sdk.userLedger?.executeSubmission(tampered, signature, alice.publicKey, 'tampered'),
    ).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(await ledger.lookupCommand('tampered')).toBeNull();
    assertNoWireMismatches(proxy);
  });

  it('finds the validator operator the SDK proposes pre-approvals with', async () => {
    expect(await sdk.validator?.getValidatorUser()).toBe(amulet.admin);
    assertNoWireMismatches(proxy);
  });

  it('merges the party’s holdings into one with the SDK’s self-transfer', async () => {
    await actAs(alice);
    for (const amount of ['3', '4']) {
      const faucet = await fetch(`${server.url}/devnet/faucet`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ partyId: alice.partyId, token: 'Amulet', amount }),
      });
      expect(faucet.status).toBe(200);
    }
    const before = (await sdk.tokenStandard?.listHoldingUtxos(false)) ?? [];
    expect(before.length).toBe(3);
    const merge = await sdk.tokenStandard?.mergeHoldingUtxos();
    if (merge === undefined) throw new Error('not connected');
    const [commands, disclosed] = merge;
    await sdk.userLedger?.prepareSignExecuteAndWaitFor(
      commands,
      alice.privateKey,
      'merge',
      disclosed,
    );
    const after = (await sdk.tokenStandard?.listHoldingUtxos(false)) ?? [];
    expect(after.map((h) => h.interfaceViewValue.amount)).toEqual(['92.0000000000']);
    expect(errors).toEqual([]);
    assertNoWireMismatches(proxy);
  });

  it('spends exactly the holdings a transfer names', async () => {
    await actAs(alice);
    const faucet = await fetch(`${server.url}/devnet/faucet`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ partyId: alice.partyId, token: 'Amulet', amount: '2' }),
    });
    expect(faucet.status).toBe(200);
    const holdings = (await sdk.tokenStandard?.listHoldingUtxos(false)) ?? [];
    const small = holdings.find((h) => h.interfaceViewValue.amount === '2.0000000000');
    if (small === undefined) throw new Error('no holding of 2');
    const transfer = await createTransfer(alice, pool, '1.5', [small.contractId]);
    await sdk.userLedger?.prepareSignExecuteAndWaitFor(
      transfer.command,
      alice.privateKey,
      'named-input',
      transfer.disclosed,
    );
    const after = (await sdk.tokenStandard?.listHoldingUtxos(false)) ?? [];
    // The 92 is untouched: only the named 2 was spent, its 0.5 back as change.
    expect(after.map((h) => h.interfaceViewValue.amount).sort()).toEqual([
      '0.5000000000',
      '92.0000000000',
    ]);
    expect(errors).toEqual([]);
    assertNoWireMismatches(proxy);
  });

  it('pre-approves an internal party with the SDK’s proposal, which the scan proxy then finds', async () => {
    const carol = (await ledger.createParty({ hint: 'carol' })).partyId;
    await actAs(carol);
    const operator = await sdk.validator?.getValidatorUser();
    if (operator === undefined) throw new Error('not connected');
    const command = await sdk.userLedger?.createTransferPreapprovalCommand(
      operator,
      carol,
      amulet.admin,
    );
    await sdk.userLedger?.submitCommand(command, 'carol-preapproval');
    expect(await ledger.preapproves(carol, amulet)).toBe(true);
    expect((await sdk.validator?.getTransferPreApprovalByParty(carol))?.dso).toBe(amulet.admin);
    expect(errors).toEqual([]);
    assertNoWireMismatches(proxy);
  });
});
