/**
 * A PoolParty swap by a wallet built on the official wallet SDK (`@canton-network/wallet-sdk`
 * 0.20.0): the service runs with `LEDGER=canton` on the devnet ledger server; the wallet onboards
 * its own external party, makes the swap's deposit with the SDK (a Token Standard transfer it
 * prepares, signs and executes), accepts the payout offer through the registry's choice context,
 * and reads the payout back with the SDK. The wallet's traffic passes the validating wire proxy.
 *
 * The same wallet swaps atomically too: it asks PoolParty (`@poolparty/sdk/atomic`) for the swap,
 * reads both legs of the prepared transaction with `core-tx-visualizer` before signing, signs its
 * hash with the SDK's own signing function, and reads the committed update back with
 * `core-tx-parser`, the wallet SDK's transaction parser: its input out and its output in, in one
 * update, and its balances moved by exactly the signed amounts.
 */
import { type Transaction, TransactionParser } from '@canton-network/core-tx-parser';
import {
  type AuthTokenProvider,
  createKeyPair,
  LedgerController,
  signTransactionHash,
  TokenStandardController,
  TopologyController,
  UnsafeAuthController,
  ValidatorController,
  type WalletSDK,
  WalletSDKImpl,
} from '@canton-network/wallet-sdk';
import { Amount, fingerprint } from '@poolparty/core';
import {
  assertNoWireMismatches,
  hashPreparedTransaction,
  shownLegs,
  startWireProxy,
  type WireProxy,
} from '@poolparty/devnet-ledger/testing';
import { PoolParty } from '@poolparty/sdk';
import { withAtomicSwaps } from '@poolparty/sdk/atomic';
import { createSigner } from '@poolparty/sdk/devnet';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningService } from '../../src/service.js';
import {
  issueApiKey,
  type ServedDevnet,
  type ServiceOnDevnet,
  serveSeededDevnet,
  startServiceOn,
} from '../support/devnet-ledger.js';

const POOL_ID = 'amulet-usdcx';
const SWAP_WAIT_MS = 60_000;

let devnet: ServedDevnet;
let running: ServiceOnDevnet;
let service: RunningService;
let proxy: WireProxy;
let sdk: WalletSDK;

/** The SDK's tokens, signed with the devnet ledger's secret as LocalNet's are. */
function auth(): UnsafeAuthController {
  const controller = new UnsafeAuthController(pino({ level: 'silent' }));
  controller.userId = 'poolparty';
  controller.adminId = 'poolparty';
  controller.audience = devnet.env.CANTON_AUTH_AUDIENCE ?? '';
  controller.unsafeSecret = devnet.env.CANTON_AUTH_SECRET ?? '';
  return controller;
}

function walletSdk(base: string): WalletSDK {
  const validator = new URL(`${base}/api/validator`);
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
  running = await startServiceOn(devnet, 'pp-wallet-sdk-');
  service = running.service;
  proxy = await startWireProxy({ target: devnet.server.url });
  sdk = walletSdk(proxy.url);
});

