/**
 * The pages a trader uses, in Chromium against a running service (embedded store, devnet ledger):
 * the pools list and a pool's page with its charts, the swap page that says why it cannot swap,
 * a stuck swap cancelled from the page after which the next swap goes through, a refused deposit
 * said in plain words, a swap followed read-only by its id, an atomic swap among the party's
 * swaps, a Canton wallet that never answers, the portal signed out and in, and the
 * not-found page. Every page at 1280 and 390 px: no sideways scroll, no console error, no serious
 * axe finding, every control reachable by keyboard. Screenshots go to `test-output/`.
 */
import { PoolParty } from '@poolparty/sdk';
import { Devnet, generatePrivateKey } from '@poolparty/sdk/devnet';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { appSuite } from './support/app-suite.js';
import { swapByDeposit } from './support/deposit-only.js';
import { checkPage, newWatchedPage } from './support/page-checks.js';
import { chooseToken, chosenToken } from './support/token-picker.js';

const SETTLE_MS = 45_000;
/** Longer than the wallet panel's wait for a Canton wallet to answer. */
const CANTON_CONNECT_WAIT_MS = 21_000;
const WIDTHS = [1280, 390] as const;
const POOL = 'amulet-usdcx';

describe('the traders’ pages in a browser', () => {
  const { t, browser, contexts } = appSuite();
  let usdcxCircle: string;
  let completedSwap = '';

  beforeAll(async () => {
    const pp = new PoolParty({ apiKey: t.apiKey, environment: 'devnet', baseUrl: t.url });
    const pool = await pp.pools.get(POOL);
    usdcxCircle = `${pool.tokenB.name}|${pool.tokenB.admin}`;
  });

  async function newPage(width: number, colorScheme: 'light' | 'dark' = 'light') {
    const watched = await newWatchedPage(browser, contexts, width, colorScheme);
    // The deposit flow's pages: atomic swaps are web-atomic-swap.test.ts's.
    await swapByDeposit(watched.page);
    return watched;
  }

  async function fundAmulet(page: Page): Promise<void> {
    await page.getByRole('button', { name: 'Get 1000 Amulet' }).click();
    await expect.poll(() => page.getByTestId('balance-Amulet').textContent()).toBe('1,000');
  }

  /**
   * A pool chart as shown: drawn with both axes, or, while the young pool has fewer than two
   * hourly figures (a run within one hour), "not enough history yet" instead of a lone dot.
   */
  function chartShown(page: Page, chart: string) {
    const figure = page.getByTestId(chart);
    return figure
      .locator('.u-axis')
      .nth(1)
      .or(figure.getByTestId('chart-not-enough'))
      .first()
      .waitFor();
  }

  function swapButton(page: Page) {
    // Its label is "Swap" when it can be pressed, else the blocking reason.
    return page.getByTestId('swap-button');
  }

  function statusCard(page: Page, state: string) {
    return page.locator(`[data-testid="swap-status"][data-state="${state}"]`);
  }

  it('says why Swap cannot be pressed: no wallet, then no balance; balances, Max and flip', async () => {
    for (const width of WIDTHS) {
      const { page, csp, errors } = await newPage(width);
      await page.goto(`${t.url}/swap`);
      await expect
        .poll(() => page.getByTestId('swap-blocker').textContent())
        .toBe('Connect a wallet to swap.');
      expect(await swapButton(page).isDisabled()).toBe(true);
      expect(await page.title()).toBe('Swap · PoolParty');
      await checkPage(page, width);

      await page.getByLabel('Party name').fill(`empty${width}`);
      await page.getByRole('button', { name: 'Create a devnet party' }).click();
      await page.getByTestId('party-id').waitFor();
      await chooseToken(page, 'You receive', usdcxCircle);
      await expect
        .poll(() => page.getByTestId('swap-blocker').textContent())
        .toBe('Your party holds no Amulet it can spend. Get some Amulet first.');
      expect(await page.getByTestId('balance-You send').textContent()).toBe('Balance: 0 Amulet');
      await checkPage(page, width, 'swap-no-balance');

      await fundAmulet(page);
      await page.getByRole('button', { name: /^Max/ }).click();
      expect(await page.getByLabel(/^Amount/).inputValue()).toBe('1000');
      await page.getByLabel(/^Amount/).fill('1000.5');
      await expect
        .poll(() => page.getByTestId('swap-blocker').textContent())
        .toContain('Your party can spend 1,000 Amulet');
      await page.getByLabel(/^Amount/).fill('100');
      await page.getByTestId('output-amount').waitFor();
      await expect.poll(() => swapButton(page).isDisabled()).toBe(false);
      // Flip: what was received is now sent.
      await page.getByRole('button', { name: /^Flip/ }).click();
      expect(await chosenToken(page, 'You send')).toBe(usdcxCircle);
      await expect
        .poll(() => page.getByTestId('swap-blocker').textContent())
        .toContain('holds no USDCx');
      expect(errors).toEqual([]);
      expect(csp).toEqual([]);
    }
  });

  it('offers the pool to swap in where several pools trade the same symbols', async () => {
    for (const width of WIDTHS) {
      const { page, errors } = await newPage(width);
      await page.goto(`${t.url}/swap`);
      await chooseToken(page, 'You receive', usdcxCircle);
      const picker = page.getByLabel('Pool', { exact: true });
      await picker.waitFor();
      const options = await picker.locator('option').allTextContents();
      expect(options).toEqual([
        expect.stringMatching(/^Amulet\/USDCx \(circle\) · amulet-usdcx · fee/),
        expect.stringMatching(/^Amulet\/USDCx \(usdx-bridge\) · amulet-usdcx-bridge · fee/),
      ]);
      // Choosing the pool chooses the output's issuer, and the quote is the pool's.
      await picker.selectOption('amulet-usdcx-bridge');
      expect(await chosenToken(page, 'You receive')).toMatch(/^USDCx\|usdx-bridge::/);
      await page.getByTestId('output-amount').waitFor();
      await checkPage(page, width);
      expect(errors).toEqual([]);
    }
  });

  it('cancels a stuck swap from its progress page and from the swap page; the next swap completes', async () => {
    for (const width of WIDTHS) {
      const { page, errors } = await newPage(width);
      const { partyId, stuck } = await stuckSwapOfNewParty(`stuck${width}`);
      // The stuck party's wallet, imported into the browser.
      await page.goto(`${t.url}/swap`);
      await page.getByText('Import a devnet party').click();
      await page.getByLabel('Exported key').fill(JSON.stringify(partyId));
      await page.getByRole('button', { name: 'Import' }).click();
      await page.getByTestId('party-id').waitFor();

      // On the swap page: the waiting swap, and Swap held back with the reason.
      const waiting = page.getByTestId('waiting-swaps');
      await waiting.waitFor();
      await chooseToken(page, 'You receive', usdcxCircle);
      await page.getByLabel(/^Amount/).fill('50');
      await expect
        .poll(() => page.getByTestId('swap-blocker').textContent())
        .toContain('still waiting for its deposit');
      await page.getByTestId('output-amount').waitFor();
      await checkPage(page, width, 'swap-mid-swap');

      // Cancelled from its progress page: the page says so and offers the same swap again.
      await waiting.locator(`li[data-intent="${stuck[0]}"] a`).click();
      await statusCard(page, 'pending').waitFor({ timeout: SETTLE_MS });
      await page.getByRole('button', { name: 'Cancel this swap' }).click();
      await statusCard(page, 'cancelled').waitFor({ timeout: SETTLE_MS });
      await checkPage(page, width, 'swap-cancelled');
      expect(new URL(page.url()).pathname).toBe(`/swaps/${stuck[0]}`);

      // The second stuck swap is cancelled from the swap page's list.
      await page.getByTestId('swap-again').click();
      await page.waitForURL(/\/swap\?/);
      await waiting.getByRole('button', { name: 'Cancel this swap' }).click();
      await waiting.waitFor({ state: 'detached' });
      await page.getByTestId('output-amount').waitFor();
      await expect.poll(() => swapButton(page).isDisabled()).toBe(false);
      await swapButton(page).click();
      await page.waitForURL(/\/swaps\/[^/]+$/, { timeout: SETTLE_MS });
      await statusCard(page, 'completed').waitFor({ timeout: SETTLE_MS });
      completedSwap = decodeURIComponent(new URL(page.url()).pathname.split('/').pop() ?? '');
      await page.getByTestId('swap-again').waitFor();
      await checkPage(page, width, 'swap-completed');
      expect(errors).toEqual([]);
    }
  });

  /** A new funded devnet party and an SDK client acting for it. */
  async function sdkParty(hint: string, funded = true) {
    const privateKey = generatePrivateKey();
    const wallet = await new Devnet(t.url).createWallet({ partyHint: hint, key: privateKey });
    if (funded) await wallet.fund('Amulet', '1000');
    let token = '';
    // The pages' own key: these swaps were made in this web app, whose pages list them.
    const pp = new PoolParty({
      apiKey: t.service.webAppKey.key ?? t.apiKey,
      environment: 'devnet',
      baseUrl: t.url,
      walletToken: () => token,
    });
    ({ token } = await wallet.authenticate(pp));
    return { wallet, pp, privateKey };
  }

  /** A party whose two swaps wait for deposits that never come (its wallet went away). */
  async function stuckSwapOfNewParty(hint: string) {
    const { wallet, pp, privateKey } = await sdkParty(hint);
    const stuck: string[] = [];
    for (const poolId of [POOL, 'amulet-cbtc']) {
      const swap = await pp.swaps.create({
        fromToken: 'Amulet',
        toToken: poolId === POOL ? 'USDCx' : 'CBTC',
        amount: '40',
        poolId,
      });
      stuck.push(swap.intentId);
    }
    return { partyId: { partyId: wallet.partyId, privateKey }, stuck };
  }

  it('says a failed deposit in plain words that wrap, without the ledger text or the party id', async () => {
    for (const width of WIDTHS) {
      const { page, errors } = await newPage(width);
      // A swap created elsewhere for a party that holds nothing: its deposit cannot be made.
      const { wallet, pp, privateKey } = await sdkParty(`broke${width}`, false);
      const swap = await pp.swaps.create({
        fromToken: 'Amulet',
        toToken: 'USDCx',
        amount: '100',
        poolId: POOL,
      });
      await page.goto(`${t.url}/swap`);
      await page.getByText('Import a devnet party').click();
      await page
        .getByLabel('Exported key')
        .fill(JSON.stringify({ partyId: wallet.partyId, privateKey }));
      await page.getByRole('button', { name: 'Import' }).click();
      await page.getByTestId('party-id').waitFor();
      await page.goto(`${t.url}/swaps/${swap.intentId}`);
      await page.getByRole('button', { name: 'Send the deposit' }).click();
      const alert = page.getByTestId('swap-status').getByRole('alert');
      await alert.waitFor({ timeout: SETTLE_MS });
      expect(await alert.textContent()).toBe(
        'Your party holds 0 unlocked Amulet, and this needs 100 Amulet. Get more Amulet first.',
      );
      await checkPage(page, width, 'swap-deposit-refused');
      // The browser logs the refused request itself; the page adds nothing.
      expect(errors.filter((error) => !/status of (400|409)/.test(error))).toEqual([]);
    }
  });

  it('shows any swap read-only by its id, without the wallet that made it', async () => {
    for (const width of WIDTHS) {
      const { page, csp, errors } = await newPage(width);
      await page.goto(`${t.url}/swaps/${completedSwap}`);
      await statusCard(page, 'completed').waitFor({ timeout: SETTLE_MS });
      expect(await page.getByTestId('read-only-note').textContent()).toContain('read-only');
      expect(await page.getByRole('button', { name: /^(Send|Cancel|Accept)/ }).count()).toBe(0);
      expect(await page.title()).toMatch(/^Swap swp_/);
      await checkPage(page, width, 'swap-read-only');
      expect(errors).toEqual([]);
      expect(csp).toEqual([]);
    }
  });

  it("lists the party's atomic swaps among its swaps by their state, linking the swap's page", async () => {
    const { page, errors } = await newPage(1280);
    // The embedded ledger prepares no atomic swap: the service's list is given one, as a
    // service on a participant lists it (`kind: atomic`, docs/spec/atomic-swaps.md).
    await page.route('**/v1/track/**', async (route) => {
      const answer = await route.fetch();
      const listing = await answer.json();
      if (new URL(route.request().url()).searchParams.has('kind')) {
        return route.fulfill({ response: answer, json: listing });
      }
      const atomic = atomicSwapOf(listing.partyId);
      return route.fulfill({ response: answer, json: { ...listing, swaps: [atomic] } });
    });
    await page.goto(`${t.url}/swap`);
    await page.getByLabel('Party name').fill('atomic-lister');
    await page.getByRole('button', { name: 'Create a devnet party' }).click();
    const listed = page.getByTestId('history').locator('li[data-kind="atomic"]');
    await listed.waitFor();
    expect(await listed.textContent()).toContain('100 Amulet → USDCx (atomic)');
    expect(await listed.locator('[data-state="price_moved"]').textContent()).toBe(
      'Not executed: the price moved',
    );
    expect(await listed.locator('a').getAttribute('href')).toBe(
      '/swaps/atm_7KQ2M9XC4RT0W8N5PJ3HVB6D1F',
    );
    // The waiting swaps read the deposit flow's only: an atomic swap has no deposit to cancel.
    expect(await page.getByTestId('waiting-swaps').count()).toBe(0);
    expect(errors).toEqual([]);
  });

  it('lists every pool with its figures and their meanings, and shows a pool with charts', async () => {
    // A swap of another app, so the pool has a recent trade and an hour of volume.
    const { wallet, pp } = await sdkParty('pool-trader');
    const swap = await pp.swaps.create({
      fromToken: 'Amulet',
      toToken: 'USDCx',
      amount: '25',
      poolId: POOL,
    });
    await wallet.deposit(swap);
    await swap.wait();
    for (const width of WIDTHS) {
      const { page, csp, errors } = await newPage(width);
      await page.goto(`${t.url}/pools`);
      const row = page.locator(`tr[data-pool="${POOL}"]`);
      await row.waitFor();
      // Two pools trade Amulet/USDCx under two USDCx admins: each is told apart.
      const bridged = await page.locator('tr[data-pool="amulet-usdcx-bridge"] th').textContent();
      expect(bridged).toMatch(/Amulet\/USDCx \(.+\)/);
      expect(await row.locator('td[data-label="TVL"]').textContent()).toMatch(/^\$\d/);
      expect(await row.locator('td[data-label="24 h volume"]').textContent()).toMatch(/^\$\d/);
      if (width === 1280) {
        await page.getByRole('button', { name: 'APR' }).focus();
        expect(await page.getByRole('tooltip').filter({ hasText: 'Yearly rate' }).isVisible()).toBe(
          true,
        );
      }
      expect(await page.title()).toBe('Pools · PoolParty');
      await checkPage(page, width, 'pools');

      await row.getByRole('link').click();
      await page.waitForURL(`${t.url}/pools/${POOL}`);
      for (const chart of ['price-chart', 'volume-chart', 'tvl-chart']) {
        // Drawn with both axes (or saying there is not enough history), the figures in a table.
        await chartShown(page, chart);
      }
      await page.getByTestId('trades').waitFor();
      expect(await page.getByTestId('trades').locator('tbody tr').count()).toBeGreaterThan(0);
      // A 25 Amulet swap leaves the pool well within its band: the guard says it is clear.
      expect(await page.getByTestId('pool-guard').textContent()).toMatch(
        /^Price guard: clear — swaps may move the price within [\d.]+ to [\d.]+ USDCx per Amulet\.$/,
      );
      expect(await page.getByTestId('lp-fee-share').textContent()).toBe('0.225 %');
      // Without a wallet, the liquidity section says to connect one (the wallet panel is beside it).
      await page.getByTestId('liquidity-needs-wallet').waitFor();
      await page.getByLabel('Last 30 days').check();
      await chartShown(page, 'price-chart');
      expect(await page.title()).toMatch(/^Pool Amulet\/USDCx/);
      await checkPage(page, width, 'pool');
      expect(errors).toEqual([]);
      expect(csp).toEqual([]);
    }
  });

  it('gives up on a Canton wallet that never answers, and never locks the devnet controls', async () => {
    const { page, errors } = await newPage(1280);
    // The page's clock is the test's: the wait for a wallet is run forward, not sat through.
    await page.clock.install();
    await page.goto(`${t.url}/swap`);
    await page.getByRole('button', { name: 'Connect a Canton wallet' }).click();
    await page.getByRole('button', { name: 'Cancel connecting' }).waitFor();
    expect(await page.getByRole('button', { name: 'Create a devnet party' }).isDisabled()).toBe(
      false,
    );
    await page.getByRole('button', { name: 'Cancel connecting' }).click();
    await page.getByRole('button', { name: 'Connect a Canton wallet' }).waitFor();
    // Left waiting, it stops with "no wallet answered".
    await page.getByRole('button', { name: 'Connect a Canton wallet' }).click();
    await page.getByRole('button', { name: 'Cancel connecting' }).waitFor();
    await page.clock.runFor(CANTON_CONNECT_WAIT_MS);
    await page.getByTestId('canton-error').waitFor();
    expect(await page.getByTestId('canton-error').textContent()).toContain('No wallet answered');
    await page.getByLabel('Party name').fill('after-canton');
    await page.getByRole('button', { name: 'Create a devnet party' }).click();
    await page.getByTestId('party-id').waitFor();
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 900 });
      await checkPage(page, width);
    }
    // The dApp SDK's zod probes eval once, is refused by the page's policy and does without
    // (docs/decisions.md, Web app, CSP); any other error fails.
    expect(errors.filter((error) => !/script-src eval$/.test(error))).toEqual([]);
  });

  it('follows the system’s dark setting with the same tokens, legibly', async () => {
    for (const width of WIDTHS) {
      const { page, errors } = await newPage(width, 'dark');
      await page.goto(`${t.url}/pools/${POOL}`);
      await chartShown(page, 'price-chart');
      const background = await page.evaluate(
        () => getComputedStyle(document.documentElement).backgroundColor,
      );
      expect(background).not.toBe('rgb(247, 247, 251)');
      await checkPage(page, width, 'pool-dark');
      await page.goto(`${t.url}/swap`);
      await page.getByLabel('Party name').waitFor();
      await checkPage(page, width, 'swap-dark');
      expect(errors).toEqual([]);
    }
  });

  it('answers an unknown page with the app’s own not-found page, titled', async () => {
    for (const width of WIDTHS) {
      const { page, csp, errors } = await newPage(width);
      const answer = await page.goto(`${t.url}/no/such/page`);
      expect(answer?.status()).toBe(404);
      await page.getByRole('heading', { name: 'Page not found' }).waitFor();
      expect(await page.title()).toBe('Page not found · PoolParty');
      await checkPage(page, width);
      // The browser reports the document's own 404 status; nothing else may be logged.
      expect(errors.filter((error) => !/status of 404/.test(error))).toEqual([]);
      expect(csp).toEqual([]);
    }
  });

  it('shows the landing page and the portal signed out without an error status or console error', async () => {
    for (const width of WIDTHS) {
      const { page, csp, errors } = await newPage(width);
      const failed: string[] = [];
      page.on('response', (response) => {
        if (response.status() >= 400) failed.push(`${response.status()} ${response.url()}`);
      });
      await page.goto(`${t.url}/`);
      await page.locator(`tr[data-pool="${POOL}"]`).waitFor();
      await checkPage(page, width, 'landing');
      await page.goto(`${t.url}/developer`);
      await page.getByRole('heading', { name: 'Developer portal' }).waitFor();
      await page.getByLabel('Party name').waitFor();
      expect(await page.title()).toBe('Developers · PoolParty');
      await checkPage(page, width, 'developer-signed-out');
      expect(failed).toEqual([]);
      expect(errors).toEqual([]);
      expect(csp).toEqual([]);
    }
  });

  it('shows the portal signed in: the same default period on Earnings and Analytics, charts with axes', async () => {
    const { page, csp, errors } = await newPage(1280);
    await page.goto(`${t.url}/developer`);
    await page.getByLabel('Party name').fill('portal-dev');
    await page.getByRole('button', { name: 'Create a devnet party' }).click();
    await page.getByRole('button', { name: 'Sign in with this wallet' }).click();
    await page.getByRole('link', { name: 'Analytics', exact: true }).waitFor();
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto(`${t.url}/developer`);
      await page.getByRole('link', { name: 'Analytics', exact: true }).waitFor();
      await checkPage(page, width, 'developer');
    }
    await page.setViewportSize({ width: 1280, height: 900 });
    for (const [path, chart] of [
      ['/developer/earnings', null],
      ['/developer/analytics', 'swaps-chart'],
    ] as const) {
      await page.goto(`${t.url}${path}`);
      await page.getByLabel('Last 30 days').waitFor();
      expect(await page.getByLabel('Last 30 days').isChecked(), path).toBe(true);
      if (chart !== null) await page.locator(`[data-testid="${chart}"] .u-axis`).nth(1).waitFor();
      for (const width of WIDTHS) {
        await page.setViewportSize({ width, height: 900 });
        await checkPage(page, width);
      }
      await page.setViewportSize({ width: 1280, height: 900 });
    }
    expect(errors).toEqual([]);
    expect(csp).toEqual([]);
  });
});

/** An atomic swap of `partyId` that ended with nothing moved, as `track` lists one. */
function atomicSwapOf(partyId: string) {
  const id = 'atm_7KQ2M9XC4RT0W8N5PJ3HVB6D1F';
  const at = new Date().toISOString();
  return {
    kind: 'atomic',
    intentId: id,
    atomicSwapId: id,
    poolId: POOL,
    status: 'price_moved',
    terminal: true,
    inputToken: 'Amulet',
    inputTokenAdmin: `DSO::1220${'0'.repeat(64)}`,
    outputToken: 'USDCx',
    outputTokenAdmin: `circle::1220${'f'.repeat(64)}`,
    expectedAmount: '100',
    expectedOutput: '14.3',
    minOutput: '14.157',
    actualOutput: null,
    slippageTolerance: 0.01,
    traderParty: partyId,
    createdAt: at,
    completedAt: null,
    expiresAt: at,
    failureReason: { code: 'price_moved', message: 'The curve pays less than the signed output.' },
    updateId: null,
    excess: null,
    history: [
      { status: 'prepared', at },
      { status: 'executing', at },
      { status: 'price_moved', at },
    ],
  };
}
