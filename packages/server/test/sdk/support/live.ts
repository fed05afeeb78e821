/**
 * The SDK against a real PoolParty service (devnet mode, embedded store and ledger): fresh funded
 * parties with their keys, wallet tokens obtained through the SDK's own challenge flow, and
 * deposits sent the way a wallet sends them, through the devnet ledger's signed transfers.
 */
import { randomUUID } from 'node:crypto';
import {
  PoolParty,
  type PoolPartyOptions,
  type Swap,
  type SwapIntent,
  type SwapResult,
} from '@poolparty/sdk';
import { Devnet, type DevnetWallet } from '@poolparty/sdk/devnet';
import type { DevnetParty, DevnetPoolInfo } from '../../../src/devnet-bootstrap.js';
import {
  answerDevnetOffer,
  request,
  signChallenge,
  signedDeposit,
  startTestService,
  type TestService,
} from '../../support/service.js';

export type { DevnetParty, TestService };

export interface Live {
  readonly t: TestService;
  /** The canonical Amulet/USDCx pool and its twin under the second USDCx admin. */
  readonly canonical: DevnetPoolInfo;
  client(options?: Partial<PoolPartyOptions>): PoolParty;
  /** The SDK's devnet entry on the service: wallets, faucet, offers. */
  readonly devnet: Devnet;
  /**
   * A new party holding `amuletAmount` Amulet (none when '0'). With `preapproval: false` it
   * pre-approves nothing, so payouts and refunds to it are offers it must accept.
   */
  newParty(
    hint: string,
    amuletAmount?: string,
    options?: { readonly preapproval?: boolean },
  ): Promise<DevnetParty>;
  /** Accepts an offer to `party`, as its wallet would (`POST /devnet/offers/{offerId}/accept`). */
  acceptOffer(party: DevnetParty, offerId: string): Promise<void>;
  /** A wallet token for `party`, through requestChallenge, the wallet's signature and verify. */
  walletToken(party: DevnetParty): Promise<string>;
  /** Sends the intent's deposit from `party`, as its wallet would. */
  deposit(party: DevnetParty, intent: SwapIntent): Promise<void>;
  close(): Promise<void>;
}

/** How long a test waits for a swap of the canonical pool to end. */
const SWAP_WAIT_MS = 30_000;

/**
 * `amount` Amulet swapped to USDCx in the canonical pool by a devnet wallet through the SDK, as
 * an app does it: authenticate, create, deposit from the wallet, wait for the end.
 */
export async function swapAmulet(
  live: Live,
  wallet: DevnetWallet,
  amount: string,
): Promise<{ readonly swap: Swap; readonly result: SwapResult }> {
  let token: string | undefined;
  const pp = live.client({ walletToken: () => token, pollInterval: 50 });
  ({ token } = await wallet.authenticate(pp));
  const swap = await pp.swaps.create({
    fromToken: 'Amulet',
    toToken: 'USDCx',
    amount,
    poolId: live.canonical.poolId,
  });
  await wallet.deposit(swap);
  return { swap, result: await swap.wait({ timeout: SWAP_WAIT_MS }) };
}

/** A party hint of its own for this run, so a test's parties are not an earlier run's. */
export function uniqueHint(name: string): string {
  return `${name}-${Math.random().toString(36).slice(2, 8)}`;
}

export async function startLive(env: Readonly<Record<string, string>> = {}): Promise<Live> {
  const t = await startTestService(env);
  const canonical = t.service.devnet?.pools.find(
    (pool) => pool.tokenA.id === 'Amulet' && pool.tokenB.id === 'USDCx',
  );
  if (!canonical) throw new Error('the devnet seed has no Amulet/USDCx pool');
  const client = (options: Partial<PoolPartyOptions> = {}) =>
    new PoolParty({ apiKey: t.apiKey, environment: 'devnet', baseUrl: t.url, ...options });

  const live: Live = {
    t,
    canonical,
    client,
    devnet: new Devnet({ baseUrl: t.url }),
    close: () => t.close(),
    async newParty(hint, amuletAmount = '1000', options = {}) {
      const created = await request<{ partyId: string; publicKey: string; privateKey: string }>(
        t.url,
        'POST',
        '/devnet/parties',
        {
          body: {
            partyHint: `${hint}-${randomUUID().slice(0, 8)}`,
            ...(options.preapproval !== undefined && { preapproval: options.preapproval }),
          },
        },
      );
      if (created.status !== 201) throw new Error(`party: ${JSON.stringify(created.body)}`);
      const hex = (base64: string) => Buffer.from(base64, 'base64').toString('hex');
      const party = {
        partyId: created.body.partyId,
        publicKey: hex(created.body.publicKey),
        privateKey: hex(created.body.privateKey),
      };
      if (amuletAmount !== '0') {
        const funded = await request(t.url, 'POST', '/devnet/faucet', {
          body: { partyId: party.partyId, token: 'Amulet', amount: amuletAmount },
        });
        if (funded.status !== 200) throw new Error(`faucet: ${JSON.stringify(funded.body)}`);
      }
      return party;
    },
    async walletToken(party) {
      const pp = client();
      const challenge = await pp.walletAuth.requestChallenge(party.partyId);
      const signed = signChallenge(challenge.message, party);
      const verified = await pp.walletAuth.verifyChallenge({
        partyId: party.partyId,
        nonce: challenge.nonce,
        ...signed,
      });
      return verified.token;
    },
    async acceptOffer(party, offerId) {
      await answerDevnetOffer(t, party, offerId, 'accept');
    },
    async deposit(party, intent) {
      const answer = await devnetTransfer(t, party, intent);
      if (answer.status !== 200) throw new Error(`deposit: ${JSON.stringify(answer.body)}`);
    },
  };
  return live;
}

/** A devnet transfer funding `intent`, signed by `party` as its wallet would sign it. */
async function devnetTransfer(t: TestService, party: DevnetParty, intent: SwapIntent) {
  const signed = await signedDeposit(t, party, intent, `deposit-${randomUUID()}`);
  return request(t.url, 'POST', '/devnet/transfers', { apiKey: null, ...signed });
}
