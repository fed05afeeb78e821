/**
 * The web app in Chromium against a running service (embedded store, devnet ledger, port 0):
 * a newcomer's whole swap with the built-in devnet wallet, a slippage refund, a payout offer
 * accepted from the page after a reload, each page under its CSP and without serious axe
 * findings, and screenshots of `/` and a swap in progress at desktop and phone widths.
 */
import { IN_PROGRESS_STATES, PoolParty } from '@poolparty/sdk';
import { Devnet } from '@poolparty/sdk/devnet';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../server/test/support/service.js';
import {
  buildApp,
  launchChromium,
  screenshot,
  seriousAxeViolations,
  watchCspViolations,
} from './support/browser.js';

const SETTLE_MS = 45_000;

describe('the web app in a browser', () => {
  let t: TestService;
  let browser: Browser;
  let usdcxCircle: string;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    await buildApp();
    [t, browser] = await Promise.all([startTestService(), launchChromium()]);
    const pp = new PoolParty({ apiKey: t.apiKey, environment: 'devnet', baseUrl: t.url });
    const pool = await pp.pools.get('amulet-usdcx');
    usdcxCircle = `${pool.tokenB.name}|${pool.tokenB.admin}`;
  });
  afterAll(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await t?.close();
  });

  /** A fresh browser profile (its own localStorage: a newcomer) at a given width. */
  async function newPage(width = 1280): Promise<{ page: Page; csp: string[] }> {
    const context = await browser.newContext({ viewport: { width, height: 900 } });
    contexts.push(context);
    const page = await context.newPage();
    const csp = await watchCspViolations(page);
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
    await page.getByLabel('You receive').selectOption(usdcxCircle);
    await page.getByLabel(/^Amount/).fill(amount);
    if (slippagePercent !== undefined) {
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

  it('takes a newcomer from a new party to a completed swap and shows the balance change', async () => {
    const { page, csp } = await newPage();
    await createParty(page, 'newcomer');
    await fundAmulet(page);
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
    await swapAndOpenProgress(page);
    await statusCard(page, 'completed').waitFor({ timeout: SETTLE_MS });
    for (const state of IN_PROGRESS_STATES) {
      expect(
        await page.locator(`ol.states li[data-state="${state}"]`).getAttribute('data-reached'),
      ).toBe('true');
    }
    expect(await page.getByTestId('payout').textContent()).toContain('arrived in your party');
    await expect.poll(() => page.getByTestId('balance-Amulet').textContent()).toBe('900');
    const usdcx = await page.getByTestId('balance-USDCx').textContent();
    expect(Number(usdcx?.replace(/,/g, ''))).toBeGreaterThan(10);
    expect(await page.getByTestId('history').textContent()).toContain('Completed');
    expect(await seriousAxeViolations(page)).toEqual([]);
    expect(csp).toEqual([]);
  });

  it('shows a swap the price moved past the slippage limit as refunded', async () => {
    const { page } = await newPage();
    await createParty(page, 'cautious');
    await fundAmulet(page);
    await fillSwap(page, '100', '0.1');
    // Between the intent and its deposit, another party's large swap moves the price.
    const whale = await new Devnet(t.url).createWallet({ partyHint: 'whale' });
    await whale.fund('Amulet', '20000');
    let token = '';
    const pp = new PoolParty({
      apiKey: t.apiKey,
      environment: 'devnet',
      baseUrl: t.url,
      walletToken: () => token,
    });
    ({ token } = await whale.authenticate(pp));
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

  it('lets a party without pre-approval accept its payout offer, after a reload mid-swap', async () => {
    for (const width of [1280, 390]) {
      const { page, csp } = await newPage(width);
      await createParty(page, `offer${width}`, false);
      await fundAmulet(page);
      await fillSwap(page, '50');
      if (width === 1280) await screenshot(page, 'swap-quote-1280');
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
      expect(await page.getByTestId('payout').textContent()).toContain('arrived in your party');
      expect(csp).toEqual([]);
    }
  });
});
