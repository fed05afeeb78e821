/**
 * The web app in Chromium against a running service (embedded store, devnet ledger, port 0):
 * a newcomer's whole swap with the built-in devnet wallet, a slippage refund, a payout offer
 * accepted from the page after a reload, each page under its CSP and without serious axe
 * findings, and screenshots of `/` and a swap in progress at desktop and phone widths.
 */
import { IN_PROGRESS_STATES, PoolParty } from '@poolparty/sdk';
import { addDiscount } from '@poolparty/server/testing';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { appSuite } from './support/app-suite.js';
import { screenshot, seriousAxeViolations, watchCspViolations } from './support/browser.js';
import { swapByDeposit } from './support/deposit-only.js';
import { signedInWallet } from './support/signed-in-wallet.js';
import { chooseToken } from './support/token-picker.js';

const SETTLE_MS = 45_000;

describe('the web app in a browser', () => {
  const { t, browser, contexts } = appSuite();
  let usdcxCircle: string;

  beforeAll(async () => {
    const pp = new PoolParty({ apiKey: t.apiKey, environment: 'devnet', baseUrl: t.url });
    const pool = await pp.pools.get('amulet-usdcx');
    usdcxCircle = `${pool.tokenB.name}|${pool.tokenB.admin}`;
  });

  /** A fresh browser profile (its own localStorage: a newcomer) at a given width. */
  async function newPage(width = 1280): Promise<{ page: Page; csp: string[] }> {
    const context = await browser.newContext({ viewport: { width, height: 900 } });
    contexts.push(context);
    const page = await context.newPage();
    const csp = await watchCspViolations(page);
    // The deposit flow's pages: atomic swaps are web-atomic-swap.test.ts's.
    await swapByDeposit(page);
    return { page, csp };
  }

  async function createParty(page: Page, name: string, preapproval = true): Promise<string> {
    await page.goto(`${t.url}/swap`);
    await page.getByLabel('Party name').fill(name);
    if (!preapproval) await page.getByLabel(/Accept incoming transfers automatically/).uncheck();
    await page.getByRole('button', { name: 'Create a devnet party' }).click();
    const party = page.getByTestId('party-id');
    await party.waitFor();
    return (await party.textContent()) ?? '';
  }

  async function fundAmulet(page: Page): Promise<void> {
    await page.getByRole('button', { name: 'Get 1000 Amulet' }).click();
    await expect.poll(() => page.getByTestId('balance-Amulet').textContent()).toBe('1,000');
  }

  async function fillSwap(page: Page, amount: string, slippagePercent?: string): Promise<void> {
    await chooseToken(page, 'You receive', usdcxCircle);
    await page.getByLabel(/^Amount/).fill(amount);
    if (slippagePercent !== undefined) {
      await page.getByTestId('slippage-toggle').click();
      await page.getByLabel('Slippage limit (%)').fill(slippagePercent);
    }
    await page.getByTestId('output-amount').waitFor();
  }

  async function swapAndOpenProgress(page: Page): Promise<string> {
    await page.getByRole('button', { name: 'Swap', exact: true }).click();
    await page.waitForURL(/\/swaps\/[^/]+$/, { timeout: SETTLE_MS });
    return decodeURIComponent(new URL(page.url()).pathname.split('/').pop() ?? '');
  }

  function statusCard(page: Page, state: string) {
    return page.locator(`[data-testid="swap-status"][data-state="${state}"]`);
  }

  it('shows the live pools on the landing page, accessibly, at both widths', async () => {
    for (const width of [1280, 390]) {
      const { page, csp } = await newPage(width);
      const answer = await page.goto(`${t.url}/`);
      expect(answer?.headers()['cache-control']).toBe('no-cache');
      await page.locator('tr[data-pool="amulet-usdcx"]').waitFor();
      const row = await page.locator('tr[data-pool="amulet-usdcx"]').textContent();
      expect(row).toContain('1,000,000 Amulet');
      expect(row).toContain('145,000 USDCx');
      expect(row).toContain('1 Amulet = 0.145 USDCx');
      expect(row).toMatch(/\$\d/); // a USD price from the ticker
      for (const link of ['/swap', '/developer', '/docs', '/developer/sdk']) {
        expect(await page.locator(`main a[href="${link}"]`).count()).toBeGreaterThan(0);
      }
      expect(await seriousAxeViolations(page)).toEqual([]);
      // Readable at phone width: nothing pushes the page wider than the screen.
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
        width,
      );
      await screenshot(page, `landing-${width}`);
      expect(csp).toEqual([]);
    }
  });

  it('serves the developer entry and the SDK guide accessibly, under the CSP', async () => {
    const { page, csp } = await newPage(390);
    await page.goto(`${t.url}/developer`);
    await page.getByRole('heading', { name: 'Developers' }).waitFor();
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.getByRole('link', { name: 'SDK guide' }).click();
    await page.getByRole('heading', { name: 'SDK guide' }).waitFor();
    // The README as a page: headings, code blocks and tables, no Markdown left.
    await page.getByRole('heading', { name: 'A complete swap' }).waitFor();
    expect(await page.locator('.guide-text pre code').count()).toBeGreaterThan(3);
    expect(await page.locator('.guide-text table').count()).toBeGreaterThan(3);
    expect(await page.locator('.guide-text').textContent()).not.toContain('## ');
    expect(await seriousAxeViolations(page)).toEqual([]);
    expect(csp).toEqual([]);
  });

  it('takes a newcomer from a new party to a completed swap and shows the balance change', async () => {
    const { page, csp } = await newPage();
    // By keyboard alone: the first Tab reaches the skip link, Enter submits each form.
    await page.goto(`${t.url}/swap`);
    await page.getByLabel('Party name').waitFor();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
    await page.getByLabel('Party name').focus();
    await page.keyboard.type('newcomer');
    await page.keyboard.press('Enter');
    await page.getByTestId('party-id').waitFor();
    await page.getByRole('button', { name: 'Get 1000 Amulet' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByTestId('balance-Amulet').textContent()).toBe('1,000');
    await fillSwap(page, '100');
    const quote = await page.getByTestId('quote').textContent();
    for (const line of [
      'Network fee',
      'Pool fee',
      'to liquidity providers',
      'to the platform',
      'Price impact',
    ]) {
      expect(quote).toContain(line);
    }
    expect(await seriousAxeViolations(page)).toEqual([]);
    // The progress page opens before the deposit and follows the swap's event stream.
    const streamed: string[] = [];
    page.on('request', (request) => {
      if (/\/v1\/swaps\/[^/]+\/events$/.test(new URL(request.url()).pathname)) {
        streamed.push(request.url());
      }
    });
    await page.getByLabel(/^Amount/).focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/swaps\/[^/]+$/, { timeout: SETTLE_MS });
    // The keyboard user lands on the new page's content.
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('main');
    await statusCard(page, 'completed').waitFor({ timeout: SETTLE_MS });
    for (const state of IN_PROGRESS_STATES) {
      expect(
        await page.locator(`ol.states li[data-state="${state}"]`).getAttribute('data-reached'),
      ).toBe('true');
    }
    expect(await page.getByTestId('payout').textContent()).toContain('arrived in your party');
    expect(streamed.length).toBeGreaterThan(0);
    await expect.poll(() => page.getByTestId('balance-Amulet').textContent()).toBe('900');
    const usdcx = await page.getByTestId('balance-USDCx').textContent();
    expect(Number(usdcx?.replace(/,/g, ''))).toBeGreaterThan(10);
    expect(await page.getByTestId('history').textContent()).toContain('Completed');
    expect(await seriousAxeViolations(page)).toEqual([]);
    expect(csp).toEqual([]);
  });

  it("says why a swap the settlement-safety guard blocks cannot be made, and won't start it", async () => {
    const { page } = await newPage();
    await createParty(page, 'whale-to-be');
    await fundAmulet(page);
    await chooseToken(page, 'You receive', 'CBTC');
    await page.getByLabel(/^Amount/).fill('150000');
    const guard = page.getByTestId('settlement-safety');
    await guard.waitFor();
    expect(await guard.textContent()).toContain("more than 10% of the pool's output reserve");
    expect(await page.getByTestId('swap-button').isDisabled()).toBe(true);
    await page.getByLabel(/^Amount/).fill('1000');
    await guard.waitFor({ state: 'detached' });
    await expect.poll(() => page.getByTestId('swap-button').isDisabled()).toBe(false);
    expect(await guard.count()).toBe(0);
    await page.getByTestId('slippage-toggle').click();
    await page.getByLabel('Slippage limit (%)').fill('7');
    expect(
      await page.getByRole('alert').filter({ hasText: 'Slippage must be' }).textContent(),
    ).toBe('Slippage must be between 0.1 % and 5 %.');
    expect(await page.getByTestId('swap-button').textContent()).toBe('Fix the slippage limit');
    expect(await page.getByTestId('swap-button').isDisabled()).toBe(true);
  });

  it('shows fee discounts in the quote: what each fee would be and what is charged', async () => {
    await addDiscount(
      t.service.ctx.db,
      {
        targetType: 'pool',
        target: 'amulet-cbtc',
        networkChargeBps: 5000,
        platformChargeBps: 7000,
      },
      { actor: 'web-app test', now: t.service.ctx.clock.now() },
    );
    const { page } = await newPage();
    await createParty(page, 'discounted');
    await chooseToken(page, 'You receive', 'CBTC');
    await page.getByLabel(/^Amount/).fill('1000');
    const quote = page.getByTestId('quote');
    // The running service hears of the new policy through the admin change feed.
    await expect
      .poll(async () => (await quote.textContent().catch(() => '')) ?? '', { timeout: 20_000 })
      .toContain('50 % off');
    const text = (await quote.textContent()) ?? '';
    expect(text).toContain('30 % off');
    // The card may re-quote while it is read: the struck-out full fee is asserted as it settles.
    const networkFee = page.getByTestId('network-fee');
    await expect
      .poll(() => networkFee.locator('s').count(), {
        message: `network fee shown as ${await networkFee.textContent()}`,
      })
      .toBe(1);
    expect(await seriousAxeViolations(page)).toEqual([]);
  });

  it('shows a swap the price moved past the slippage limit as refunded', async () => {
    const { page } = await newPage();
    await createParty(page, 'cautious');
    await fundAmulet(page);
    await fillSwap(page, '100', '0.1');
    // Between the intent and its deposit, another party's large swap moves the price.
    const { wallet: whale, pp } = await signedInWallet(t, 'whale');
    await whale.fund('Amulet', '20000');
    await page.route('**/devnet/transfers', async (route) => {
      const big = await pp.swaps.create({
        fromToken: 'Amulet',
        toToken: 'USDCx',
        amount: '20000',
        poolId: 'amulet-usdcx',
      });
      await whale.deposit(big);
      await big.wait();
      await route.continue();
    });
    await swapAndOpenProgress(page);
    await statusCard(page, 'slippage_failed').waitFor({ timeout: SETTLE_MS });
    expect(await page.locator('#status-heading').textContent()).toBe('Refunded: the price moved');
    expect(await page.getByTestId('refund').textContent()).toMatch(/Refund: [\d.]+ Amulet/);
    expect(await seriousAxeViolations(page)).toEqual([]);
  });

  it('resumes a swap whose deposit failed: the progress page sends it, after a reload', async () => {
    const { page } = await newPage();
    await createParty(page, 'retry');
    await fundAmulet(page);
    await fillSwap(page, '100');
    await page.route('**/devnet/transfers', (route) => route.abort('connectionreset'), {
      times: 1,
    });
    await swapAndOpenProgress(page);
    await statusCard(page, 'pending').waitFor();
    // The deposit the progress page sent failed: it says so and offers to send it again.
    await page.getByTestId('swap-status').getByRole('alert').waitFor();
    await page.reload();
    await statusCard(page, 'pending').waitFor({ timeout: SETTLE_MS });
    expect(
      await page.locator('ol.states li[data-state="matched"]').getAttribute('data-reached'),
    ).toBe('false');
    await page.getByRole('button', { name: 'Send the deposit' }).click();
    await statusCard(page, 'completed').waitFor({ timeout: SETTLE_MS });
    await expect.poll(() => page.getByTestId('balance-Amulet').textContent()).toBe('900');
  });

  it('lets a party without pre-approval accept its payout offer, after a reload mid-swap', async () => {
    for (const width of [1280, 390]) {
      const { page, csp } = await newPage(width);
      await createParty(page, `offer${width}`, false);
      await fundAmulet(page);
      await fillSwap(page, '50');
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
        width,
      );
      await screenshot(page, `swap-quote-${width}`);
      // The progress view follows the swap's event stream, not only polls of its status.
      const streamed: string[] = [];
      page.on('request', (request) => {
        if (/\/v1\/swaps\/[^/]+\/events$/.test(new URL(request.url()).pathname)) {
          streamed.push(request.url());
        }
      });
      const intentId = await swapAndOpenProgress(page);
      const offer = page.getByTestId('offer');
      await offer.waitFor({ timeout: SETTLE_MS });
      // The swap waits for the user: reloading resumes it where it is.
      await page.reload();
      await offer.waitFor({ timeout: SETTLE_MS });
      expect(new URL(page.url()).pathname).toBe(`/swaps/${intentId}`);
      expect(await statusCard(page, 'sending_output').count()).toBe(1);
      expect(
        await page.locator('ol.states li[data-state="processing"]').getAttribute('data-reached'),
      ).toBe('true');
      expect(await seriousAxeViolations(page)).toEqual([]);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
        width,
      );
      await screenshot(page, `swap-in-progress-${width}`);
      await offer.getByRole('button', { name: /^Accept/ }).click();
      await statusCard(page, 'completed').waitFor({ timeout: SETTLE_MS });
      expect(streamed.length).toBeGreaterThan(0);
      expect(await page.getByTestId('payout').textContent()).toContain('arrived in your party');
      expect(csp).toEqual([]);
    }
  });
});
