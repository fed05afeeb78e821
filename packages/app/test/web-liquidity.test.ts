/**
 * A newcomer's liquidity path, in Chromium against a running service (embedded store, devnet
 * ledger): a devnet party made in the page adds liquidity to a pool by typing one side, sees its
 * position, earns fees from three swaps of another party, removes half and finds both payouts in
 * its balances; then its positions on the pools page. At 1280 px the party has a pre-approval
 * (payouts arrive by themselves); at 390 px it has none, so it accepts both payouts from the page.
 * Every step at its width: no sideways scroll, no console error, no serious axe finding, every
 * control reachable by keyboard. An intent left waiting for its deposits is found again and
 * cancelled. Screenshots go to `test-output/`.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { appSuite } from './support/app-suite.js';
import { checkPage, newWatchedPage } from './support/page-checks.js';
import { signedInWallet } from './support/signed-in-wallet.js';

const SETTLE_MS = 45_000;
/** Each width has a pool of its own: both are seeded at 1 Amulet = 0.145 USDCx. */
const CASES = [
  {
    width: 1280,
    preapproval: true,
    pool: 'amulet-usdcx',
    issuer: 'circle',
    shareAfter: '0.0100 %',
  },
  {
    width: 390,
    preapproval: false,
    pool: 'amulet-usdcx-bridge',
    issuer: 'usdx-bridge',
    shareAfter: '0.0250 %',
  },
] as const;

