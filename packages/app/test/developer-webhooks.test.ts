/**
 * The webhooks page in Chromium against a running service (embedded store, devnet ledger, port
 * 0) and a receiver of the developer's on loopback: a developer adds an endpoint (its secret shown
 * once and copied), sends it a test event that the receiver verifies with the secret through
 * `webhooks.verify` and whose outcome the log shows without a reload, resends it (same event id), rotates the secret with an overlap (the next
 * request verifies under either secret), edits its events, pauses and enables it, and deletes it
 * after a confirmation — from the keyboard where a developer would use it, under the page's CSP,
 * without serious axe findings or controls the keyboard cannot reach, at desktop and phone widths.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { webhooks } from '@poolparty/sdk/webhooks';
import { startTestService, type TestService } from '@poolparty/server/testing';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, launchChromium, watchCspViolations } from './support/browser.js';
import { checkPage } from './support/page-checks.js';

/** How long a delivery may take to reach the receiver: the dispatcher polls, then sends. */
const DELIVERY_WAIT_MS = 30_000;

interface Received {
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

/** The developer's receiver: records each request's headers and raw body, answers 200. */
async function startReceiver(): Promise<{ url: string; received: Received[]; server: Server }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks) });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hooks`, received, server };
}

describe('the webhooks page in a browser', () => {
  let t: TestService;
  let app: Awaited<ReturnType<typeof buildApp>>;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let csp: string[];
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let secret = '';
  /** The secret after the rotation. */
  let fresh = '';

  beforeAll(async () => {
    app = await buildApp();
    [t, browser, receiver] = await Promise.all([
      startTestService({}, { webAppDist: app.dist }),
      launchChromium(),
      startReceiver(),
    ]);
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.url });
    page = await context.newPage();
    csp = await watchCspViolations(page);
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await t?.close();
    await new Promise((resolve) => receiver?.server.close(resolve));
    app?.remove();
  });

  /** The n-th request the receiver got (1-based), once it arrived. */
  async function request(n: number): Promise<Received> {
    await expect.poll(() => receiver.received.length, { timeout: DELIVERY_WAIT_MS }).toBe(n);
    return receiver.received[n - 1] as Received;
  }

  async function checkBothWidths(): Promise<void> {
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      await checkPage(page, width);
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  }

  const card = () => page.locator('[data-testid="endpoints"] > li').first();

  it('signs in and lists no endpoint yet', async () => {
    await page.goto(`${t.url}/developer`);
    await page.getByLabel('Party name').fill('hooks');
    await page.getByRole('button', { name: 'Create a devnet party' }).click();
    await page.getByTestId('party-id').first().waitFor();
    await page.getByRole('button', { name: 'Sign in with this wallet' }).click();
    await page.waitForURL(`${t.url}/developer/keys`);
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByText('No endpoints yet: add one above.').waitFor();
    await checkBothWidths();
  });

  it('adds an endpoint from the keyboard, its secret shown once and copied', async () => {
    await page.getByLabel('Endpoint URL').focus();
    await page.keyboard.type(receiver.url);
    await page.keyboard.press('Enter');
    const shown = page.getByTestId('new-secret');
    await shown.waitFor();
    secret = (await shown.textContent()) ?? '';
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{32,}$/);
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('secret-heading');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await page.getByText('Copied to the clipboard.').waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    expect(await card().getByTestId('endpoint-state').textContent()).toBe('Active');
    expect(await card().textContent()).toContain('Every event');
    await checkBothWidths();
    await page.getByRole('button', { name: 'I have stored the secret' }).click();
    expect(await page.content()).not.toContain(secret);
  });

  it('sends a test event the receiver verifies with the secret, logged among the deliveries', async () => {
    await page.getByRole('button', { name: `Send test event to ${receiver.url}` }).click();
    const first = await request(1);
    const signature = first.headers['poolparty-signature'] as string;
    const event = await webhooks.verify(first.body, signature, secret);
    expect(event.type).toBe('webhook.test');
    expect(first.headers['poolparty-event-id']).toBe(event.id);
    await expect(
      webhooks.verify(first.body, signature, 'whsec_not_this_one'),
    ).rejects.toMatchObject({
      code: 'webhook_signature_mismatch',
    });
    const log = page.getByTestId('deliveries');
    await log.locator('tbody tr').first().waitFor();
    expect(await log.textContent()).toContain('webhook.test');
    // The log reads itself again while the delivery is pending: its outcome shows, no reload.
    await expect
      .poll(() => log.getByTestId('delivery-state').first().textContent(), {
        timeout: DELIVERY_WAIT_MS,
      })
      .toBe('delivered');
    expect(await log.textContent()).toContain('HTTP 200');
    await checkBothWidths();
  });

  it('rotates the secret with an overlap: the next request verifies under either', async () => {
    await page.getByRole('button', { name: `Rotate secret of ${receiver.url}` }).click();
    await page.getByLabel('The old secret keeps signing for').selectOption({ label: '1 hour' });
    await page.getByRole('button', { name: 'Rotate secret', exact: true }).click();
    const shown = page.getByTestId('new-secret');
    await shown.waitFor();
    fresh = (await shown.textContent()) ?? '';
    expect(fresh).not.toBe(secret);
    await page.getByTestId('secret-overlap').waitFor();
    await page.getByRole('button', { name: 'I have stored the secret' }).click();

    await page.getByRole('button', { name: `Send test event to ${receiver.url}` }).click();
    const next = await request(2);
    const signature = next.headers['poolparty-signature'] as string;
    expect(signature.match(/v1=/g)).toHaveLength(2);
    for (const key of [secret, fresh, [fresh, secret]]) {
      await expect(webhooks.verify(next.body, signature, key)).resolves.toMatchObject({
        type: 'webhook.test',
      });
    }
  });

  it('resends a delivery: the same event again, under the current secrets', async () => {
    const first = receiver.received[0] as Received;
    const { id } = JSON.parse(first.body.toString('utf8')) as { id: string };
    const log = page.getByTestId('deliveries');
    await log.getByRole('button', { name: `Resend webhook.test ${id}` }).click();
    const again = await request(3);
    const signature = again.headers['poolparty-signature'] as string;
    await expect(webhooks.verify(again.body, signature, fresh)).resolves.toMatchObject({ id });
    await page.getByText(`webhook.test (${id}) is sent again.`).waitFor();
  });

  it('edits the events, pauses and enables the endpoint', async () => {
    await page.getByRole('button', { name: `Edit ${receiver.url}` }).click();
    const events = card().getByLabel('Events (optional)');
    // The hint names every kind, atomic swaps' among them, and the service takes each.
    expect(
      await card()
        .getByText(/^Event types or kinds/)
        .textContent(),
    ).toContain('atomic_swap.*');
    await events.fill('swap.completed, atomic_swap.*, collection.*');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText(`${receiver.url} is saved.`).waitFor();
    expect(await card().textContent()).toContain('atomic_swap.*, collection.*, swap.completed');

    await page.getByRole('button', { name: `Pause ${receiver.url}` }).click();
    await expect
      .poll(() => card().getByTestId('endpoint-state').textContent())
      .toBe('Disabled (disabled by the developer)');
    await page.getByRole('button', { name: `Enable ${receiver.url}` }).click();
    await expect.poll(() => card().getByTestId('endpoint-state').textContent()).toBe('Active');
  });

  it('deletes the endpoint only once confirmed, the safe choice focused', async () => {
    const remove = page.getByRole('button', { name: `Delete ${receiver.url}`, exact: true });
    await remove.click();
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label')))
      .toBe(`Keep ${receiver.url}`);
    // Enter keeps it: the focused choice is the safe one.
    await page.keyboard.press('Enter');
    await remove.waitFor();
    expect(await card().getByTestId('endpoint-state').textContent()).toBe('Active');
    await remove.click();
    await checkBothWidths();
    await page.getByRole('button', { name: `Delete now: ${receiver.url}` }).click();
    await page.getByText('No endpoints yet: add one above.').waitFor();
    expect(csp).toEqual([]);
  });
});
