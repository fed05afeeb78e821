/**
 * The developer portal in Chromium against a running service (embedded store, devnet ledger,
 * port 0): a developer signs in with the built-in devnet wallet, creates a key, an app swaps
 * through it with the SDK, and the developer sees the key's requests and half the swap's platform
 * fee, collects it — checked on the ledger to the last unit — cannot collect it twice, rotates
 * and revokes keys. Every portal page under its CSP, without serious axe findings, at desktop
 * and phone widths; screenshots of the keys and earnings pages.
 */
import { AuthenticationError, PoolParty } from '@poolparty/sdk';
import { Devnet } from '@poolparty/sdk/devnet';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appSuite } from './support/app-suite.js';
import { screenshot, seriousAxeViolations, watchCspViolations } from './support/browser.js';

const SETTLE_MS = 45_000;
const POOL = 'amulet-usdcx';

/** Half a decimal amount, rounded down at 10 decimals, as the service credits earnings. */
function halfOf(amount: string): string {
  const [whole = '0', fraction = ''] = amount.split('.');
  const units = BigInt(whole + fraction.padEnd(10, '0')) / 2n;
  const text = units.toString().padStart(11, '0');
  return `${text.slice(0, -10)}.${text.slice(-10)}`.replace(/\.?0+$/, '');
}

/** Units of 10^-10 of a decimal amount, for exact comparisons. */
function units(amount: string): bigint {
  const [whole = '0', fraction = ''] = amount.split('.');
  return BigInt(whole + fraction.padEnd(10, '0'));
}

/** The elements reaching past the screen's right edge, outside any scrolling box. */
function wideElements(page: Page, width: number): Promise<string[]> {
  return page.evaluate((limit) => {
    const found: string[] = [];
    for (const element of Array.from(document.body.querySelectorAll('*'))) {
      if (element.parentElement?.closest('.table-scroll, details:not([open])')) continue;
      const right = element.getBoundingClientRect().right;
      if (right > limit + 1) {
        const classes = element.getAttribute('class');
        found.push(
          `${element.tagName.toLowerCase()}${classes ? `.${classes}` : ''} ${Math.round(right)}`,
        );
      }
    }
    return found.slice(0, 10);
  }, width);
}

