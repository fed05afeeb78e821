/**
 * A withdrawal on the pool page is followed through its event stream
 * (`GET /v1/liquidity/withdrawals/{id}/events`), in Chromium against a running service. The party
 * has no pre-approval, so both payouts wait as offers until it accepts them here: with the stream,
 * the offers appear without a single read of the withdrawal and the page says nothing of polling;
 * with the stream cut, the page reads the withdrawal instead, says so, and the offers still appear
 * and are paid. Without that fallback the second case never shows an offer.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { appSuite } from './support/app-suite.js';
import { countFollowRequests } from './support/followed-requests.js';
import { newWatchedPage } from './support/page-checks.js';
import { addLiquidityOnPoolPage, LIQUIDITY_SETTLE_MS as SETTLE_MS } from './support/pool-page.js';

const POOL = 'amulet-usdcx';
const STREAM = /\/v1\/liquidity\/withdrawals\/[^/?]+\/events/;
const READ = /\/v1\/liquidity\/withdrawals\/[^/?]+$/;

describe('a withdrawal followed in a browser', () => {
  const { t, browser, contexts } = appSuite();

  /** The requests the page makes for withdrawals: stream openings and plain reads. */
  const countRequests = (page: Page) => countFollowRequests(page, STREAM, READ);

  /** A party without a pre-approval adds liquidity, then removes half: two payouts as offers. */
  async function removeHalf(page: Page, name: string): Promise<void> {
    await addLiquidityOnPoolPage(page, `${t.url}/pools/${POOL}`, name, { preapproval: false });
    await page.getByTestId('burn-preview').waitFor();
    await page.getByRole('button', { name: 'Remove', exact: true }).click();
    for (const side of ['a', 'b']) {
      await page
        .locator(`[data-testid="payout-${side}"][data-state="offered"]`)
        .waitFor({ timeout: SETTLE_MS });
    }
  }

  async function acceptBoth(page: Page): Promise<void> {
    for (const token of ['Amulet', 'USDCx']) {
      await page.getByRole('button', { name: `Accept ${token}` }).click();
    }
    await page
      .locator('[data-testid="withdrawal"][data-state="completed"]')
      .waitFor({ timeout: SETTLE_MS });
  }

  it('follows the withdrawal through its event stream, reading it only after an accept', async () => {
    const { page, errors } = await newWatchedPage(browser, contexts, 1280);
    const seen = countRequests(page);
    await removeHalf(page, 'wd-streamed');
    expect(seen.streams).toBeGreaterThan(0);
    expect(seen.reads).toBe(0);
    expect(await page.getByTestId('withdrawal-polling').count()).toBe(0);
    await acceptBoth(page);
    expect(errors).toEqual([]);
  });

  it('reads the withdrawal when its stream is cut, says so, and is still paid', async () => {
    const { page } = await newWatchedPage(browser, contexts, 390);
    const seen = countRequests(page);
    await page.route(STREAM, (route) => route.abort());
    await removeHalf(page, 'wd-cut-off');
    expect(seen.streams).toBeGreaterThan(0);
    expect(seen.reads).toBeGreaterThan(0);
    expect(await page.getByTestId('withdrawal-polling').textContent()).toContain(
      'checking the withdrawal every few seconds',
    );
    await acceptBoth(page);
  });
});
