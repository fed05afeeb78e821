/**
 * A liquidity intent on the pool page is followed through its event stream
 * (`GET /v1/liquidity/intents/{id}/events`), in Chromium against a running service: the stream is
 * opened and the intent reaches `completed`; with the stream cut, the page falls back to reading
 * the intent and still reaches `completed`. Without that fallback the second case never ends, and
 * it reads no more than the page's own reads, which are all the first case makes.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { appSuite } from './support/app-suite.js';
import { countFollowRequests } from './support/followed-requests.js';
import { newWatchedPage } from './support/page-checks.js';
import { addLiquidityOnPoolPage } from './support/pool-page.js';

const POOL = 'amulet-usdcx';
const STREAM = /\/v1\/liquidity\/intents\/[^/?]+\/events/;
const READ = /\/v1\/liquidity\/intents\/[^/?]+$/;
/**
 * The reads the page makes of its own accord, streamed or not: the one that opens the intent's
 * object and the one after its deposits were sent. Following adds none while the stream works.
 */
const OWN_READS = 2;

describe('a liquidity intent followed in a browser', () => {
  const { t, browser, contexts } = appSuite();

  /** The requests the page makes for intents: stream openings and plain reads. */
  const countRequests = (page: Page) => countFollowRequests(page, STREAM, READ);

  const addLiquidity = (page: Page, name: string) =>
    addLiquidityOnPoolPage(page, `${t.url}/pools/${POOL}`, name);

  it('follows the intent through its event stream', async () => {
    const { page, errors } = await newWatchedPage(browser, contexts, 1280);
    const seen = countRequests(page);
    await addLiquidity(page, 'streamed');
    expect(seen.streams).toBeGreaterThan(0);
    expect(seen.reads).toBe(OWN_READS);
    expect(await page.getByTestId('liquidity-polling').count()).toBe(0);
    expect(errors).toEqual([]);
  });

  it('reads the intent when its stream is cut, and still reaches completed', async () => {
    const { page } = await newWatchedPage(browser, contexts, 390);
    const seen = countRequests(page);
    await page.route(STREAM, (route) => route.abort());
    await addLiquidity(page, 'cut-off');
    expect(seen.streams).toBeGreaterThan(0);
    // Beyond the page's own reads, only the fallback's: without it the count stays at those.
    expect(seen.reads).toBeGreaterThan(OWN_READS);
  });
});
