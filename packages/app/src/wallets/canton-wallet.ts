/**
 * A Canton wallet through the dApp API (CIP-0103, `@canton-network/dapp-sdk`): the wallet an
 * extension injects as `window.canton`, or the one the user picks in the SDK's wallet picker.
 *
 * - Wallet authentication: `signMessage` with the challenge text; the public key is the
 *   account's, from `listAccounts`.
 * - Deposit: the party's holdings of the input token (Holding interface, through the wallet's
 *   Ledger API proxy), the transfer factory and its context from the token admin's registry, and
 *   one `TransferFactory_Transfer` exercise handed to `prepareExecuteAndWait`, which the user
 *   approves in the wallet.
 * - Offers: `TransferInstruction_Accept` with the registry's accept context.
 */
import { DappClient, type dappAPI, dappSDK } from '@canton-network/dapp-sdk';
import type { AppConfig } from '../config.js';
import {
  activeHoldingsRequest,
  depositChoiceArguments,
  depositCommands,
  type HoldingView,
  holdingsOf,
  registryUrlFor,
  selectInputHoldings,
  spendableOf,
  TRANSFER_INSTRUCTION_ACCEPT_CHOICE,
  TRANSFER_INSTRUCTION_INTERFACE_ID,
  type TransferFactoryAnswer,
} from './token-standard.js';
import type { DepositTerms, SignedChallenge, Spendable, Wallet } from './wallet.js';

type CantonProvider = ConstructorParameters<typeof DappClient>[0];

declare global {
  interface Window {
    canton?: CantonProvider;
  }
}

class CantonWallet implements Wallet {
  readonly kind = 'canton' as const;
  readonly label: string;
  readonly #client: DappClient;
  readonly #registries: AppConfig['cantonRegistries'];
  #account: dappAPI.Wallet | null = null;

  constructor(
    client: DappClient,
    registries: AppConfig['cantonRegistries'],
    label = 'Canton wallet',
  ) {
    this.#client = client;
    this.#registries = registries;
    this.label = label;
  }

  get partyId(): string | null {
    return this.#account?.partyId ?? null;
  }

  async connect(): Promise<string> {
    const connected = await this.#client.connect();
    if (!connected.isConnected) {
      throw new Error(
        `The wallet did not connect${connected.reason ? `: ${connected.reason}` : ''}.`,
      );
    }
    const accounts = await this.#client.listAccounts();
    const usable = accounts.filter((account) => !account.disabled);
    const account = usable.find((candidate) => candidate.primary) ?? usable[0];
    if (account === undefined) throw new Error('The wallet has no party to swap with.');
    this.#account = account;
    return account.partyId;
  }

  #connected(): dappAPI.Wallet {
    if (this.#account === null) throw new Error('The Canton wallet is not connected.');
    return this.#account;
  }

  async signMessage(message: string): Promise<SignedChallenge> {
    const account = this.#connected();
    const { signature } = await this.#client
      .getProvider()
      .request({ method: 'signMessage', params: { message } });
    return { signature, publicKey: account.publicKey };
  }

