/**
 * The Canton wallet path in Chromium: a scripted CIP-0103 provider injected as `window.canton`
 * (every request answered, and recorded, here in the test) and a scripted token registry. The
 * page must sign exactly the service's challenge text, and hand the wallet exactly one
 * `TransferFactory_Transfer` exercise built from the registry's factory, the party's holdings and
 * the intent; the wallet then makes that transfer on the devnet ledger and the swap completes.
 * A payout offer is accepted with `TransferInstruction_Accept` and the registry's accept context.
 * Such a wallet signs no hashes, so the card says the swap goes by deposit.
 */
import { PoolParty } from '@poolparty/sdk';
import { Devnet, type DevnetWallet } from '@poolparty/sdk/devnet';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { TRANSFER_ONLY_WALLET } from '../src/swap-path.js';
import { appSuite } from './support/app-suite.js';
import { seriousAxeViolations, watchCspViolations } from './support/browser.js';
import { tellAtomicSwaps } from './support/deposit-only.js';
import { chooseToken } from './support/token-picker.js';

const REGISTRY = 'http://registry.test:7575';
const FACTORY_CONTEXT = { values: { 'amulet-rules': { tag: 'AV_ContractId', value: 'rules-1' } } };
const ACCEPT_CONTEXT = { values: { 'expire-lock': { tag: 'AV_Bool', value: true } } };
const DISCLOSED = [
  {
    templateId: '#splice-amulet:Splice.AmuletRules:AmuletRules',
    contractId: 'rules-1',
    createdEventBlob: 'CgMyLjESBnJ1bGVzMQ==',
    synchronizerId: 'global-domain::1220aa',
  },
];

interface WalletCall {
  readonly method: string;
  readonly params: unknown;
}

