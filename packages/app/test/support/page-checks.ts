/**
 * What every page must pass at each width: nothing wider than the screen, no console errors, no
 * serious axe finding, and every visible control reachable with Tab from the top of the page.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';
import { screenshot, seriousAxeViolations, watchCspViolations } from './browser.js';

/** Console errors and uncaught exceptions of a page, collected from the moment it is watched. */
export function watchConsoleErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`${page.url()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => errors.push(`${page.url()}: ${error.message}`));
  return errors;
}

/**
 * How far the page reaches past the viewport's width (0 when it does not scroll sideways), with
 * the elements reaching furthest when it does, for the failure message.
 */
export function horizontalOverflow(page: Page): Promise<{ by: number; widest: string[] }> {
  return page.evaluate(() => {
    const limit = document.documentElement.clientWidth;
    const by = document.documentElement.scrollWidth - limit;
    const widest: string[] = [];
    if (by > 0) {
      for (const element of Array.from(document.body.querySelectorAll('*'))) {
        const right = Math.round(element.getBoundingClientRect().right);
        if (right > limit)
          widest.push(`${element.tagName.toLowerCase()}.${element.className} ${right}`);
      }
    }
    return { by, widest: widest.slice(0, 8) };
  });
}

const FOCUSABLE =
  'a[href], button:not([disabled]), input:not([disabled]):not([type="radio"]), ' +
  'input[type="radio"]:checked:not([disabled]), select:not([disabled]), ' +
  'textarea:not([disabled]), summary, [tabindex]:not([tabindex="-1"])';

/**
 * The visible controls that pressing Tab from the skip link (the page's first stop) never
 * reaches, described for a failure message. A radio group is one stop (its checked radio).
 */
export async function unreachableByKeyboard(page: Page): Promise<string[]> {
  const total = await page.evaluate((selector) => {
    const shown = Array.from(document.querySelectorAll<HTMLElement>(selector)).filter(
      (element) =>
        element.getClientRects().length > 0 &&
        element.checkVisibility({ visibilityProperty: true }) &&
        element.closest('details:not([open]) > :not(summary)') === null,
    );
    for (const [index, element] of shown.entries()) element.dataset.kb = String(index);
    return shown.length;
  }, FOCUSABLE);
  await page.locator('.skip-link').focus();
  const seen = new Set<string>();
  for (let step = 0; step < total + 10; step++) {
    const at = await page.evaluate(
      () => (document.activeElement as HTMLElement | null)?.dataset.kb,
    );
    if (at !== undefined) seen.add(at);
    await page.keyboard.press('Tab');
  }
  return page.evaluate(
    (reached) => {
      const missing: string[] = [];
      for (const element of Array.from(document.querySelectorAll<HTMLElement>('[data-kb]'))) {
        if (reached.includes(element.dataset.kb ?? '')) continue;
        const name = element.getAttribute('aria-label') ?? element.textContent?.trim().slice(0, 40);
        missing.push(`${element.tagName.toLowerCase()} "${name}"`);
      }
      for (const element of Array.from(document.querySelectorAll<HTMLElement>('[data-kb]'))) {
        delete element.dataset.kb;
      }
      return missing;
    },
    [...seen],
  );
}

/** The checks every page of the web tests passes at its width, and its screenshot when named. */
export async function checkPage(page: Page, width: number, name?: string): Promise<void> {
  expect(await horizontalOverflow(page), `${page.url()} at ${width}`).toEqual({
    by: 0,
    widest: [],
  });
  expect(await seriousAxeViolations(page), page.url()).toEqual([]);
  expect(await unreachableByKeyboard(page), page.url()).toEqual([]);
  if (name !== undefined) await screenshot(page, `${name}-${width}`);
}

/**
 * A fresh browser profile at a width, with its console errors and CSP reports watched; its
 * context joins `contexts`, which the suite closes.
 */
export async function newWatchedPage(
  browser: Browser,
  contexts: BrowserContext[],
  width: number,
  colorScheme: 'light' | 'dark' = 'light',
) {
  const context = await browser.newContext({ viewport: { width, height: 900 }, colorScheme });
  contexts.push(context);
  const page = await context.newPage();
  const csp = await watchCspViolations(page);
  const errors = watchConsoleErrors(page);
  return { page, csp, errors };
}
