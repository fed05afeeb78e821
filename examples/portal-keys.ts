/**
 * The developer portal from a script: sign in with the developer's Canton wallet, then create,
 * list, rotate and revoke an API key (docs/spec/auth.md#developer-keys). The portal API lives under
 * `/api/sdk`; a session is an HttpOnly cookie for browsers and the same value as a bearer token for
 * scripts.
 *
 *   npm run example:portal-keys
 *
 * The developer is the seeded one of `.poolparty/devnet.json`.
 */
import { AuthenticationError, PoolParty } from '@poolparty/sdk';
import { Devnet, type DevnetWallet } from '@poolparty/sdk/devnet';
import { exampleEnv, runExample } from './env.js';

interface Challenge {
  readonly nonce: string;
  readonly message: string;
}
interface KeyListing {
  readonly keyId: string;
  readonly name: string | null;
  readonly prefix: string;
  readonly revokedAt: string | null;
  readonly requestCount: number;
}

runExample('portal-keys', async () => {
  const { baseUrl, developer } = exampleEnv();
  const wallet = await new Devnet({ baseUrl }).wallet(developer.partyId, developer.privateKey);

  const session = await signIn(baseUrl, wallet);
  const portal = portalClient(baseUrl, session);
  console.log(`signed in to the portal as ${wallet.partyId}`);

  // Create: the full key is in this answer only; the service keeps a hash and a prefix.
  const created = await portal<KeyListing & { key: string }>('POST', '/keys', { name: 'example' });
  console.log(`created ${created.keyId} (${created.prefix}…)`);
  const pools = await new PoolParty({
    apiKey: created.key,
    environment: 'devnet',
    baseUrl,
  }).pools.list();
  console.log(`the new key works: ${pools.count} pools`);

  // Rotate: a new key; the old one keeps working for a grace period (24 h), then is revoked.
  const rotated = await portal<KeyListing & { key: string }>('POST', '/keys', {
    rotate: created.keyId,
  });
  console.log(`rotated ${created.keyId} → ${rotated.keyId}`);

  const { keys } = await portal<{ keys: KeyListing[] }>('GET', '/keys');
  const old = keys.find((key) => key.keyId === created.keyId);
  console.log(`${keys.length} keys; ${created.keyId} keeps working until ${old?.revokedAt}`);

  // Revoke: at once.
  const revoked = await portal<KeyListing>('DELETE', `/keys/${encodeURIComponent(rotated.keyId)}`);
  const refused = await new PoolParty({
    apiKey: rotated.key,
    environment: 'devnet',
    baseUrl,
    maxRetries: 0,
  }).pools
    .list()
    .then(
      () => null,
      (error: unknown) => error,
    );
  if (!(refused instanceof AuthenticationError)) throw new Error('the revoked key still works');
  console.log(`revoked ${revoked.keyId}: the service answers ${refused.code}`);

  return `created, listed, rotated and revoked ${created.keyId} → ${rotated.keyId}`;
});

/** `POST /api/sdk/wallet-login` twice: the challenge, then its signed answer; a session token. */
async function signIn(baseUrl: string, wallet: DevnetWallet): Promise<string> {
  const login = (body: object) =>
    call<Challenge & { token: string }>(baseUrl, 'POST', '/api/sdk/wallet-login', body);
  const challenge = await login({ partyId: wallet.partyId });
  const signed = await wallet.signMessage(challenge.message);
  const { token } = await login({ partyId: wallet.partyId, nonce: challenge.nonce, ...signed });
  return token;
}

function portalClient(baseUrl: string, session: string) {
  return <T>(method: string, path: string, body?: object) =>
    call<T>(baseUrl, method, `/api/sdk${path}`, body, { authorization: `Bearer ${session}` });
}

async function call<T>(
  baseUrl: string,
  method: string,
  path: string,
  body?: object,
  headers: Record<string, string> = {},
): Promise<T> {
  const url = `${baseUrl}${path}`;
  const response = await fetch(url, {
    method,
    headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  }).catch((error: Error) => {
    // Node's "fetch failed" keeps the reason (ECONNREFUSED, …) in its cause: name both, as the SDK does.
    const reason = error.cause instanceof Error ? error.cause.message : error.message;
    throw new Error(`No response from ${method} ${url}: ${reason}`);
  });
  const answer = await response.json();
  if (!response.ok)
    throw new Error(`${method} ${path}: ${response.status} ${answer.code}: ${answer.detail}`);
  return answer as T;
}
