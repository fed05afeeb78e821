/**
 * A page told what the service's ledger does about atomic swaps, whatever it does: the tests of
 * the deposit flow with the devnet wallet (which the card swaps atomically where it can) tell the
 * page there are none; the test of the card's fallback tells it there are, and has the prepare
 * answer as a ledger without interactive submission does (501 `atomic_swaps_unavailable`, the
 * catalogue's problem).
 */
import type { AppConfig } from '@poolparty/core';
import { problemBody } from '@poolparty/core/problems';
import type { Page } from 'playwright-core';

/** `/app-config.json` as the service answers it, but `atomicSwaps`. */
export async function tellAtomicSwaps(page: Page, atomicSwaps: boolean): Promise<void> {
  await page.route('**/app-config.json', async (route) => {
    const answer = await route.fetch();
    const config = (await answer.json()) as AppConfig;
    await route.fulfill({ response: answer, json: { ...config, atomicSwaps } });
  });
}

/** The card swaps by deposit, as on a service whose ledger prepares no atomic swaps. */
export function swapByDeposit(page: Page): Promise<void> {
  return tellAtomicSwaps(page, false);
}

/** The pages are told of atomic swaps, and every prepare answers 501. */
export async function answerAtomicSwapsUnavailable(page: Page): Promise<void> {
  await tellAtomicSwaps(page, true);
  await page.route('**/v1/atomic-swaps', async (route) => {
    if (route.request().method() !== 'POST') return route.continue();
    const detail = 'The ledger prepares no transaction for a wallet to sign.';
    await route.fulfill({
      status: 501,
      contentType: 'application/problem+json',
      body: JSON.stringify(problemBody('atomic_swaps_unavailable', detail, {}, 'test-501')),
    });
  });
}

/**
 * A page's console errors but the browser's own line for that 501, which is the answer the page
 * is meant to get (Chromium logs every response of an error status).
 */
export function besidesUnavailableAnswer(errors: readonly string[]): string[] {
  return errors.filter((error) => !/status of 501 \(Not Implemented\)/.test(error));
}
