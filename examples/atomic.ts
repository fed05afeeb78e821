/**
 * An atomic swap as a wallet makes one: sign in → ask for the swap → check the transaction's
 * legs → sign its hash with the party's own key → the result. Both legs settle in one ledger
 * transaction or neither does, so the pool never holds the input unpaid.
 *
 *   npm run example:atomic
 *
 * It runs against `npm start` (the embedded ledger) or a service with `LEDGER=canton`, against a
 * participant or `poolparty devnet-ledger`. A service whose ledger prepares nothing for a wallet
 * to sign answers `atomic_swaps_unavailable`; the deposit flow is the way there
 * (`npm run example:quickstart`).
 * The party and its hex private key are the first seeded user's, or POOLPARTY_PARTY_ID and
 * POOLPARTY_PRIVATE_KEY (see env.ts); the key stands in for the user's Canton wallet.
 */
import { PoolPartyError } from '@poolparty/sdk';
import { type AtomicSwap, withAtomicSwaps } from '@poolparty/sdk/atomic';
import { Devnet } from '@poolparty/sdk/devnet';
import { exampleEnv, runExample, signedInClient } from './env.js';

const POOL_ID = 'amulet-usdcx';
const AMOUNT = '100';
/** Signatures at most: a spent input prepares the swap again, for a new hash to sign. */
const SIGNING_ROUNDS_MAX = 3;

runExample('atomic', async () => {
  const env = exampleEnv();
  const { baseUrl, user } = env;
  const wallet = await new Devnet({ baseUrl }).wallet(user.partyId, user.privateKey);

  // 1. Wallet authentication: the wallet signs the challenge message.
  const pp = withAtomicSwaps(await signedInClient(env, wallet));
  console.log(`signed in as ${wallet.partyId}`);

  // 2. The swap, prepared for the key that will sign it: both legs in one transaction.
  const signer = await wallet.atomicSigner();
  const swap = await pp.atomicSwaps
    .create({
      fromToken: 'Amulet',
      toToken: 'USDCx',
      amount: AMOUNT,
      poolId: POOL_ID,
      slippageTolerance: 0.01,
      keyFingerprint: signer.fingerprint,
    })
    .catch((error: unknown) => {
      throw unavailableOr(error, baseUrl);
    });
  const { input, output } = swap.data;
  console.log(`atomic swap ${swap.atomicSwapId}, to sign before ${swap.data.expiresAt}:`);
  console.log(`  input leg:  you pay ${input.amount} ${input.token} to ${input.receiver}`);
  console.log(
    `  output leg: you receive ${output.amount} ${output.token} (quoted ${swap.data.quotedOutput}, less the slippage tolerance)`,
  );

  // 3. Check what the transaction really moves before signing it: a mismatch throws.
  const legs = await swap.verify();
  console.log(
    `verified: the transaction debits you exactly ${legs.input.amount} ${legs.input.instrument.id} and credits you ${legs.output.amount} ${legs.output.instrument.id}`,
  );

  // 4. Sign the hash and execute; an input spent meanwhile prepares it again for a new signature.
  let result = await swap.execute(signer);
  for (let round = 1; result.status === 'prepared' && round < SIGNING_ROUNDS_MAX; round++) {
    console.log('an input was spent meanwhile: signing the swap prepared again');
    result = await swap.execute(signer);
  }
  const ended = await swap.wait();
  if (ended.status !== 'completed') throw new Error(nothingMoved(ended));
  return `completed in update ${ended.updateId} — paid ${ended.input.amount} ${ended.input.token}, received ${ended.output.amount} ${ended.output.token}; the pool kept ${ended.excess} ${ended.output.token} of excess`;
});

/** A service that cannot prepare atomic swaps, said in one line; any other error as it is. */
function unavailableOr(error: unknown, baseUrl: string): unknown {
  if (!(error instanceof PoolPartyError) || error.code !== 'atomic_swaps_unavailable') return error;
  return new Error(
    `the service at ${baseUrl} answers atomic_swaps_unavailable: its ledger prepares no transaction to sign; use the deposit flow (npm run example:quickstart)`,
  );
}

function nothingMoved(swap: AtomicSwap): string {
  const why = swap.failure === null ? '' : `: ${swap.failure.code} (${swap.failure.message})`;
  return `atomic swap ${swap.atomicSwapId} ended ${swap.status}${why}; nothing moved`;
}
