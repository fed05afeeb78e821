/**
 * A PoolParty swap by a wallet built on the official wallet SDK (`@canton-network/wallet-sdk`
 * 0.20.0): the service runs with `LEDGER=canton` on the devnet ledger server; the wallet onboards
 * its own external party, makes the swap's deposit with the SDK (a Token Standard transfer it
 * prepares, signs and executes), accepts the payout offer through the registry's choice context,
 * and reads the payout back with the SDK. The wallet's traffic passes the validating wire proxy.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AuthTokenProvider,
  createKeyPair,
  LedgerController,
  TokenStandardController,
  TopologyController,
  UnsafeAuthController,
  ValidatorController,
  type WalletSDK,
  WalletSDKImpl,
} from '@canton-network/wallet-sdk';
import {
  assertNoWireMismatches,
  startWireProxy,
  type WireProxy,
} from '@poolparty/devnet-ledger/testing';
import { PoolParty } from '@poolparty/sdk';
import { createSigner } from '@poolparty/sdk/devnet';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningService, startService } from '../../src/service.js';
import {
  importDevnetPools,
  issueApiKey,
  type ServedDevnet,
  serveSeededDevnet,
  serviceSettingsIn,
} from '../support/devnet-ledger.js';

const POOL_ID = 'amulet-usdcx';
const SWAP_WAIT_MS = 60_000;

let devnet: ServedDevnet;
let service: RunningService;
let proxy: WireProxy;
let sdk: WalletSDK;
let dataDir: string;

function walletSdk(base: string): WalletSDK {
  const validator = new URL(`${base}/api/validator`);
  const auth = () => {
    const controller = new UnsafeAuthController(pino({ level: 'silent' }));
    controller.userId = 'poolparty';
    controller.adminId = 'poolparty';
    controller.audience = devnet.env.CANTON_AUTH_AUDIENCE ?? '';
    controller.unsafeSecret = devnet.env.CANTON_AUTH_SECRET ?? '';
    return controller;
  };
  return new WalletSDKImpl().configure({
    logger: pino({ level: 'silent' }),
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

beforeAll(async () => {
  devnet = await serveSeededDevnet();
  dataDir = mkdtempSync(join(tmpdir(), 'pp-wallet-sdk-'));
  service = await startService(serviceSettingsIn(dataDir, devnet.env));
  proxy = await startWireProxy({ target: devnet.server.url });
  sdk = walletSdk(proxy.url);
});

afterAll(async () => {
  await proxy?.close();
  await service?.close();
  await devnet?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** Points the SDK's transfers at the registry of an instrument's admin. */
function useRegistryOf(admin: string): void {
  const amulet = devnet.seed.instruments.amulet.admin;
  const registry =
    admin === amulet ? devnet.server.registryUrl : devnet.server.registryUrlOf(admin);
  sdk.tokenStandard?.setTransferFactoryRegistryUrl(
    new URL(registry.replace(devnet.server.url, proxy.url)),
  );
}

/** The one pending instruction to the current party, once it is there. */
async function pendingInstruction(deadline: number): Promise<string> {
  for (;;) {
    const [pending] = (await sdk.tokenStandard?.fetchPendingTransferInstructionView()) ?? [];
    if (pending !== undefined) return pending.contractId;
    if (Date.now() > deadline) throw new Error('no payout offer arrived');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

interface Wallet {
  readonly partyId: string;
  readonly privateKey: string;
}

/** A party the SDK onboards with a fresh key, funded from the devnet faucet. */
async function fundedWallet(): Promise<Wallet> {
  await sdk.connect();
  await sdk.connectAdmin();
  await sdk.connectTopology(new URL(`${proxy.url}/api/validator`));
  const keys = createKeyPair();
  const party = await sdk.userLedger?.signAndAllocateExternalParty(keys.privateKey, 'swapper');
  if (party === undefined) throw new Error('no party');
  await sdk.setPartyId(party.partyId);
  const faucet = await fetch(`${devnet.server.url}/devnet/faucet`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ partyId: party.partyId, token: 'Amulet', amount: '100' }),
  });
  expect(faucet.status).toBe(200);
  return { partyId: party.partyId, privateKey: keys.privateKey };
}

/** A PoolParty client signed in as the wallet's party (the challenge signed with its key). */
async function signedIn(wallet: Wallet): Promise<PoolParty> {
  const apiKey = await issueApiKey(service.ctx.db, devnet.seed.developer.partyId, new Date());
  let walletToken: string | undefined;
  const pp = new PoolParty({
    apiKey,
    environment: 'devnet',
    baseUrl: service.url ?? '',
    walletToken: () => walletToken,
  });
  const signer = await createSigner(wallet.privateKey);
  const challenge = await pp.walletAuth.requestChallenge(wallet.partyId);
  ({ token: walletToken } = await pp.walletAuth.verifyChallenge({
    partyId: wallet.partyId,
    nonce: challenge.nonce,
    ...(await signer.signMessage(challenge.message)),
  }));
  return pp;
}

/** Prepares, signs and executes the SDK's command for the wallet; the completion's update id. */
type Submit = Parameters<LedgerController['prepareSignExecuteAndWaitFor']>;

async function execute(
  wallet: Wallet,
  created: readonly [Submit[0], Submit[3]] | undefined,
  commandId: string,
): Promise<string> {
  if (created === undefined) throw new Error('the SDK made no command');
  const [command, disclosed] = created;
  const completion = await sdk.userLedger?.prepareSignExecuteAndWaitFor(
    command,
    wallet.privateKey,
    commandId,
    disclosed,
  );
  return completion?.updateId ?? '';
}

describe('a PoolParty swap by a wallet on the official wallet SDK', () => {
  it('deposits with the SDK and reads the payout with it', async () => {
    await importDevnetPools(service, devnet);
    const wallet = await fundedWallet();
    const pp = await signedIn(wallet);
    const swap = await pp.swaps.create({
      fromToken: 'Amulet',
      toToken: 'USDCx',
      amount: '20',
      poolId: POOL_ID,
    });

    // The deposit, made by the SDK: a transfer with the deposit reference as its reason.
    useRegistryOf(swap.inputTokenAdmin);
    const deposit = await sdk.tokenStandard?.createTransfer(
      wallet.partyId,
      swap.depositAddress,
      swap.expectedAmount,
      { instrumentId: swap.inputToken, instrumentAdmin: swap.inputTokenAdmin },
      undefined,
      swap.depositReference,
    );
    await execute(wallet, deposit, 'swap-deposit');

    // The payout is an offer (the party pre-approves nothing); the SDK accepts it and reads it.
    const offerId = await pendingInstruction(Date.now() + SWAP_WAIT_MS);
    const usdcx = devnet.seed.instruments.usdcx.admin;
    useRegistryOf(usdcx);
    const accept = await sdk.tokenStandard?.exerciseTransferInstructionChoice(offerId, 'Accept');
    const accepted = await execute(wallet, accept, 'payout-accept');
    const result = await swap.wait({ timeout: SWAP_WAIT_MS });
    expect(result.status).toBe('completed');
    const payout = await sdk.tokenStandard?.getTransactionById(accepted);
    expect(payout?.events.map((event) => event.label.type)).toContain('TransferIn');
    const holdings = (await sdk.tokenStandard?.listHoldingUtxos(false)) ?? [];
    const received = holdings.filter((h) => h.interfaceViewValue.instrumentId.admin === usdcx);
    expect(received.map((h) => Number(h.interfaceViewValue.amount))).toEqual([
      Number(result.actualOutput),
    ]);
    assertNoWireMismatches(proxy);
  });
});