  /** The party's Holding views, read through the wallet's Ledger API proxy. */
  async #holdings(party: string): Promise<HoldingView[]> {
    const { offset } = JSON.parse(
      (await this.#client.ledgerApi({ requestMethod: 'GET', resource: '/v2/state/ledger-end' }))
        .response,
    ) as { offset: number };
    return holdingsOf(
      JSON.parse(
        (
          await this.#client.ledgerApi({
            requestMethod: 'POST',
            resource: '/v2/state/active-contracts',
            body: JSON.stringify(activeHoldingsRequest(party, offset)),
          })
        ).response,
      ),
    );
  }

  async spendable(): Promise<readonly Spendable[]> {
    const party = this.#connected().partyId;
    return spendableOf(await this.#holdings(party), party);
  }

  async sendDeposit(terms: DepositTerms): Promise<void> {
    const party = this.#connected().partyId;
    const holdings = await this.#holdings(party);
    const inputs = selectInputHoldings(
      holdings,
      party,
      { admin: terms.inputTokenAdmin, id: terms.inputToken },
      terms.expectedAmount,
    );
    if (inputs === null) {
      throw new Error(
        `Your party does not hold ${terms.expectedAmount} ${terms.inputToken} unlocked.`,
      );
    }
    const requestedAt = new Date().toISOString();
    const factory = await this.#registry<TransferFactoryAnswer>(
      terms.inputTokenAdmin,
      '/registry/transfer-instruction/v1/transfer-factory',
      {
        choiceArguments: depositChoiceArguments(party, terms, inputs, requestedAt),
        excludeDebugFields: true,
      },
    );
    await this.#client.prepareExecuteAndWait(
      depositCommands(party, terms, inputs, requestedAt, factory),
    );
  }

  async acceptOffer(offerId: string, tokenAdmin: string): Promise<void> {
    const party = this.#connected().partyId;
    const context = await this.#registry<TransferFactoryAnswer['choiceContext']>(
      tokenAdmin,
      `/registry/transfer-instruction/v1/${encodeURIComponent(offerId)}/choice-contexts/accept`,
      { meta: {} },
    );
    await this.#client.prepareExecuteAndWait({
      commandId: `accept-${offerId}`,
      actAs: [party],
      commands: [
        {
          ExerciseCommand: {
            templateId: TRANSFER_INSTRUCTION_INTERFACE_ID,
            contractId: offerId,
            choice: TRANSFER_INSTRUCTION_ACCEPT_CHOICE,
            choiceArgument: {
              extraArgs: { context: context.choiceContextData, meta: { values: {} } },
            },
          },
        },
      ],
      disclosedContracts: context.disclosedContracts.map((contract) => ({ ...contract })),
    });
  }

  async disconnect(): Promise<void> {
    this.#account = null;
    await this.#client.disconnect().catch(() => {});
  }

  /** Asks the registry of `admin`'s instruments: the admin's own, else the default one. */
  async #registry<T>(admin: string, path: string, body: unknown): Promise<T> {
    const base = registryUrlFor(this.#registries, admin);
    if (base === null) {
      throw new Error(`This service names no token registry for ${admin}'s tokens.`);
    }
    const response = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(body),
    });
    if (!response.ok)
      throw new Error(`The token registry answered ${response.status} for ${path}.`);
    return (await response.json()) as T;
  }
}

/** How long to wait for a wallet, and a way for the user to stop waiting. */
export interface ConnectOptions {
  readonly signal?: AbortSignal;
  readonly timeoutMs?: number;
}

/**
 * Connects the wallet the page has: an injected CIP-0103 provider (`window.canton`), else the one
 * the user picks in the dApp SDK's picker (which then injects its provider there too). Gives up
 * with "no wallet answered" after `timeoutMs`, and at once when `signal` aborts; the wallet may
 * still answer later, and that answer is then ignored.
 */
export function connectCantonWallet(
  registries: AppConfig['cantonRegistries'],
  options: ConnectOptions = {},
): Promise<CantonWallet> {
  const { signal, timeoutMs } = options;
  return new Promise<CantonWallet>((resolve, reject) => {
    const timer =
      timeoutMs === undefined
        ? undefined
        : setTimeout(() => reject(new Error(noWalletAnswered(timeoutMs))), timeoutMs);
    const settle = () => clearTimeout(timer);
    signal?.addEventListener(
      'abort',
      () => {
        settle();
        reject(new Error('Connecting was cancelled.'));
      },
      { once: true },
    );
    connectNow(registries).then(
      (wallet) => {
        settle();
        resolve(wallet);
      },
      (error: unknown) => {
        settle();
        reject(error);
      },
    );
  });
}

function noWalletAnswered(timeoutMs: number): string {
  return `No wallet answered within ${timeoutMs / 1000} seconds. Check that a Canton wallet is installed and unlocked in this browser, then try again.`;
}

async function connectNow(registries: AppConfig['cantonRegistries']): Promise<CantonWallet> {
  if (window.canton === undefined) {
    const picked = await dappSDK.connect();
    if (!picked.isConnected) {
      throw new Error(`No wallet connected${picked.reason ? `: ${picked.reason}` : ''}.`);
    }
  }
  const provider = window.canton;
  if (provider === undefined) throw new Error('No Canton wallet was found in this browser.');
  const wallet = new CantonWallet(new DappClient(provider, { injectGlobal: false }), registries);
  await wallet.connect();
  return wallet;
}
