/**
 * The swap card a trader uses, in Chromium against a running service (embedded store, devnet
 * ledger): a swap from an empty wallet to `completed` with the keyboard alone and its progress
 * link copied and opened without the wallet, the Swap button
 * within a phone's first screen with the amount entered, the button's label for each blocking
 * reason (balance, price impact above the cap, the guard), Flip carrying the amount with its
 * token, the recent swaps of a pool readable at phone width, and the position's "value vs
 * holding". At 1280 and 390 px, light and dark; screenshots go to `test-output/`.
 */
import { PoolParty } from '@poolparty/sdk';
import { Devnet } from '@poolparty/sdk/devnet';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { appSuite } from './support/app-suite.js';
import { SCREENSHOT_DIR, screenshot, seriousAxeViolations } from './support/browser.js';
import { swapByDeposit } from './support/deposit-only.js';
import { holdRequests, toastAfterLeaving } from './support/held-requests.js';
import { checkPage, horizontalOverflow, newWatchedPage } from './support/page-checks.js';
import { chooseToken, chosenToken, tokenButton } from './support/token-picker.js';

const SETTLE_MS = 45_000;
/** A common phone's first screen. */
const PHONE = { width: 390, height: 844 } as const;
const DESKTOP = { width: 1280, height: 844 } as const;
/** The pool of the page's default pair (Amulet → CBTC), which the keyboard swaps go through. */
const SWAPPED_POOL = 'amulet-cbtc';
const SCHEMES = ['light', 'dark'] as const;

/** The page in the system's light or dark scheme, as a visitor with that setting sees it. */
async function showScheme(page: Page, scheme: (typeof SCHEMES)[number]): Promise<void> {
  await page.emulateMedia({ colorScheme: scheme });
  const background = await page.evaluate(
    () => getComputedStyle(document.documentElement).backgroundColor,
  );
  // The light background is the design tokens' --bg, #f7f7fb, set on the root.
  expect(background === 'rgb(247, 247, 251)', `${scheme} background`).toBe(scheme === 'light');
}

