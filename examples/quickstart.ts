/**
 * A whole swap against `npm start`'s devnet, as an app does it: quote → wallet authentication →
 * swap intent → the wallet's deposit → wait for the payout.
 *
 *   npm run example:quickstart
 *
 * The user is the first seeded party of `.poolparty/devnet.json`; its hex private key signs the
 * wallet challenge and the deposit, standing in for the user's Canton wallet.
 *
 * A deposit that is not sent (refused because the price moved under the intent's minimum, or
 * failed: too little Amulet, the network) leaves the intent pending, and a pending intent refuses
 * the party's next swap with `active_intent_exists` until it expires: the example cancels it.
 */
import { ConflictError, DepositRefusedError, type Swap, SwapOutcomeError } from '@poolparty/sdk';
import { Devnet, type DevnetWallet } from '@poolparty/sdk/devnet';
import { exampleEnv, runExample, walletClient } from './env.js';

const POOL_ID = 'amulet-usdcx';
const AMOUNT = '100';

runExample('quickstart', async () => {
  const env = exampleEnv();
  const { user } = env;
  const wallet = await new Devnet({ baseUrl: env.baseUrl }).wallet(user.partyId, user.privateKey);
  const { pp, useWalletToken } = walletClient(env);

  // 1. Quote. A non-null settlementSafety means a swap of this size would be blocked.
  const quote = await pp.quotes.get({
    from: 'Amulet',
    to: 'USDCx',
    amount: AMOUNT,
    poolId: POOL_ID,
    receiverParty: wallet.partyId,
  });
  if (quote.settlementSafety) throw new Error(quote.settlementSafety.message);
  console.log(`quote: ${AMOUNT} Amulet → about ${quote.outputAmount} USDCx`);

  // 2. Wallet authentication: the wallet signs the challenge message.
  const challenge = await pp.walletAuth.requestChallenge(wallet.partyId);
  const { signature, publicKey } = await wallet.signMessage(challenge.message);
  const { token } = await pp.walletAuth.verifyChallenge({
    partyId: wallet.partyId,
    nonce: challenge.nonce,
    signature,
    publicKey,
  });
  useWalletToken(token);
  console.log(`signed in as ${wallet.partyId}`);

  // 3. The swap intent.
  const terms = {
    fromToken: 'Amulet',
    toToken: 'USDCx',
    amount: quote.totalInputAmount,
    poolId: quote.poolId,
    slippageTolerance: 0.01,
  };
  const swap = await pp.swaps.create(terms).catch(async (error: unknown) => {
    // A run stopped before its deposit leaves a pending intent; cancel it and start afresh.
    const pending = pendingIntentOf(error);
    if (pending === null) throw error;
    await pp.swaps.cancel(pending);
    console.log(`cancelled the pending intent ${pending}`);
    return pp.swaps.create(terms);
  });
  swap.on('deposit_received', () => console.log('deposit received'));
  swap.on('sending_output', () => console.log('sending the output'));
  console.log(`intent ${swap.intentId}: send ${swap.expectedAmount} Amulet`);

  // 4. The wallet sends exactly expectedAmount to depositAddress, with depositReference as reason,
  //    after swap.canDeposit() (which wallet.deposit asks) found the price still good enough.
  await depositOrCancel(wallet, swap);

  // 5. Wait for the outcome.
  try {
    const result = await swap.wait({ timeout: 60_000 });
    return `${result.status} — ${swap.expectedAmount} Amulet → ${result.actualOutput} ${result.outputToken} (intent ${swap.intentId})`;
  } catch (error) {
    if (error instanceof SwapOutcomeError) {
      throw new Error(
        `the swap ended ${error.swapStatus.status}; refund: ${JSON.stringify(error.swapStatus.refund)}`,
      );
    }
    throw error;
  }
});

/**
 * Sends the deposit; when it is not sent, cancels the intent and throws why. A cancel refused as
 * `intent_not_cancellable` means the deposit arrived after all (its answer was lost): the swap
 * goes on, and the example waits for it.
 */
async function depositOrCancel(wallet: DevnetWallet, swap: Swap): Promise<void> {
  try {
    await wallet.deposit(swap);
  } catch (error) {
    try {
      await swap.cancel();
    } catch (cancelError) {
      if (cancelError instanceof ConflictError && cancelError.code === 'intent_not_cancellable') {
        console.log(`the deposit arrived after all: ${swap.intentId} goes on`);
        return;
      }
      throw cancelError;
    }
    const why = error instanceof DepositRefusedError ? error.check.message : describe(error);
    throw new Error(`no deposit sent, intent ${swap.intentId} cancelled: ${why}`);
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function pendingIntentOf(error: unknown): string | null {
  if (!(error instanceof ConflictError) || error.code !== 'active_intent_exists') return null;
  const body = error.body as { intentId?: unknown } | undefined;
  return typeof body?.intentId === 'string' ? body.intentId : null;
}
