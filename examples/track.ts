/**
 * A party's swaps under this API key, as an app's "activity" view shows them: the newest page,
 * then every swap across all pages, counted by state. The list holds both kinds of swap, the
 * deposit flow's and atomic ones (`kind`); `{ kind: 'deposit' }` would keep one.
 *
 *   npm run example:track
 *
 * Tracking needs the party's wallet token: only the party itself may list its swaps.
 */
import { Devnet } from '@poolparty/sdk/devnet';
import { exampleEnv, runExample, signedInClient } from './env.js';

runExample('track', async () => {
  const env = exampleEnv();
  const { user } = env;
  const wallet = await new Devnet({ baseUrl: env.baseUrl }).wallet(user.partyId, user.privateKey);
  const pp = await signedInClient(env, wallet);

  // `await` gives the first page…
  const page = await pp.track(wallet.partyId, { limit: 5 });
  console.log(`newest ${page.swaps.length} swaps of ${page.partyId}:`);
  for (const swap of page.swaps) {
    const output = swap.actualOutput ?? swap.expectedOutput;
    console.log(
      `  ${swap.createdAt}  ${swap.intentId}  ${swap.expectedAmount} ${swap.inputToken} → ${output} ${swap.outputToken}  ${swap.status}${swap.terminal ? '' : ' (in progress)'}${swap.kind === 'atomic' ? ' (atomic)' : ''}`,
    );
  }

  // …and `for await` walks every page.
  const byState = new Map<string, number>();
  let total = 0;
  for await (const swap of pp.track(wallet.partyId, { limit: 20 })) {
    byState.set(swap.status, (byState.get(swap.status) ?? 0) + 1);
    total += 1;
  }
  const counts = [...byState].map(([state, count]) => `${count} ${state}`).join(', ');
  return `${total} swap${total === 1 ? '' : 's'} of ${wallet.partyId}${total > 0 ? ` (${counts})` : ''}`;
});
