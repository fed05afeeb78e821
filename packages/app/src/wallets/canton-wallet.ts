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
import {
  activeHoldingsRequest,
  depositChoiceArguments,
  depositCommands,
  holdingsOf,
  selectInputHoldings,
  TRANSFER_INSTRUCTION_ACCEPT_CHOICE,
  TRANSFER_INSTRUCTION_INTERFACE_ID,
  type TransferFactoryAnswer,
} from './token-standard.js';
import type { DepositTerms, SignedChallenge, Wallet } from './wallet.js';

type CantonProvider = ConstructorParameters<typeof DappClient>[0];

declare global {
  interface Window {
    canton?: CantonProvider;
  }
}

export class CantonWallet implements Wallet {
  readonly kind = 'canton' as const;
  readonly label: string;
  readonly #client: DappClient;
  readonly #registryUrl: string | null;
  #account: dappAPI.Wallet | null = null;

  constructor(client: DappClient, registryUrl: string | null, label = 'Canton wallet') {
    this.#client = client;
    this.#registryUrl = registryUrl?.replace(/\/+$/, '') ?? null;
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

  async sendDeposit(terms: DepositTerms): Promise<void> {
    const party = this.#connected().partyId;
    const { offset } = JSON.parse(
      (await this.#client.ledgerApi({ requestMethod: 'GET', resource: '/v2/state/ledger-end' }))
        .response,
    ) as { offset: number };
    const holdings = holdingsOf(
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

  async acceptOffer(offerId: string): Promise<void> {
    const party = this.#connected().partyId;
    const context = await this.#registry<TransferFactoryAnswer['choiceContext']>(
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

  async #registry<T>(path: string, body: unknown): Promise<T> {
    if (this.#registryUrl === null) {
      throw new Error(
        "This service names no token registry, so a Canton wallet can't transfer here.",
      );
    }
    const response = await fetch(`${this.#registryUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(body),
    });
    if (!response.ok)
      throw new Error(`The token registry answered ${response.status} for ${path}.`);
    return (await response.json()) as T;
  }
}

/**
 * Connects the wallet the page has: an injected CIP-0103 provider (`window.canton`), else the one
 * the user picks in the dApp SDK's picker (which then injects its provider there too).
 */
export async function connectCantonWallet(registryUrl: string | null): Promise<CantonWallet> {
  if (window.canton === undefined) {
    const picked = await dappSDK.connect();
    if (!picked.isConnected) {
      throw new Error(`No wallet connected${picked.reason ? `: ${picked.reason}` : ''}.`);
    }
  }
  const provider = window.canton;
  if (provider === undefined) throw new Error('No Canton wallet was found in this browser.');
  const wallet = new CantonWallet(new DappClient(provider, { injectGlobal: false }), registryUrl);
  await wallet.connect();
  return wallet;
}
