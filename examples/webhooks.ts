/**
 * Webhooks end to end against `npm start`'s devnet: a tiny receiver on loopback, an endpoint
 * registered for it on the developer portal, a swap made with the developer's key, and every event
 * of that swap verified with `webhooks.verify` as it arrives (docs/spec/webhooks.md).
 *
 *   npm run example:webhooks
 *
 * The developer (who registers the endpoint) and the user (who swaps) are the seeded parties of
 * `.poolparty/devnet.json`. On devnet an endpoint may be plain HTTP on loopback; on mainnet it
 * must be HTTPS.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { DeveloperPortal } from '@poolparty/sdk';
import { Devnet } from '@poolparty/sdk/devnet';
import { type WebhookEvent, webhooks, withWebhooks } from '@poolparty/sdk/webhooks';
import { type ExampleEnv, exampleEnv, type KeyedParty, runExample, signedInClient } from './env.js';

/** How long to wait for the swap's last event once it completed. */
const LAST_EVENT_WAIT_MS = 30_000;
/** A receiver reads at most this much of a request. */
const BODY_BYTES_MAX = 1024 * 1024;

runExample('webhooks', async () => {
  const { baseUrl, apiKey, user, developer } = exampleEnv();
  const devnet = new Devnet({ baseUrl });
  const seen: WebhookEvent[] = [];
  let secret = '';
  const receiver = await startReceiver(async (body, header) => {
    const event = await webhooks.verify(body, header, secret);
    seen.push(event);
    console.log(`verified ${event.id}: ${event.type}`);
  });

  const portal = withWebhooks(new DeveloperPortal({ environment: 'devnet', baseUrl }));
  const developerWallet = await devnet.wallet(developer.partyId, developer.privateKey);
  const challenge = await portal.requestChallenge(developer.partyId);
  await portal.signIn({
    partyId: developer.partyId,
    nonce: challenge.nonce,
    ...(await developerWallet.signMessage(challenge.message)),
  });
  const created = await portal.webhooks.create({
    url: `${receiver.url}/webhooks`,
    events: ['swap.*'],
    description: 'example:webhooks',
  });
  secret = created.secret; // shown once: keep it where the receiver can read it
  console.log(`registered ${created.endpoint.id} for ${created.endpoint.url}`);

  try {
    const intentId = await swapOnce({ baseUrl, apiKey }, user);
    await until(() => seen.some((e) => e.type === 'swap.completed' && idOf(e) === intentId));
    const ofSwap = seen.filter((e) => idOf(e) === intentId).map((e) => e.type);
    return `${ofSwap.length} events of ${intentId}, each verified: ${ofSwap.join(' → ')}`;
  } finally {
    await portal.webhooks.delete(created.endpoint.id);
    receiver.server.close();
  }
});

/** A 100 Amulet swap by the user, with the developer's key; its intent id once it completed. */
async function swapOnce(env: Pick<ExampleEnv, 'baseUrl' | 'apiKey'>, user: KeyedParty) {
  const wallet = await new Devnet({ baseUrl: env.baseUrl }).wallet(user.partyId, user.privateKey);
  const pp = await signedInClient(env, wallet);
  const swap = await pp.swaps.create({
    fromToken: 'Amulet',
    toToken: 'USDCx',
    amount: '100',
    poolId: 'amulet-usdcx',
    slippageTolerance: 0.01,
  });
  try {
    await wallet.deposit(swap);
  } catch (error) {
    await swap.cancel();
    throw error;
  }
  await swap.wait({ timeout: 60_000 });
  return swap.intentId;
}

/** The intent an event is about: the object it carries is the swap as its status route answers. */
function idOf(event: WebhookEvent): string | undefined {
  return (event.data.object as { intentId?: string } | null)?.intentId;
}

/** A receiver on loopback: each request's raw body and signature header go to `onEvent`. */
async function startReceiver(
  onEvent: (body: string, header: string | undefined) => Promise<void>,
): Promise<{ server: Server; url: string }> {
  const server = createServer((request, response) => {
    readBody(request)
      .then((body) => onEvent(body, headerOf(request)))
      .then(
        () => response.writeHead(200).end(),
        (error: unknown) => {
          console.error(`refused a request: ${error instanceof Error ? error.message : error}`);
          response.writeHead(400).end();
        },
      );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return { server, url: `http://127.0.0.1:${port}` };
}

function headerOf(request: IncomingMessage): string | undefined {
  const value = request.headers['poolparty-signature'];
  return Array.isArray(value) ? value[0] : value;
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > BODY_BYTES_MAX) throw new Error('body too large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

async function until(done: () => boolean): Promise<void> {
  const deadline = Date.now() + LAST_EVENT_WAIT_MS;
  while (!done()) {
    if (Date.now() > deadline)
      throw new Error('the swap completed, but its last event did not arrive');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
