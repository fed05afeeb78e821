/**
 * The `/docs` pages under their content security policy, in Chromium: swagger-ui loads, fetches
 * the OpenAPI document and renders the operations, and the browser reports no policy violation;
 * the page is PoolParty's, titled so, with a header whose links lead back to the web pages.
 */
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from './support/service.js';

const CHROMIUM = '/usr/bin/chromium';

describe('/docs in a browser', () => {
  let t: TestService;
  let browser: Browser;
  beforeAll(async () => {
    [t, browser] = await Promise.all([
      startTestService(),
      chromium.launch({
        executablePath: CHROMIUM,
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
      }),
    ]);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('renders every operation with no content security policy violation', async () => {
    const page = await browser.newPage();
    const violations: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
    });
    await page.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (event) => {
        console.error(
          `Content Security Policy violation: ${event.violatedDirective} ${event.blockedURI}`,
        );
      });
    });
    const answer = await page.goto(`${t.url}/docs/`);
    expect(answer?.headers()['content-security-policy']).toContain("default-src 'self'");
    await page.locator('.opblock').first().waitFor();
    const operations = await page.locator('.opblock').count();
    expect(operations).toBeGreaterThan(20);
    expect(await page.locator('.opblock-summary-path[data-path="/v1/swaps"]').count()).toBe(1);
    // The page's styles applied: swagger-ui's stylesheet colours the GET badges.
    const badge = page.locator('.opblock-get .opblock-summary-method').first();
    expect(await badge.evaluate((el) => getComputedStyle(el).backgroundColor)).not.toBe(
      'rgba(0, 0, 0, 0)',
    );
    expect(violations).toEqual([]);
  });

  it("is titled PoolParty's, and its header links back to the app, the portal and the SDK guide", async () => {
    const page = await browser.newPage();
    await page.goto(`${t.url}/docs/`);
    await page.locator('.opblock').first().waitFor();
    expect(await page.title()).toBe('PoolParty API reference');
    const header = page.getByRole('navigation', { name: 'PoolParty' });
    const links = await header
      .getByRole('link')
      .evaluateAll((anchors) =>
        anchors.map((a) => [a.textContent, (a as HTMLAnchorElement).getAttribute('href')]),
      );
    expect(links).toEqual([
      ['← PoolParty', '/'],
      ['Developer portal', '/developer'],
      ['SDK guide', '/developer/sdk'],
    ]);
  });
});