afterAll(async () => {
  await proxy?.close();
  await running?.close();
  await devnet?.close();
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
  /** Base64, as the SDK makes its keys. */
  readonly publicKey: string;
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
  return { partyId: party.partyId, ...keys };
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

const HOLDING_INTERFACE = '#splice-api-token-holding-v1:Splice.Api.Token.HoldingV1:Holding';
const INSTRUCTION_INTERFACE =
  '#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferInstruction';

/** A JSON Ledger API call through the wire proxy; a refusal throws with Canton's error code. */
async function ledgerApi(resource: string, body: unknown): Promise<Record<string, unknown>> {
  const { accessToken } = await auth().getUserToken();
  const answer = await fetch(`${proxy.url}${resource}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await answer.json()) as Record<string, unknown>;
  if (!answer.ok) throw Object.assign(new Error(String(json.cause)), { code: json.code });
  return json;
}

/**
 * The update as the party's wallet history reads it: fetched by id in the ledger-effects shape
 * with the Token Standard's views (as the wallet SDK asks), then labelled by `core-tx-parser`,
 * which reads the contracts it archives back by id.
 */
async function parsedUpdate(updateId: string, partyId: string): Promise<Transaction> {
  const cumulative = [HOLDING_INTERFACE, INSTRUCTION_INTERFACE].map((interfaceId) => ({
    identifierFilter: {
      InterfaceFilter: {
        value: { interfaceId, includeInterfaceView: true, includeCreatedEventBlob: true },
      },
    },
  }));
  const eventFormat = { filtersByParty: { [partyId]: { cumulative } }, verbose: true };
  const { update } = await ledgerApi('/v2/updates/update-by-id', {
    updateId,
    updateFormat: {
      includeTransactions: { eventFormat, transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS' },
    },
  });
  const transaction = (update as { Transaction: { value: unknown } }).Transaction.value;
  type Provider = ConstructorParameters<typeof TransactionParser>[0];
  const provider = {
    request: ({ params }: { params: { resource: string; body?: unknown } }) =>
      ledgerApi(params.resource, params.body),
  } as unknown as Provider;
  type Parsed = ConstructorParameters<typeof TransactionParser>[1];
  return new TransactionParser(provider, transaction as Parsed, partyId, false).parseTransaction();
}

/** A leg as the visualizer shows it: its parties and its amount, exact. */
function shown(leg: ReturnType<typeof shownLegs>[number]) {
  const amount = Amount.parse((leg.amount ?? '').replace(/^numeric:/, '')).toString();
  return { sender: leg.sender, receiver: leg.receiver, amount };
}

/** The SDK's holdings of the wallet's party, summed per token. */
async function balances(): Promise<Record<string, string>> {
  const holdings = (await sdk.tokenStandard?.listHoldingUtxos(false)) ?? [];
  const sums = new Map<string, Amount>();
  for (const { interfaceViewValue: view } of holdings) {
    const token = view.instrumentId.id;
    sums.set(token, (sums.get(token) ?? Amount.ZERO).add(Amount.parse(view.amount)));
  }
  return Object.fromEntries([...sums].map(([token, sum]) => [token, sum.toString()]));
}

describe('an atomic swap by a wallet on the official wallet SDK', () => {
  it('is shown by the visualizer, signed by the SDK, and read back by core-tx-parser as one update', async () => {
    const wallet = await fundedWallet();
    // The wallet takes USDCx by pre-approval, so the pool's leg settles in the same transaction.
    const usdcx = devnet.seed.instruments.usdcx;
    await devnet.ledger.setPreapproval(wallet.partyId, usdcx, true);
    const pp = withAtomicSwaps(await signedIn(wallet));
    const publicKey = Buffer.from(wallet.publicKey, 'base64');
    const swap = await pp.atomicSwaps.create({
      fromToken: 'Amulet',
      toToken: 'USDCx',
      amount: '20',
      poolId: POOL_ID,
      keyFingerprint: fingerprint(publicKey),
    });
    const { input, output } = swap.data;
    const pool = input.receiver;

    // Before signing: both legs as the visualizer decodes them, with the amounts stated.
    const amount = (value: string) => Amount.parse(value).toString();
    expect(shownLegs(swap.data.preparedTransaction).map(shown)).toEqual([
      { sender: `party:${wallet.partyId}`, receiver: `party:${pool}`, amount: amount('20') },
      {
        sender: `party:${pool}`,
        receiver: `party:${wallet.partyId}`,
        amount: amount(output.amount),
      },
    ]);
    const before = await balances();

    // The hash, recomputed by the visualizer, signed with the SDK's own signing function.
    const done = await swap.execute(
      {
        partyId: wallet.partyId,
        fingerprint: fingerprint(publicKey),
        publicKey,
        signHash: (hash) =>
          Buffer.from(
            signTransactionHash(Buffer.from(hash).toString('base64'), wallet.privateKey),
            'base64',
          ),
      },
      { hashPreparedTransaction },
    );
    expect(done).toMatchObject({ status: 'completed', failure: null });
    if (done.updateId === null) throw new Error('no update id');

    // The wallet's history: its input out to the pool and its output in, in that one update.
    const parsed = await parsedUpdate(done.updateId, wallet.partyId);
    expect(parsed.updateId).toBe(done.updateId);
    const changes = parsed.events.map((event) => ({
      type: event.label.type,
      changes: event.unlockedHoldingsChangeSummaries.map((summary) => ({
        token: summary.instrumentId.id,
        change: summary.amountChange,
      })),
    }));
    expect(changes).toEqual([
      { type: 'TransferOut', changes: [{ token: 'Amulet', change: '-20' }] },
      { type: 'TransferIn', changes: [{ token: 'USDCx', change: expect.any(String) }] },
    ]);
    const [out, into] = parsed.events.map((event) => event.label);
    expect(out).toMatchObject({ receiverAmounts: [{ receiver: pool, amount: '20' }] });
    expect(into).toMatchObject({ sender: pool });
    const received = parsed.events[1]?.unlockedHoldingsChangeSummaries[0]?.amountChange ?? '';
    expect(amount(received)).toBe(amount(output.amount));

    // The balances moved by exactly the signed amounts.
    const after = await balances();
    expect(
      Amount.parse(before.Amulet ?? '0')
        .sub(Amount.parse(after.Amulet ?? '0'))
        .toString(),
    ).toBe(amount(input.amount));
    expect(after.USDCx).toBe(amount(output.amount));
    expect(before.USDCx).toBeUndefined();
    assertNoWireMismatches(proxy);
  });
});
