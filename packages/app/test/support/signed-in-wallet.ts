/**
 * Another app's user, as a test sets one up beside the page: a devnet wallet whose key stays in
 * the test, signed in to a PoolParty client of its own through the wallet challenge.
 */
import { PoolParty } from '@poolparty/sdk';
import { Devnet, type DevnetWallet, generatePrivateKey } from '@poolparty/sdk/devnet';

export interface SignedInWallet {
  readonly wallet: DevnetWallet;
  readonly pp: PoolParty;
  /** The wallet's private key, for a page that should find the party again. */
  readonly privateKey: string;
  /** The wallet token the client sends, for a request made without the SDK. */
  readonly token: string;
}

export async function signedInWallet(
  service: { readonly url: string; readonly apiKey: string },
  partyHint: string,
): Promise<SignedInWallet> {
  const privateKey = generatePrivateKey();
  const wallet = await new Devnet(service.url).createWallet({ partyHint, key: privateKey });
  let token = '';
  const pp = new PoolParty({
    apiKey: service.apiKey,
    environment: 'devnet',
    baseUrl: service.url,
    walletToken: () => token,
  });
  ({ token } = await wallet.authenticate(pp));
  return { wallet, pp, privateKey, token };
}