describe('a newcomer’s liquidity path in a browser', () => {
  const { t, browser, contexts } = appSuite();

  const newPage = (width: number) => newWatchedPage(browser, contexts, width);

  /** Three swaps of another app's user in the pool, back and forth: fees for its providers. */
  async function threeSwapsElsewhere(hint: string, poolId: string): Promise<void> {
    const { wallet, pp } = await signedInWallet(t, hint);
    await wallet.fund('Amulet', '1000');
    for (const [fromToken, toToken, amount] of [
      ['Amulet', 'USDCx', '300'],
      ['Amulet', 'USDCx', '300'],
      ['USDCx', 'Amulet', '40'],
    ] as const) {
      const swap = await pp.swaps.create({ fromToken, toToken, amount, poolId });
      await wallet.deposit(swap);
      expect((await swap.wait()).status).toBe('completed');
    }
  }

  const figure = async (page: Page, testId: string) =>
    Number((await page.getByTestId(testId).getAttribute('data-value')) ?? Number.NaN);
  const balance = async (page: Page, token: string) =>
    Number(((await page.getByTestId(`balance-${token}`).textContent()) ?? '').replace(/,/g, ''));

  for (const { width, preapproval, pool, issuer, shareAfter } of CASES) {
    it(`adds liquidity, earns fees, removes half and is paid both tokens (${width} px)`, async () => {
      const { page, csp, errors } = await newPage(width);
      await page.goto(`${t.url}/pools/${pool}`);
      await page.getByTestId('liquidity-needs-wallet').waitFor();

      // A newcomer: a devnet party made here, funded from the faucet.
      await page.getByLabel('Party name').fill(`provider${width}`);
      if (!preapproval) await page.getByLabel(/pre-approval/).uncheck();
      await page.getByRole('button', { name: 'Create a devnet party' }).click();
      await page.getByTestId('party-id').waitFor();
      await page.getByRole('button', { name: 'Get 1000 Amulet' }).click();
      await expect.poll(() => balance(page, 'Amulet')).toBe(1000);
      await page.getByRole('button', { name: `Get 1000 USDCx (${issuer})` }).click();
      await expect.poll(() => balance(page, 'USDCx')).toBe(1000);

      // One side typed, the other follows the pool's ratio (1 000 000 : 145 000).
      await page.getByLabel('Amulet', { exact: true }).fill('100');
      expect(await page.getByLabel('USDCx', { exact: true }).inputValue()).toBe('14.5');
      expect(await page.getByTestId('expected-units').textContent()).toBe('38.0788');
      expect(await page.getByTestId('share-after').textContent()).toBe(shareAfter);
      await expect
        .poll(() => page.getByTestId('lp-balance-b').textContent())
        .toBe('Balance: 1,000 USDCx');
      await checkPage(page, width, 'liquidity-add');

      // Created, both deposits sent by the wallet, followed to the units.
      await page.getByRole('button', { name: 'Add liquidity', exact: true }).click();
      await page
        .locator('[data-testid="liquidity-intent"][data-state="completed"]')
        .waitFor({ timeout: SETTLE_MS });
      expect(await page.getByTestId('minted-units').textContent()).toBe('38.0788 units credited.');
      await page.getByTestId('position-units').waitFor();
      expect(await page.getByTestId('position-units').textContent()).toBe('38.0788');
      await expect.poll(() => balance(page, 'Amulet')).toBe(900);
      await checkPage(page, width, 'liquidity-added');
      const earnedBefore = await figure(page, 'position-earned');
      expect(await page.getByTestId('position-fees').textContent()).toBe(
        '0 Amulet + 0 USDCx ($0.00)',
      );

      // Another party's three swaps: the position earns its share of their fees.
      await threeSwapsElsewhere(`trader${width}`, pool);
      await page.reload();
      await page.getByTestId('position-earned').waitFor();
      await expect
        .poll(() => figure(page, 'position-earned'), { timeout: SETTLE_MS })
        .toBeGreaterThan(earnedBefore);
      expect(await figure(page, 'position-earned')).toBeGreaterThan(0);
      // The fees earned, beside value vs holding: the swaps paid fees on both sides (Amulet in
      // twice, USDCx in once), none before them.
      const fees = page.getByTestId('position-fees');
      await expect
        .poll(async () => [await fees.getAttribute('data-a'), await fees.getAttribute('data-b')])
        .not.toContain('0');
      expect(await fees.textContent()).toMatch(/^[\d.,]+ Amulet \+ [\d.,]+ USDCx \(.+\)$/);

      // Half removed: the minimums shown, the withdrawal followed until both are paid.
      expect(await page.getByLabel('50 %').isChecked()).toBe(true);
      await page.getByTestId('burn-preview').waitFor();
      await checkPage(page, width, 'liquidity-remove');
      await page.getByRole('button', { name: 'Remove', exact: true }).click();
      if (!preapproval) {
        for (const token of ['Amulet', 'USDCx']) {
          const accept = page.getByRole('button', { name: `Accept ${token}` });
          await accept.waitFor({ timeout: SETTLE_MS });
          await checkPage(page, width, 'liquidity-remove-offered');
          await accept.click();
        }
      }
      await page
        .locator('[data-testid="withdrawal"][data-state="completed"]')
        .waitFor({ timeout: SETTLE_MS });
      expect(await page.getByTestId('payout-a').getAttribute('data-state')).toBe('paid');
      expect(await page.getByTestId('payout-b').getAttribute('data-state')).toBe('paid');
      // Both payouts in the balances: about 50 Amulet and 7.25 USDCx back.
      await expect.poll(() => balance(page, 'Amulet')).toBeGreaterThan(949);
      await expect.poll(() => balance(page, 'USDCx')).toBeGreaterThan(992);
      await expect.poll(() => page.getByTestId('position-units').textContent()).toBe('19.0394');
      await checkPage(page, width, 'liquidity-removed');

      // The pools page lists the position that is left.
      await page.goto(`${t.url}/pools`);
      await page.getByTestId(`position-${pool}`).waitFor();
      expect(await page.getByTestId('position-units').textContent()).toBe('19.0394');
      await checkPage(page, width, 'your-positions');
      expect(errors).toEqual([]);
      expect(csp).toEqual([]);
    });
  }

  it('finds an intent left waiting for its deposits after a reload, and cancels it', async () => {
    const poolId = 'amulet-cbtc';
    for (const width of [1280, 390]) {
      const { page, errors } = await newPage(width);
      // Created elsewhere for a party whose deposits never left: the page finds it again.
      const { wallet, privateKey, token } = await signedInWallet(t, `waiting${width}`);
      const created = await fetch(`${t.url}/v1/liquidity/intents`, {
        method: 'POST',
        headers: {
          'x-api-key': t.apiKey,
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ poolId, amountA: '10' }),
      });
      expect(created.status).toBe(201);
      await page.goto(`${t.url}/pools/${poolId}`);
      await page.getByText('Import a devnet party').click();
      await page
        .getByLabel('Exported key')
        .fill(JSON.stringify({ partyId: wallet.partyId, privateKey }));
      await page.getByRole('button', { name: 'Import' }).click();
      const intent = page.getByTestId('liquidity-intent');
      await page.locator('[data-testid="liquidity-intent"][data-state="pending"]').waitFor();
      await intent.getByRole('button', { name: 'Send the deposits' }).waitFor();
      await checkPage(page, width, 'liquidity-waiting');
      await intent.getByRole('button', { name: 'Cancel' }).click();
      await page.locator('[data-testid="liquidity-intent"][data-state="cancelled"]').waitFor();
      await intent.getByRole('button', { name: 'Try again' }).click();
      await page.getByRole('button', { name: 'Add liquidity', exact: true }).waitFor();
      expect(errors).toEqual([]);
    }
  });
});