describe('the swap card in a browser', () => {
  const { t, browser, contexts } = appSuite();

  async function newPage(size: { width: number; height: number }, scheme?: 'light' | 'dark') {
    const watched = await newWatchedPage(browser, contexts, size.width, scheme);
    await watched.page.setViewportSize(size);
    // The deposit flow's pages: atomic swaps are web-atomic-swap.test.ts's.
    await swapByDeposit(watched.page);
    return watched;
  }

  const button = (page: Page) => page.getByTestId('swap-button');
  const amountField = (page: Page) => page.getByLabel(/^Amount/);

  /** Types into the focused field as a user does: select what is there, type over it. */
  async function typeOver(page: Page, text: string): Promise<void> {
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.type(text);
  }

  /** A devnet party created from the wallet panel with the keyboard; its party id. */
  async function createPartyByKeyboard(page: Page, name: string): Promise<string> {
    await page.getByLabel('Party name').focus();
    await page.keyboard.type(name);
    await page.keyboard.press('Enter');
    const party = page.getByTestId('party-id');
    await party.waitFor();
    return (await party.textContent()) ?? '';
  }

  it('swaps from an empty wallet to completed with the keyboard alone; Swap stays on the first screen', async () => {
    for (const size of [PHONE, DESKTOP]) {
      const { page, errors, csp } = await newPage(size);
      await page.goto(`${t.url}/swap`);
      await expect.poll(() => button(page).textContent()).toBe('Connect a wallet');
      await createPartyByKeyboard(page, `keys${size.width}`);
      await expect.poll(() => button(page).textContent()).toBe('Insufficient Amulet balance');
      await page.getByRole('button', { name: 'Get 1000 Amulet' }).focus();
      await page.keyboard.press('Enter');
      await expect.poll(() => page.getByTestId('balance-Amulet').textContent()).toBe('1,000');

      await amountField(page).focus();
      await typeOver(page, '100');
      await page.getByTestId('output-amount').waitFor();
      await expect.poll(() => button(page).textContent()).toBe('Swap');
      // The button is on the first screen, the amount entered, with the page at its top.
      const bottom = await button(page).evaluate((element) => {
        window.scrollTo(0, 0);
        return element.getBoundingClientRect().bottom;
      });
      expect(bottom).toBeGreaterThan(0);
      expect(bottom).toBeLessThanOrEqual(size.height);
      // The one-line summary names rate, fees, impact and the least received.
      const summary = (await page.getByTestId('quote-summary').textContent()) ?? '';
      // Every amount with its USD, two decimals always.
      expect(summary).toMatch(
        /^1 Amulet = [\d.]+ \w+Fees [\d.]+ Amulet \(\$\d+\.\d\d\)Impact [\d.]+ %Min [\d.]+ CBTC \(\$\d+\.\d\d\)$/,
      );
      await checkPage(page, size.width, 'swap-card');

      await amountField(page).focus();
      await page.keyboard.press('Enter');
      await page.waitForURL(/\/swaps\/[^/]+$/, { timeout: SETTLE_MS });
      await page
        .locator('[data-testid="swap-status"][data-state="completed"]')
        .waitFor({ timeout: SETTLE_MS });

      // The progress link, copied, shows the same swap to someone without its wallet.
      await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
      await page.getByRole('button', { name: 'Copy link' }).focus();
      await page.keyboard.press('Enter');
      await page.getByTestId('copy-link-status').waitFor();
      const link = await page.evaluate(() => navigator.clipboard.readText());
      expect(link).toBe(page.url());
      const other = await newPage(size);
      await other.page.goto(link);
      await other.page
        .locator('[data-testid="swap-status"][data-state="completed"]')
        .waitFor({ timeout: SETTLE_MS });
      expect(await other.page.getByTestId('read-only-note').textContent()).toContain('read-only');
      expect(errors).toEqual([]);
      expect(other.errors).toEqual([]);
      expect(csp).toEqual([]);
    }
  });

  it('toasts a swap that ends while the user is on another page, with a link to it', async () => {
    for (const size of [PHONE, DESKTOP]) {
      const { page, errors } = await newPage(size);
      await page.goto(`${t.url}/swap`);
      await createPartyByKeyboard(page, `toast${size.width}`);
      await page.getByRole('button', { name: 'Get 1000 Amulet' }).click();
      await expect.poll(() => page.getByTestId('balance-Amulet').textContent()).toBe('1,000');
      // The deposit is held until the user has gone to another page, so the swap ends there.
      const release = await holdRequests(page, '**/devnet/transfers');
      await amountField(page).fill('100');
      await expect.poll(() => button(page).textContent()).toBe('Swap');
      await button(page).click();
      await page.waitForURL(/\/swaps\/[^/]+$/, { timeout: SETTLE_MS });
      const swapPath = new URL(page.url()).pathname;
      const toast = await toastAfterLeaving(page, t.url, release, SETTLE_MS);
      expect(await toast.textContent()).toMatch(/^Swap completed: 100 Amulet → CBTC/);
      await checkPage(page, size.width, 'swap-toast');
      await toast.getByRole('link').click();
      await page.waitForURL(`${t.url}${swapPath}`);
      await page.getByRole('button', { name: 'Dismiss' }).click();
      expect(await page.getByTestId('swap-toast').count()).toBe(0);
      expect(errors).toEqual([]);
    }
  });

  it('names what blocks the swap on the button: balance, price impact, the guard', async () => {
    for (const size of [PHONE, DESKTOP]) {
      const { page, errors } = await newPage(size);
      await page.goto(`${t.url}/swap`);
      const partyId = await createPartyByKeyboard(page, `whale${size.width}`);
      await amountField(page).fill('100000');
      await expect.poll(() => button(page).textContent()).toBe('Insufficient Amulet balance');
      expect(await button(page).isDisabled()).toBe(true);

      // Enough Amulet for a swap whose impact is above the service's cap.
      await new Devnet(t.url).faucet({ partyId, token: 'Amulet', amount: '499000' });
      await page.getByRole('button', { name: 'Get 1000 Amulet' }).click();
      await expect.poll(() => page.getByTestId('balance-Amulet').textContent()).toBe('500,000');
      await amountField(page).fill('400000');
      await expect.poll(() => button(page).textContent()).toBe('Price impact too high');
      expect(await button(page).isDisabled()).toBe(true);
      expect(await page.getByTestId('swap-blocker').textContent()).toContain('refuses above');
      await checkPage(page, size.width, 'swap-card-impact');

      await chooseToken(page, 'You receive', 'CBTC');
      await amountField(page).fill('150000');
      await page.getByTestId('settlement-safety').waitFor();
      await expect.poll(() => button(page).textContent()).toMatch(/^Pool paused/);
      expect(await button(page).isDisabled()).toBe(true);
      expect(errors).toEqual([]);
    }
  });

  it('picks a token from a search with the keyboard: type, arrows, Enter; Escape gives the focus back', async () => {
    const pp = new PoolParty({ apiKey: t.apiKey, environment: 'devnet', baseUrl: t.url });
    const circle = (await pp.pools.get('amulet-usdcx')).tokenB.admin;
    for (const size of [PHONE, DESKTOP]) {
      const { page, errors } = await newPage(size);
      await page.goto(`${t.url}/swap`);
      await page.getByTestId('output-amount').waitFor();
      const receive = tokenButton(page, 'You receive');
      const before = await chosenToken(page, 'You receive');
      await receive.focus();
      await page.keyboard.press('Enter');
      const dialog = page.getByRole('dialog', { name: 'You receive: choose a token' });
      const search = dialog.getByRole('combobox');
      await search.waitFor();
      expect(await search.evaluate((field) => field === document.activeElement)).toBe(true);
      const options = dialog.getByRole('option');

      // By symbol: both USDCx, told apart by their issuers.
      await page.keyboard.type('usd');
      await expect.poll(() => options.count()).toBe(2);
      expect(await options.allTextContents()).toEqual([
        expect.stringMatching(/^USDCxIssued by circle::/),
        expect.stringMatching(/^USDCxIssued by usdx-bridge::/),
      ]);
      // By issuer, and by the admin id pasted whole (devnet's admins share one namespace).
      await typeOver(page, 'bridge');
      await expect
        .poll(() => options.allTextContents())
        .toEqual([expect.stringMatching(/^USDCxIssued by usdx-bridge::/)]);
      await typeOver(page, circle);
      await expect
        .poll(() => options.allTextContents())
        .toEqual([expect.stringMatching(/^USDCxIssued by circle::/)]);
      await typeOver(page, 'nothing-like-it');
      await dialog.getByTestId('token-search-empty').waitFor();
      expect(await seriousAxeViolations(page)).toEqual([]);
      expect(await horizontalOverflow(page)).toEqual({ by: 0, widest: [] });

      // Escape closes it, the focus back on the button, the token unchanged.
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
      // The focus moves back once the dialog is gone, in the frame after it.
      await expect
        .poll(() => receive.evaluate((button) => button === document.activeElement))
        .toBe(true);
      expect(await chosenToken(page, 'You receive')).toBe(before);

      // A key typed on the button starts the search; the arrows move, Enter picks.
      await page.keyboard.type('U');
      await search.waitFor();
      expect(await search.inputValue()).toBe('U');
      await expect.poll(() => options.count()).toBe(2);
      expect(await options.nth(0).getAttribute('aria-selected')).toBe('true');
      await page.keyboard.press('ArrowDown');
      expect(await options.nth(1).getAttribute('aria-selected')).toBe('true');
      expect(await search.getAttribute('aria-activedescendant')).toBe(
        await options.nth(1).getAttribute('id'),
      );
      await screenshot(page, `token-picker-${size.width}`);
      // The screenshot leaves no control focused: the search takes it back.
      await search.focus();
      await page.keyboard.press('Enter');
      await dialog.waitFor({ state: 'detached' });
      // The focus moves back once the dialog is gone, in the frame after it.
      await expect
        .poll(() => receive.evaluate((button) => button === document.activeElement))
        .toBe(true);
      expect(await chosenToken(page, 'You receive')).toMatch(/^USDCx\|usdx-bridge::/);
      expect(page.url()).toMatch(/\/swap$/);
      await expect.poll(() => page.getByTestId('quote-summary').textContent()).toMatch(/USDCx/);
      expect(errors).toEqual([]);
    }
  });

  it('shows each amount’s USD and flags a network fee above 2 % with the sensible minimum', async () => {
    for (const size of [PHONE, DESKTOP]) {
      const { page, errors } = await newPage(size);
      await page.goto(`${t.url}/swap`);
      await amountField(page).fill('100');
      await page.getByTestId('output-amount').waitFor();
      const usd = /^\$\d{1,3}(,\d{3})*\.\d\d$|^< \$0\.01$/;
      expect(await page.getByTestId('usd-You send').textContent()).toMatch(usd);
      expect(await page.getByTestId('usd-You receive').textContent()).toMatch(usd);
      // 100 Amulet pays about 8.28 Amulet of network fee: 8.3 %, told as a cost in USD.
      const notice = page.getByTestId('network-fee-notice');
      expect(await notice.isVisible()).toBe(true);
      expect(await notice.textContent()).toMatch(
        /^The network fee, [\d.]+ Amulet \(\$\d+\.\d\d\), is 8\.\d % of this swap \(above 2 %\): .* from about [\d,.]+ Amulet \(\$\d+\.\d\d\) it weighs less\.$/,
      );
      await page.getByTestId('quote-summary').click();
      for (const line of ['network-fee', 'pool-fee', 'lp-fee', 'platform-fee', 'min-output']) {
        const shown = page.getByTestId(line).locator('.usd');
        expect((await shown.textContent())?.trim(), line).toMatch(usd);
      }
      expect(await page.getByTestId('network-fee').getAttribute('class')).toBe('fee-heavy');
      await checkPage(page, size.width, 'swap-network-fee');

      // From the sensible minimum on, the fee is no longer flagged.
      await amountField(page).fill('1000');
      await expect.poll(() => page.getByTestId('breakdown-output').textContent()).toMatch(/CBTC/);
      await page.getByTestId('quote').waitFor();
      await expect.poll(() => notice.count()).toBe(0);
      expect(await page.getByTestId('network-fee').getAttribute('class')).toBeNull();
      expect(errors).toEqual([]);
    }
  });

  it('shows the pool’s price beside the card, under it on a phone; a young pool says so', async () => {
    for (const size of [PHONE, DESKTOP]) {
      const { page, errors } = await newPage(size);
      await page.goto(`${t.url}/swap`);
      await amountField(page).fill('100');
      await page.getByTestId('output-amount').waitFor();
      const chart = page.getByTestId('swap-pool-chart');
      // This run's pools are younger than two hourly snapshots.
      await chart.getByTestId('chart-not-enough').waitFor();
      const card = await page.locator('.swap-card').boundingBox();
      const box = await chart.boundingBox();
      if (card === null || box === null) throw new Error('card or chart not laid out');
      if (size.width === DESKTOP.width) {
        expect(box.x).toBeGreaterThanOrEqual(card.x + card.width);
        expect(box.y).toBeLessThan(card.y + card.height);
      } else {
        expect(box.y).toBeGreaterThanOrEqual(card.y + card.height);
      }
      // The chart never pushes the button off a phone's first screen.
      const bottom = await button(page).evaluate((element) => {
        window.scrollTo(0, 0);
        return element.getBoundingClientRect().bottom;
      });
      expect(bottom).toBeLessThanOrEqual(size.height);
      expect(await chart.getByRole('link', { name: "The pool's page" }).getAttribute('href')).toBe(
        `/pools/${SWAPPED_POOL}`,
      );

      // With hours of history (answered here for a pool this run cannot age), it is drawn.
      await page.route('**/v1/pools/*/history?period=24h', (route) =>
        route.fulfill({ json: agedHistory(SWAPPED_POOL) }),
      );
      await chart.getByLabel('Last 24 hours').check();
      await chart.locator('.u-axis').nth(1).waitFor();
      expect(await chart.getByTestId('chart-not-enough').count()).toBe(0);
      await checkPage(page, size.width, 'swap-chart');
      expect(errors).toEqual([]);
    }
  });

  it('flips the amount with its token: what would be received is sent', async () => {
    const { page } = await newPage(PHONE);
    await page.goto(`${t.url}/swap`);
    await chooseToken(page, 'You receive', 'CBTC');
    await amountField(page).fill('900');
    const output = page.getByTestId('output-amount');
    await output.waitFor();
    const received = await page.getByTestId('breakdown-output').textContent();
    await page.getByRole('button', { name: /^Flip/ }).click();
    expect(await chosenToken(page, 'You send')).toMatch(/^CBTC\|/);
    const sent = await amountField(page).inputValue();
    expect(Number(sent)).toBeGreaterThan(0);
    expect(Number(sent)).toBeLessThan(900);
    expect(received?.startsWith(sent.replace(/0+$/, ''))).toBe(true);
  });

  it('keeps the settings behind a toggle Escape closes, and the breakdown one click away', async () => {
    const { page } = await newPage(DESKTOP);
    await page.goto(`${t.url}/swap`);
    await page.getByTestId('output-amount').waitFor();
    expect(await page.getByLabel('Slippage limit (%)').isVisible()).toBe(false);
    await page.getByTestId('slippage-toggle').focus();
    await page.keyboard.press('Enter');
    await page.getByLabel('Slippage limit (%)').focus();
    await page.keyboard.press('Escape');
    expect(await page.getByLabel('Slippage limit (%)').isVisible()).toBe(false);
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Slippage 1 %');

    expect(await page.getByTestId('network-fee').isVisible()).toBe(false);
    await page.getByTestId('quote-summary').click();
    expect(await page.getByTestId('network-fee').isVisible()).toBe(true);
    expect(await page.getByTestId('pool-fee').isVisible()).toBe(true);
  });

  it('shows the card, a pool page and the positions readable at both widths, light and dark', async () => {
    for (const size of [PHONE, DESKTOP]) {
      const { page, errors } = await newPage(size);
      // The pool the keyboard swaps above went through: its recent swaps are listed.
      await page.goto(`${t.url}/pools/${SWAPPED_POOL}`);
      await page.getByTestId('trades').waitFor();
      expect(await horizontalOverflow(page)).toEqual({ by: 0, widest: [] });
      // Every cell of the recent swaps lies within the screen, none cut off.
      const beyond = await page.getByTestId('trades').evaluate((table) => {
        const limit = document.documentElement.clientWidth;
        return Array.from(table.querySelectorAll('td'))
          .filter((cell) => cell.getBoundingClientRect().right > limit)
          .map((cell) => cell.textContent);
      });
      expect(beyond).toEqual([]);

      // A position of this party, added from the page.
      await createPartyByKeyboard(page, `lp${size.width}`);
      await page.getByRole('button', { name: 'Get 1000 Amulet' }).click();
      await expect.poll(() => page.getByTestId('balance-Amulet').textContent()).toBe('1,000');
      await page.getByRole('button', { name: 'Get 1000 CBTC' }).click();
      await expect.poll(() => page.getByTestId('balance-CBTC').textContent()).toBe('1,000');
      await page.getByLabel('Amulet', { exact: true }).fill('100');
      await page.getByRole('button', { name: 'Add liquidity', exact: true }).click();
      await page.getByTestId('position-units').waitFor({ timeout: SETTLE_MS });
      const position = page.getByTestId(`position-${SWAPPED_POOL}`);
      // Value against holding, and beside it the fees really earned: none yet, no swap since.
      const figures = await position.textContent();
      expect(figures).toContain('Value vs holding');
      expect(figures).toContain('Fees earned0 Amulet + 0 CBTC');
      for (const scheme of SCHEMES) {
        await showScheme(page, scheme);
        expect(await seriousAxeViolations(page), `pool page, ${scheme}`).toEqual([]);
        await screenshot(page, `pool-${scheme}-${size.width}`);
        await position.screenshot({
          path: `${SCREENSHOT_DIR}/position-${scheme}-${size.width}.png`,
        });
      }
      await checkPage(page, size.width);

      // The party's positions on the pools page.
      await page.goto(`${t.url}/pools`);
      await page.getByTestId(`position-${SWAPPED_POOL}`).waitFor();
      for (const scheme of SCHEMES) {
        await showScheme(page, scheme);
        expect(await seriousAxeViolations(page), `positions, ${scheme}`).toEqual([]);
        await screenshot(page, `positions-${scheme}-${size.width}`);
      }

      // The card with a quote, its breakdown open, the pool's chart beside it.
      await page.goto(`${t.url}/swap`);
      await amountField(page).fill('100');
      await page.getByTestId('output-amount').waitFor();
      await page.getByTestId('quote-summary').click();
      await page.getByTestId('swap-pool-chart').getByTestId('price-chart').waitFor();
      for (const scheme of SCHEMES) {
        await showScheme(page, scheme);
        expect(await seriousAxeViolations(page), `swap card, ${scheme}`).toEqual([]);
        expect(await horizontalOverflow(page)).toEqual({ by: 0, widest: [] });
        await screenshot(page, `swap-card-${scheme}-${size.width}`);
      }
      // The token dialog, dark.
      await tokenButton(page, 'You receive').click();
      await page.getByRole('dialog').getByRole('option').first().waitFor();
      expect(await seriousAxeViolations(page), 'token dialog, dark').toEqual([]);
      await screenshot(page, `token-picker-dark-${size.width}`);
      expect(errors).toEqual([]);
    }
  });
});

/** Three hours of a pool's history, as the service answers `GET /v1/pools/{id}/history`. */
function agedHistory(poolId: string) {
  const hour = (ago: number) => new Date(Date.now() - ago * 3_600_000).toISOString();
  const point = (ago: number, price: string) => ({
    hour: hour(ago),
    reserveA: '1000000',
    reserveB: '1.32',
    price,
    priceUsd: '0.145',
    tvl: '290000',
    volume: '120',
    swapCount: 3,
  });
  return {
    poolId,
    period: '24h',
    from: hour(24),
    to: hour(0),
    points: [point(3, '0.00000131'), point(2, '0.00000133'), point(1, '0.00000132')],
  };
}
