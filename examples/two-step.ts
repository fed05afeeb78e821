/**
 * A swap to a party WITHOUT a transfer pre-approval: its payout arrives as a two-step offer that
 * the party's wallet must accept before the swap completes (SPEC §9.2).
 *
 *   npm run example:two-step
 *
 * A new devnet party is made with `preapproval: false` and funded from the faucet. Its wallet
 * finds the payout offer among the offers pending to it (the reason names the intent:
 * `payout:<intentId>`) and accepts it.
 */
import { PoolParty } from '@poolparty/sdk';
import { Devnet, type DevnetOffer, type DevnetWallet } from '@poolparty/sdk/devnet';
import { exampleEnv, runExample } from './env.js';

/** How long to look for the payout offer before giving up. */
const OFFER_WAIT_MS = 60_000;
const POLL_MS = 250;

runExample('two-step', async () => {
  const { baseUrl, apiKey } = exampleEnv();
  const devnet = new Devnet({ baseUrl });
  const wallet = await devnet.createWallet({
    partyHint: `two-step-${Date.now().toString(36)}`,
    preapproval: false,
  });
  await wallet.fund('Amulet', '100');
  console.log(`new party without pre-approval: ${wallet.partyId}`);

  let walletToken: string | undefined;
  const pp = new PoolParty({
    apiKey,
    environment: 'devnet',
    baseUrl,
    walletToken: () => walletToken,
  });
  ({ token: walletToken } = await wallet.authenticate(pp));

  const swap = await pp.swaps.create({
    fromToken: 'Amulet',
    toToken: 'USDCx',
    amount: '50',
    poolId: 'amulet-usdcx',
  });
  await wallet.deposit(swap);
  console.log(`intent ${swap.intentId}: deposited ${swap.expectedAmount} Amulet`);

  const offer = await payoutOffer(wallet, swap.intentId);
  console.log(`payout offered: ${offer.amount} ${offer.token} until ${offer.expiresAt}; accepting`);
  await wallet.acceptOffer(offer.offerId);

  const result = await swap.wait({ timeout: 60_000 });
  const held = await wallet.balance('USDCx', swap.outputTokenAdmin);
  return `${result.status} — accepted the payout offer ${offer.offerId}; ${wallet.partyId} holds ${held} USDCx`;
});

/** The offer of this intent's payout, once the service has sent it. */
async function payoutOffer(wallet: DevnetWallet, intentId: string): Promise<DevnetOffer> {
  const deadline = Date.now() + OFFER_WAIT_MS;
  while (Date.now() < deadline) {
    const offer = (await wallet.offers()).find((o) => o.reason === `payout:${intentId}`);
    if (offer) return offer;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  throw new Error(`no payout offer for ${intentId} within ${OFFER_WAIT_MS / 1000} s`);
}