describe('a Canton wallet through the dApp API', () => {
  const { t, browser } = appSuite({ CANTON_REGISTRY_URL: REGISTRY });
  let wallet: DevnetWallet;
  let amuletAdmin: string;
  /** The receive choice of the canonical pool's USDCx in the token picker. */
  let usdcxChoice: string;

  beforeAll(async () => {
    wallet = await new Devnet(t.url).createWallet({ partyHint: 'dapp-user' });
    await wallet.fund('Amulet', '1000');
    const pp = new PoolParty({ apiKey: t.apiKey, environment: 'devnet', baseUrl: t.url });
    const pool = await pp.pools.get('amulet-usdcx');
    amuletAdmin = pool.tokenA.admin;
    usdcxChoice = `USDCx|${pool.tokenB.admin}`;
  });

  /** The scripted wallet: answers each dApp API request as a wallet holding `holder`'s party would. */
  async function scriptWallet(
    page: Page,
    calls: WalletCall[],
    holder: DevnetWallet,
  ): Promise<void> {
    await page.exposeFunction('scriptedWallet', async (method: string, params: unknown) => {
      calls.push({ method, params });
      switch (method) {
        case 'connect':
          return { isConnected: true, isNetworkConnected: true };
        case 'status':
          return {
            provider: { id: 'scripted', providerType: 'browser' },
            connection: { isConnected: true, isNetworkConnected: true },
          };
        case 'listAccounts':
          return [
            {
              primary: true,
              partyId: holder.partyId,
              status: 'allocated',
              hint: 'dapp-user',
              publicKey: holder.publicKey,
              namespace: holder.partyId.split('::')[1],
              networkId: 'canton:devnet',
              signingProviderId: 'participant',
            },
          ];
        case 'signMessage': {
          const { message } = params as { message: string };
          return { signature: (await holder.signMessage(message)).signature };
        }
        case 'ledgerApi': {
          const { requestMethod, resource } = params as { requestMethod: string; resource: string };
          if (requestMethod === 'GET' && resource === '/v2/state/ledger-end') {
            return { response: JSON.stringify({ offset: 42 }) };
          }
          if (requestMethod === 'POST' && resource === '/v2/state/active-contracts') {
            const holding = (contractId: string, amount: string, lock: unknown = null) => ({
              contractEntry: {
                JsActiveContract: {
                  createdEvent: {
                    contractId,
                    interfaceViews: [
                      {
                        interfaceId:
                          '718a0f77e505a8de22f188bd4c87fe74101274e9d4cb1bfac7d09aec7158d35b:Splice.Api.Token.HoldingV1:Holding',
                        viewValue: {
                          owner: holder.partyId,
                          instrumentId: { admin: amuletAdmin, id: 'Amulet' },
                          amount,
                          lock,
                          meta: { values: {} },
                        },
                      },
                    ],
                  },
                },
              },
            });
            return {
              response: JSON.stringify([
                holding('holding-small', '30.0'),
                holding('holding-locked', '900.0', { holders: [amuletAdmin] }),
                holding('holding-big', '970.0'),
              ]),
            };
          }
          throw new Error(`unscripted ledgerApi ${requestMethod} ${resource}`);
        }
        case 'prepareExecuteAndWait': {
          const handed = params as {
            commandId: string;
            commands: { ExerciseCommand: { contractId: string; choice: string } }[];
          };
          if (handed.commands[0]?.ExerciseCommand.choice === 'TransferInstruction_Accept') {
            const accepted = await holder.acceptOffer(
              handed.commands[0].ExerciseCommand.contractId,
            );
            return {
              tx: {
                status: 'executed',
                commandId: handed.commandId,
                payload: { updateId: accepted.updateId, completionOffset: 44 },
              },
            };
          }
          // The wallet executes what it was handed: the transfer the exercise describes.
          interface ScriptedTransfer {
            receiver: string;
            amount: string;
            instrumentId: { admin: string; id: string };
            meta: { values: Record<string, string> };
          }
          const [exercise] = (
            params as {
              commands: { ExerciseCommand: { choiceArgument: { transfer: ScriptedTransfer } } }[];
            }
          ).commands;
          if (exercise === undefined) throw new Error('no command to execute');
          const command = exercise.ExerciseCommand.choiceArgument.transfer;
          const result = await holder.transfer({
            receiver: command.receiver,
            token: command.instrumentId.id,
            admin: command.instrumentId.admin,
            amount: command.amount,
            reason: command.meta.values['splice.lfdecentralizedtrust.org/reason'],
          });
          return {
            tx: {
              status: 'executed',
              commandId: (params as { commandId: string }).commandId,
              payload: { updateId: result.updateId, completionOffset: 43 },
            },
          };
        }
        case 'disconnect':
          return null;
        default:
          throw new Error(`unscripted method ${method}`);
      }
    });
    await page.addInitScript(() => {
      const call = (
        window as unknown as { scriptedWallet: (m: string, p: unknown) => Promise<unknown> }
      ).scriptedWallet;
      (window as unknown as { canton: unknown }).canton = {
        request: ({ method, params }: { method: string; params?: unknown }) =>
          call(method, params ?? null),
        on() {},
        removeListener() {},
      };
    });
  }

  /** The token registry: a transfer factory and an accept context, each request recorded. */
  async function scriptRegistry(page: Page): Promise<{ path: string; body: unknown }[]> {
    const requests: { path: string; body: unknown }[] = [];
    await page.route(`${REGISTRY}/**`, async (route) => {
      const path = new URL(route.request().url()).pathname;
      requests.push({ path, body: route.request().postDataJSON() });
      const answer = path.endsWith('/transfer-factory')
        ? {
            factoryId: 'factory-1',
            transferKind: 'direct',
            choiceContext: { choiceContextData: FACTORY_CONTEXT, disclosedContracts: DISCLOSED },
          }
        : { choiceContextData: ACCEPT_CONTEXT, disclosedContracts: DISCLOSED };
      await route.fulfill({
        status: 200,
        headers: { 'access-control-allow-origin': '*' },
        contentType: 'application/json',
        body: JSON.stringify(answer),
      });
    });
    return requests;
  }

  it('signs the exact challenge and sends one TransferFactory_Transfer built from the registry', async () => {
    const page = await browser.newPage();
    const csp = await watchCspViolations(page);
    const calls: WalletCall[] = [];
    await scriptWallet(page, calls, wallet);
    const registryRequests = await scriptRegistry(page);
    // Even where the service prepares atomic swaps, this wallet swaps by deposit.
    await tellAtomicSwaps(page, true);

    await page.goto(`${t.url}/swap`);
    // Connecting signs in at once: the party's history needs the wallet token.
    const challengeAnswer = page.waitForResponse((r) =>
      r.url().endsWith('/v1/wallet-auth/challenge'),
    );
    await page.getByRole('button', { name: 'Connect a Canton wallet' }).click();
    expect(await page.getByTestId('party-id').textContent()).toBe(wallet.partyId);
    await chooseToken(page, 'You receive', usdcxChoice);
    await page.getByLabel(/^Amount/).fill('100');
    await page.getByTestId('output-amount').waitFor();
    expect(await page.getByTestId('swap-path-note').textContent()).toBe(TRANSFER_ONLY_WALLET);
    expect(await seriousAxeViolations(page)).toEqual([]);

    const intentAnswer = page.waitForResponse(
      (r) => r.url().endsWith('/v1/swaps') && r.request().method() === 'POST',
    );
    await page.getByRole('button', { name: 'Swap', exact: true }).click();
    const challenge = (await (await challengeAnswer).json()) as { message: string };
    const intent = (await (await intentAnswer).json()) as Record<string, string>;
    await page.waitForURL(/\/swaps\//);
    await page
      .locator('[data-testid="swap-status"][data-state="completed"]')
      .waitFor({ timeout: 45_000 });

    const signs = calls.filter((c) => c.method === 'signMessage');
    expect(signs).toEqual([{ method: 'signMessage', params: { message: challenge.message } }]);
    expect(challenge.message).toContain(`authenticate your Canton party:\n${wallet.partyId}\n`);

    const transfer = {
      sender: wallet.partyId,
      receiver: intent.depositAddress,
      amount: intent.expectedAmount,
      instrumentId: { admin: amuletAdmin, id: 'Amulet' },
      requestedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      executeBefore: intent.expiresAt,
      // The largest unlocked holding covers 100; the locked one is never spent.
      inputHoldingCids: ['holding-big'],
      meta: { values: { 'splice.lfdecentralizedtrust.org/reason': intent.depositReference } },
    };
    expect(registryRequests).toEqual([
      {
        path: '/registry/transfer-instruction/v1/transfer-factory',
        body: {
          choiceArguments: {
            expectedAdmin: amuletAdmin,
            transfer,
            extraArgs: { context: {}, meta: {} },
          },
          excludeDebugFields: true,
        },
      },
    ]);
    const executes = calls.filter((c) => c.method === 'prepareExecuteAndWait');
    expect(executes).toEqual([
      {
        method: 'prepareExecuteAndWait',
        params: {
          commandId: `deposit-${intent.intentId}`,
          actAs: [wallet.partyId],
          commands: [
            {
              ExerciseCommand: {
                templateId:
                  '#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferFactory',
                contractId: 'factory-1',
                choice: 'TransferFactory_Transfer',
                choiceArgument: {
                  expectedAdmin: amuletAdmin,
                  transfer,
                  extraArgs: { context: FACTORY_CONTEXT, meta: { values: {} } },
                },
              },
            },
          ],
          disclosedContracts: DISCLOSED,
        },
      },
    ]);
    // The holdings were asked for through the Holding interface, for this party only.
    const holdingsQuery = calls.find(
      (c) =>
        c.method === 'ledgerApi' &&
        (c.params as { resource: string }).resource === '/v2/state/active-contracts',
    );
    expect(holdingsQuery).toBeDefined();
    const body = JSON.parse(
      (holdingsQuery as WalletCall & { params: { body: string } }).params.body,
    );
    expect(body.activeAtOffset).toBe(42);
    expect(Object.keys(body.eventFormat.filtersByParty)).toEqual([wallet.partyId]);
    expect(
      body.eventFormat.filtersByParty[wallet.partyId].cumulative[0].identifierFilter.InterfaceFilter
        .value.interfaceId,
    ).toBe('#splice-api-token-holding-v1:Splice.Api.Token.HoldingV1:Holding');
    // The dApp SDK's schema library (zod) probes `Function('')` to choose between compiled and
    // interpreted validators; the policy blocks the probe, which it catches, and the swap above
    // completed under the policy, so nothing needed eval. Any other violation fails.
    expect(csp.filter((violation) => !/script-src eval$/.test(violation))).toEqual([]);
    await page.close();
  });

  it("accepts a payout offer with TransferInstruction_Accept and the registry's context", async () => {
    const holder = await new Devnet(t.url).createWallet({
      partyHint: 'dapp-offers',
      preapproval: false,
    });
    await holder.fund('Amulet', '1000');
    const page = await browser.newPage();
    const calls: WalletCall[] = [];
    await scriptWallet(page, calls, holder);
    const registryRequests = await scriptRegistry(page);
    await page.goto(`${t.url}/swap`);
    await page.getByRole('button', { name: 'Connect a Canton wallet' }).click();
    await page.getByTestId('party-id').waitFor();
    await chooseToken(page, 'You receive', usdcxChoice);
    await page.getByLabel(/^Amount/).fill('40');
    await page.getByTestId('output-amount').waitFor();
    await page.getByRole('button', { name: 'Swap', exact: true }).click();
    const offer = page.getByTestId('offer');
    await offer.waitFor({ timeout: 45_000 });
    // A reload reconnects the same wallet through the provider and resumes the swap.
    const connectsBefore = calls.filter((c) => c.method === 'connect').length;
    await page.reload();
    await offer.waitFor({ timeout: 45_000 });
    expect(await page.getByTestId('party-id').textContent()).toBe(holder.partyId);
    expect(calls.filter((c) => c.method === 'connect').length).toBe(connectsBefore + 1);
    const [pending] = await holder.offers();
    expect(pending).toBeDefined();
    const offerId = (pending as { offerId: string }).offerId;
    await offer.getByRole('button', { name: /^Accept/ }).click();
    await page
      .locator('[data-testid="swap-status"][data-state="completed"]')
      .waitFor({ timeout: 45_000 });
    expect(registryRequests.at(-1)).toEqual({
      path: `/registry/transfer-instruction/v1/${offerId}/choice-contexts/accept`,
      body: { meta: {} },
    });
    expect(calls.filter((c) => c.method === 'prepareExecuteAndWait').at(-1)).toEqual({
      method: 'prepareExecuteAndWait',
      params: {
        commandId: `accept-${offerId}`,
        actAs: [holder.partyId],
        commands: [
          {
            ExerciseCommand: {
              templateId:
                '#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferInstruction',
              contractId: offerId,
              choice: 'TransferInstruction_Accept',
              choiceArgument: { extraArgs: { context: ACCEPT_CONTEXT, meta: { values: {} } } },
            },
          },
        ],
        disclosedContracts: DISCLOSED,
      },
    });
    await page.close();
  });
});