describe('the developer portal in a browser', () => {
  const { t, browser } = appSuite();
  let context: BrowserContext;
  let page: Page;
  let csp: string[];
  let devnet: Devnet;
  let developerParty = '';
  let apiKey = '';
  let platformFee = '';

  beforeAll(async () => {
    devnet = new Devnet(t.url);
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.url });
    page = await context.newPage();
    csp = await watchCspViolations(page);
  });
  afterAll(async () => {
    await context?.close();
  });

  async function amuletHeld(party: string): Promise<bigint> {
    const holdings = await devnet.holdings(party);
    const amulet = holdings.filter((h) => h.token === 'Amulet');
    return amulet.reduce((sum, h) => sum + units(h.amount), 0n);
  }

  /** No serious axe finding and nothing wider than the screen, at both widths. */
  async function checkBothWidths(name: string | null): Promise<void> {
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      expect(await seriousAxeViolations(page)).toEqual([]);
      // Nothing pushes the page wider than the screen (wide tables scroll inside their box).
      expect(await wideElements(page, width)).toEqual([]);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
        width,
      );
      if (name !== null) await screenshot(page, `${name}-${width}`);
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  }

  it('signs a developer in with the devnet wallet', async () => {
    await page.goto(`${t.url}/developer`);
    await page.getByRole('heading', { name: 'Developer portal' }).waitFor();
    await page.getByLabel('Party name').waitFor();
    await checkBothWidths(null);
    await page.getByLabel('Party name').fill('builder');
    await page.getByRole('button', { name: 'Create a devnet party' }).click();
    await page.getByTestId('party-id').first().waitFor();
    developerParty = (await page.getByTestId('party-id').first().textContent()) ?? '';
    expect(developerParty).toMatch(/^builder::1220[0-9a-f]{64}$/);
    await page.getByRole('button', { name: 'Sign in with this wallet' }).click();
    await page.waitForURL(`${t.url}/developer/keys`);
    expect(await page.getByTestId('developer-party').textContent()).toBe(developerParty);
  });

  it('creates a key shown once with a copy button, with no requests yet, from the keyboard', async () => {
    await page.getByLabel('Key name (optional)').focus();
    await page.keyboard.type('shop');
    await page.keyboard.press('Enter');
    const shown = page.getByTestId('new-key');
    await shown.waitFor();
    apiKey = (await shown.textContent()) ?? '';
    expect(apiKey).toMatch(/^pp_test_[A-Za-z0-9_-]{43}$/);
    // The new key takes the focus, and the next stop copies it.
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.id))
      .toBe('revealed-heading');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Copy key');
    await page.keyboard.press('Enter');
    await page.getByText('Copied to the clipboard.').waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(apiKey);
    const row = page.locator('table[data-testid="keys"] tbody tr', { hasText: 'shop' });
    expect(await row.getByTestId('request-count').textContent()).toBe('0');
    expect(await row.textContent()).toContain(apiKey.slice(0, 12));
    await checkBothWidths('developer-keys-new');
    // Once put away, the key is not on the page any more.
    await page.getByRole('button', { name: 'I have stored the key' }).click();
    expect(await page.content()).not.toContain(apiKey);
  });

  it("counts the key's requests once an app swaps through it with the SDK", async () => {
    const shopper = await devnet.createWallet({ partyHint: 'shopper' });
    await shopper.fund('Amulet', '1000');
    let token = '';
    const pp = new PoolParty({
      apiKey,
      environment: 'devnet',
      baseUrl: t.url,
      walletToken: () => token,
    });
    ({ token } = await shopper.authenticate(pp));
    const swap = await pp.swaps.create({
      fromToken: 'Amulet',
      toToken: 'USDCx',
      amount: '500',
      poolId: POOL,
    });
    await shopper.deposit(swap);
    const done = await swap.wait();
    expect(done.status).toBe('completed');
    platformFee = swap.platformFeeAmount;
    expect(units(platformFee)).toBeGreaterThan(0n);

    await page.reload();
    const row = page.locator('table[data-testid="keys"] tbody tr', { hasText: 'shop' });
    await row.waitFor();
    expect(Number(await row.getByTestId('request-count').textContent())).toBeGreaterThan(0);
    expect(await row.textContent()).not.toContain('never');
    await checkBothWidths('developer-keys');
  });

  it("shows half the swap's platform fee, and collects exactly that to the developer's party once", async () => {
    await page.getByRole('link', { name: 'Earnings' }).click();
    await page.waitForURL(`${t.url}/developer/earnings`);
    const line = page.locator(`tr[data-line="${POOL}|Amulet"]`);
    await line.waitFor();
    const half = halfOf(platformFee);
    expect(await line.getByTestId('earned').getAttribute('data-value')).toBe(half);
    expect(await line.getByTestId('collectable').getAttribute('data-value')).toBe(half);
    expect(await line.getByTestId('collected').getAttribute('data-value')).toBe('0');
    await page.getByTestId('earnings-chart').waitFor();
    await checkBothWidths('developer-earnings');

    const before = await amuletHeld(developerParty);
    await line.getByRole('button', { name: /^Collect / }).click();
    const progress = page.locator('[data-testid="collection-progress"][data-status="collected"]');
    await progress.waitFor({ timeout: SETTLE_MS });
    const updateId = await page.getByTestId('collection-update-id').textContent();
    expect(updateId).toMatch(/.+/);
    expect(await amuletHeld(developerParty)).toBe(before + units(half));
    await expect.poll(() => line.getByTestId('collected').getAttribute('data-value')).toBe(half);
    expect(await line.getByTestId('collectable').getAttribute('data-value')).toBe('0');
    expect(await page.getByTestId('collections').textContent()).toContain(updateId ?? '');

    // A second collect pays nothing more: the page offers none, and the service refuses one.
    expect(await line.getByRole('button', { name: /^Collect / }).isDisabled()).toBe(true);
    const again = await page.evaluate(
      async ([poolId, tokenAdmin]) => {
        const answer = await fetch('/api/sdk/collections', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ poolId, token: 'Amulet', tokenAdmin }),
        });
        return { status: answer.status, body: await answer.json() };
      },
      [POOL, (await devnet.holdings(developerParty))[0]?.admin ?? ''] as const,
    );
    expect(again).toMatchObject({ status: 409, body: { code: 'nothing_to_collect' } });
    expect(await amuletHeld(developerParty)).toBe(before + units(half));
    await checkBothWidths('developer-earnings-collected');
  });

  it('shows swaps, volume and failures over time', async () => {
    await page.getByRole('link', { name: 'Analytics' }).click();
    await page.waitForURL(`${t.url}/developer/analytics`);
    await page.getByTestId('usage-totals').waitFor();
    expect(await page.getByTestId('usage-totals').textContent()).toContain(
      '1 swap executed, 0 failed',
    );
    for (const chart of ['swaps-chart', 'volume-chart', 'failures-chart']) {
      await page.getByTestId(chart).waitFor();
    }
    await page.getByLabel('Last 24 hours').check();
    await expect.poll(() => page.getByTestId('usage-totals').textContent()).toContain('1 swap');
    await checkBothWidths('developer-analytics');
  });

  it('rotates a key with its grace period shown, and revokes one', async () => {
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.waitForURL(`${t.url}/developer/keys`);
    await page.getByRole('button', { name: 'Rotate shop' }).click();
    const grace = page.getByTestId('grace-period');
    await grace.waitFor();
    expect(await grace.textContent()).toMatch(/keeps working until/);
    const rotatedKey = (await page.getByTestId('new-key').textContent()) ?? '';
    expect(rotatedKey).not.toBe(apiKey);
    const statuses = await page.getByTestId('key-status').allTextContents();
    expect(statuses.filter((s) => s.startsWith('Rotated: works until'))).toHaveLength(1);
    expect(statuses.filter((s) => s === 'Active')).toHaveLength(1);
    await page.getByRole('button', { name: 'I have stored the key' }).click();

    // The rotated key's successor is active; revoke it, confirming first.
    const active = page.locator('table[data-testid="keys"] tbody tr', { hasText: 'Active' });
    await active.getByRole('button', { name: /^Revoke / }).click();
    // The confirmation focuses its safe choice; the revocation is one stop back.
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Keep');
    await page.keyboard.press('Shift+Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Revoke now');
    await page.keyboard.press('Enter');
    await page.getByText(/is revoked: requests with it are refused/).waitFor();
    expect(await page.getByTestId('key-status').allTextContents()).toContain('Revoked');
    const refused = await new PoolParty({
      apiKey: rotatedKey,
      environment: 'devnet',
      baseUrl: t.url,
    }).pools
      .list()
      .then(
        () => null,
        (error: unknown) => error,
      );
    expect(refused).toBeInstanceOf(AuthenticationError);
    await checkBothWidths(null);
  });

  it('signs out, after which the pages ask to sign in again', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByText('You are not signed in.').waitFor();
    await page.goto(`${t.url}/developer/earnings`);
    await page.getByText('You are not signed in.').waitFor();
    expect(await seriousAxeViolations(page)).toEqual([]);
    expect(csp).toEqual([]);
  });

  it('a developer whose party accepts nothing automatically accepts the collection from the page', async () => {
    // A second developer, whose party has no pre-approval: collections come as offers.
    await page.goto(`${t.url}/developer`);
    await page.getByRole('button', { name: 'Forget this party' }).click();
    await page.getByLabel('Party name').fill('maker');
    await page.getByLabel(/Accept incoming transfers automatically/).uncheck();
    await page.getByRole('button', { name: 'Create a devnet party' }).click();
    await page.getByTestId('party-id').first().waitFor();
    const maker = (await page.getByTestId('party-id').first().textContent()) ?? '';
    expect(maker).toMatch(/^maker::1220[0-9a-f]{64}$/);
    await page.getByRole('button', { name: 'Sign in with this wallet' }).click();
    await page.waitForURL(`${t.url}/developer/keys`);
    await page.getByLabel('Key name (optional)').fill('maker-app');
    await page.getByLabel('Key name (optional)').press('Enter');
    const makerKey = (await page.getByTestId('new-key').textContent()) ?? '';
    await page.getByRole('button', { name: 'I have stored the key' }).click();

    const trader = await devnet.createWallet({ partyHint: 'trader' });
    await trader.fund('Amulet', '1000');
    let token = '';
    const pp = new PoolParty({
      apiKey: makerKey,
      environment: 'devnet',
      baseUrl: t.url,
      walletToken: () => token,
    });
    ({ token } = await trader.authenticate(pp));
    const swap = await pp.swaps.create({
      fromToken: 'Amulet',
      toToken: 'USDCx',
      amount: '300',
      poolId: POOL,
    });
    await trader.deposit(swap);
    expect((await swap.wait()).status).toBe('completed');
    const half = halfOf(swap.platformFeeAmount);

    await page.getByRole('link', { name: 'Earnings' }).click();
    await page.waitForURL(`${t.url}/developer/earnings`);
    const line = page.locator(`tr[data-line="${POOL}|Amulet"]`);
    await expect.poll(() => line.getByTestId('collectable').getAttribute('data-value')).toBe(half);
    const before = await amuletHeld(maker);
    await line.getByRole('button', { name: /^Collect / }).click();
    const offered = page.locator('[data-testid="collection-progress"][data-status="offered"]');
    await offered.waitFor({ timeout: SETTLE_MS });
    // Offered, not paid: the party holds what it held until it accepts.
    expect(await amuletHeld(maker)).toBe(before);
    await checkBothWidths('developer-earnings-offered');
    await offered.getByRole('button', { name: /^Accept / }).click();
    await page
      .locator('[data-testid="collection-progress"][data-status="collected"]')
      .waitFor({ timeout: SETTLE_MS });
    expect(await amuletHeld(maker)).toBe(before + units(half));
    await expect.poll(() => line.getByTestId('collected').getAttribute('data-value')).toBe(half);
    expect(await line.getByTestId('collectable').getAttribute('data-value')).toBe('0');
    expect(csp).toEqual([]);
  });
});
