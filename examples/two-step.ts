/**
 * A swap to a party WITHOUT a transfer pre-approval: its payout arrives as a two-step offer that
 * the party's wallet must accept before the swap completes
 * (docs/spec/lifecycle.md#payout-and-refund-legs).
 *
 *   npm run example:two-step
 *
 * A new devnet party is made with `preapproval: false` and funded from the faucet. The swap
 * object's `payout_offered` event carries the offer (`status.payout.offerId`); the party's wallet
 * accepts it, `payout_accepted` follows, and `wait()` resolves at `completed`.
 */
import { Devnet } from '@poolparty/sdk/devnet';
import { exampleEnv, runExample, signedInClient } from './env.js';

runExample('two-step', async () => {
  const env = exampleEnv();
  const devnet = new Devnet({ baseUrl: env.baseUrl });
  const wallet = await devnet.createWallet({
    partyHint: `two-step-${Date.now().toString(36)}`,
    preapproval: false,
  });
  await wallet.fund('Amulet', '100');
  console.log(`new party without pre-approval: ${wallet.partyId}`);

  const pp = await signedInClient(env, wallet);

  const swap = await pp.swaps.create({
    fromToken: 'Amulet',
    toToken: 'USDCx',
    amount: '50',
    poolId: 'amulet-usdcx',
  });

  // The payout is an offer: the status names it, and the wallet accepts it for the party.
  let offered: string | undefined;
  const acceptance = new Promise<never>((_, reject) => {
    swap.on('payout_offered', (status) => {
      const offer = status.payout;
      if (!offer?.offerId) return reject(new Error('payout_offered without an offer id'));
      console.log(
        `payout offered: ${offer.amount} ${status.outputToken} until ${offer.expiresAt}; accepting`,
      );
      offered = offer.offerId;
      wallet.acceptOffer(offer.offerId).catch(reject);
    });
  });
  swap.on('payout_accepted', () => console.log('payout accepted'));

  await wallet.deposit(swap);
  console.log(`intent ${swap.intentId}: deposited ${swap.expectedAmount} Amulet`);

  const result = await Promise.race([swap.wait({ timeout: 60_000 }), acceptance]);
  if (offered === undefined) throw new Error('the payout arrived without an offer to accept');
  const held = await wallet.balance('USDCx', swap.outputTokenAdmin);
  return `${result.status} — accepted the payout offer ${offered}; ${wallet.partyId} holds ${held} USDCx`;
});
