/**
 * Requests a page sends that the test holds until it lets them go: so that a swap ends while the
 * user is on another page (its deposit or its signature held until the user has gone).
 */
import type { Locator, Page } from 'playwright-core';

/** Holds every request matching `url` until the answer is called; then they all go on. */
export async function holdRequests(page: Page, url: string): Promise<() => void> {
  let release = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  await page.route(url, async (route) => {
    await held;
    await route.continue();
  });
  return release;
}

/**
 * Leaves the card for the pools page, lets the held requests go, and answers the toast of the
 * swap that then completed there.
 */
export async function toastAfterLeaving(
  page: Page,
  baseUrl: string,
  release: () => void,
  timeoutMs: number,
): Promise<Locator> {
  await page.getByRole('link', { name: 'Pools', exact: true }).click();
  await page.waitForURL(`${baseUrl}/pools`);
  release();
  const toast = page.locator('[data-testid="swap-toast"][data-state="completed"]');
  await toast.waitFor({ timeout: timeoutMs });
  return toast;
}
