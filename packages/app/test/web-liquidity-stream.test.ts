/**
 * A liquidity intent on the pool page is followed through its event stream
 * (`GET /v1/liquidity/intents/{id}/events`), in Chromium against a running service: the stream is
 * opened and the intent reaches `completed`; with the stream cut, the page falls back to reading
 * the intent and still reaches `completed`. Without that fallback the second case never ends.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { appSuite } from './support/app-suite.js';
import { newWatchedPage } from './support/page-checks.js';

const SETTLE_MS = 45_000;
const POOL = 'amulet-usdcx';
const STREAM = /\/v1\/liquidity\/intents\/[^/?]+\/events/;
const READ = /\/v1\/liquidity\/intents\/[^/?]+$/;

describe('a liquidity intent followed in a browser', () => {
  const { t, browser, contexts } = appSuite();

  /** The requests the page makes for intents: stream openings and plain reads. */
  function countRequests(page: Page) {
    const seen = { streams: 0, reads: 0 };
    page.on('request', (request) => {
      const path = new URL(request.url()).pathname;
      if (STREAM.test(path)) seen.streams += 1;
      else if (READ.test(path) && request.method() === 'GET') seen.reads += 1;
    });
    return seen;
  }

  async function addLiquidity(page: Page, name: string): Promise<void> {
    await page.goto(`${t.url}/pools/${POOL}`);
    await page.getByLabel('Party name').fill(name);
    await page.getByRole('button', { name: 'Create a devnet party' }).click();
    await page.getByTestId('party-id').waitFor();
    await page.getByRole('button', { name: 'Get 1000 Amulet' }).click();
    await expect.poll(() => page.getByTestId('balance-Amulet').textContent()).toBe('1,000');
    await page.getByRole('button', { name: 'Get 1000 USDCx (circle)' }).click();
    await page.getByLabel('Amulet', { exact: true }).fill('100');
    await page.getByRole('button', { name: 'Add liquidity', exact: true }).click();
    await page
      .locator('[data-testid="liquidity-intent"][data-state="completed"]')
      .waitFor({ timeout: SETTLE_MS });
  }

  it('follows the intent through its event stream', async () => {
    const { page, errors } = await newWatchedPage(browser, contexts, 1280);
    const seen = countRequests(page);
    await addLiquidity(page, 'streamed');
    expect(seen.streams).toBeGreaterThan(0);
    expect(errors).toEqual([]);
  });

  it('reads the intent when its stream is cut, and still reaches completed', async () => {
    const { page } = await newWatchedPage(browser, contexts, 390);
    const seen = countRequests(page);
    await page.route(STREAM, (route) => route.abort());
    await addLiquidity(page, 'cut-off');
    expect(seen.streams).toBeGreaterThan(0);
    expect(seen.reads).toBeGreaterThan(0);
  });
});
